"""Turns raw records into per-workload rows: medians and spreads over rounds, ratio to the same-round reference."""
from __future__ import annotations

from dataclasses import dataclass, field

from .stats import median, spread
from .workloads import Workload


@dataclass
class Row:
    contender: str
    status: str                      # "ok", "n/a", "skipped" or "failed"
    note: str = ""
    rounds: int = 0
    rps: float | None = None         # median over rounds, 2xx only
    rps_min: float | None = None
    rps_max: float | None = None
    p50_us: float | None = None
    p99_us: float | None = None
    user_us: float | None = None     # server CPU per request, user space (median)
    sys_us: float | None = None      # server CPU per request, kernel (median)
    rss_peak_mib: float | None = None  # highest over rounds
    non_2xx: int = 0                 # summed over rounds
    socket_errors: int = 0
    ratio: float | None = None       # median over rounds of rps / reference rps (same round)
    flags: list[str] = field(default_factory=list)


@dataclass
class Table:
    workload: Workload
    reference: str
    rows: list[Row]


def accepted(records: list[dict]) -> dict[tuple[str, str, int], dict]:
    """The measurement kept for each (workload, contender, round): its last attempt."""
    kept: dict[tuple[str, str, int], dict] = {}
    for r in records:
        if r.get("type") != "measurement":
            continue
        key = (r["workload"], r["contender"], r["round"])
        if key not in kept or r["attempt"] >= kept[key]["attempt"]:
            kept[key] = r
    return kept


def _median_of(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return median(present) if present else None


def build_row(contender: str, runs: list[dict], ref_by_round: dict[int, float]) -> Row:
    rps = [r["rps"] for r in runs]
    lo, hi = spread(rps)
    ratios = [r["rps"] / ref_by_round[r["round"]] for r in runs if ref_by_round.get(r["round"])]
    row = Row(contender=contender, status="ok", rounds=len(runs), rps=median(rps), rps_min=lo, rps_max=hi,
              p50_us=_median_of([r["latency_us"].get("50.0") for r in runs]),
              p99_us=_median_of([r["latency_us"].get("99.0") for r in runs]),
              user_us=median([r["server_user_us_per_req"] for r in runs]),
              sys_us=median([r["server_sys_us_per_req"] for r in runs]),
              rss_peak_mib=max(r["rss_peak_kib"] for r in runs) / 1024,
              non_2xx=sum(r["non_2xx"] for r in runs),
              socket_errors=sum(sum(r["socket_errors"].values()) for r in runs),
              ratio=median(ratios) if ratios else None)
    disturbed = sum(1 for r in runs if r["disturbed"])
    if disturbed:
        row.flags.append(f"disturbed in {disturbed}/{len(runs)} rounds")
    if median([r["client_cpu_cores"] for r in runs]) > 0.9:
        row.flags.append("client-bound")
    kept = [r["idle_kept"] for r in runs if r.get("idle_kept") is not None]
    if kept:
        opened = min(r["idle_opened"] for r in runs)
        row.flags.append(f"idle kept {min(kept):,} of {opened:,}")
    if any(r["client_exit"] != 0 for r in runs):
        row.flags.append("load generator exited non-zero")
    return row


def build_tables(records: list[dict], workloads: list[Workload], contenders: list[str]) -> list[Table]:
    kept = accepted(records)
    skips = {r["contender"]: r["reason"] for r in records if r.get("type") == "skip"}
    problems: dict[tuple[str, str], tuple[str, str]] = {}
    for r in records:
        if r.get("type") in ("na", "failure"):
            problems[(r["workload"], r["contender"])] = ("n/a" if r["type"] == "na" else "failed", r["reason"])
    tables = []
    for workload in workloads:
        ref_by_round = {rnd: r["rps"] for (w, c, rnd), r in kept.items()
                        if w == workload.name and c == workload.reference}
        rows = []
        for contender in contenders:
            runs = sorted((r for (w, c, _), r in kept.items() if w == workload.name and c == contender),
                          key=lambda r: r["round"])
            if runs:
                row = build_row(contender, runs, ref_by_round)
                if (workload.name, contender) in problems:  # e.g. failed in one round only
                    row.flags.append(problems[(workload.name, contender)][1])
            elif contender in skips:
                row = Row(contender, "skipped", skips[contender])
            elif (workload.name, contender) in problems:
                status, reason = problems[(workload.name, contender)]
                row = Row(contender, status, reason)
            else:
                continue  # not selected for this run
            rows.append(row)
        tables.append(Table(workload, workload.reference, rows))
    return tables
