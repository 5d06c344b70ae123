"""PNG charts per workload: throughput (median with min-max) and server CPU per request (user + kernel)."""
from __future__ import annotations

import importlib.util
import os

from .report import Table


def available() -> bool:
    return importlib.util.find_spec("matplotlib") is not None


def render(table: Table, path: str, title_suffix: str = "") -> bool:
    """Writes one chart for the table's measured rows; False when nothing was measured."""
    rows = [r for r in table.rows if r.status == "ok"]
    if not rows or not available():
        return False
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r.contender for r in rows]
    ys = list(range(len(rows)))
    fig, (ax_rps, ax_cpu) = plt.subplots(1, 2, figsize=(11, 0.45 * len(rows) + 1.6), sharey=True)
    medians = [r.rps for r in rows]
    errors = [[r.rps - r.rps_min for r in rows], [r.rps_max - r.rps for r in rows]]
    colors = ["#4c72b0" if r.contender == table.reference else
              ("#dd8452" if r.contender.startswith("slipstream") else "#8c8c8c") for r in rows]
    ax_rps.barh(ys, medians, xerr=errors, color=colors, capsize=3)
    ax_rps.set_yticks(ys, names)
    ax_rps.invert_yaxis()
    unit = table.workload.unit
    ax_rps.set_xlabel("echoes/s (median, min–max)" if unit == "msg" else "requests/s, 2xx only (median, min–max)")
    user = [r.user_us or 0.0 for r in rows]
    kernel = [r.sys_us or 0.0 for r in rows]
    ax_cpu.barh(ys, user, color="#55a868", label="user")
    ax_cpu.barh(ys, kernel, left=user, color="#c44e52", label="kernel")
    ax_cpu.set_xlabel(f"server CPU µs per {'message' if unit == 'msg' else 'request'}")
    ax_cpu.legend(loc="best", fontsize=8)
    fig.suptitle(f"{table.workload.name}: {table.workload.description}{title_suffix}", fontsize=10)
    fig.tight_layout()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True
