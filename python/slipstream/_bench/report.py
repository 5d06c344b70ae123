"""The HTML report of `slipstream bench --report FILE`: one self-contained page (no scripts, no network) with the
summary, latency by percentile on a "nines" axis (50, 90, 99, 99.9, ... are equally spaced, as HdrHistogram
plots them) and the responses per second over the run, both as inline SVG."""

from __future__ import annotations

import html
import math
from typing import Any

from .loops import percentile

WIDTH, HEIGHT, MARGIN = 720, 280, 56
MAX_NINES = 5  # the percentile axis ends at 99.999


def _nines_label(n: int) -> str:
    """The percentile at n nines: 0, 90, 99, 99.9, ..."""
    return {0: "0", 1: "90", 2: "99"}.get(n, "99." + "9" * (n - 2))


def _ticks(top: float) -> list[float]:
    """About five round values from 0 to `top`."""
    if top <= 0:
        return [0.0]
    step = 10 ** math.floor(math.log10(top / 5))
    for factor in (1, 2, 5, 10):
        if top / (step * factor) <= 6:
            step *= factor
            break
    return [i * step for i in range(int(top / step) + 1)]


def _chart(
    title: str,
    x_label: str,
    y_label: str,
    points: list[tuple[float, float]],
    x_ticks: list[tuple[float, str]],
    x_max: float,
) -> str:
    """A line chart of `points` (x from 0 to x_max, y from 0), with its axes and labels."""
    y_max = max((y for _, y in points), default=0.0) * 1.1 or 1.0
    y_ticks = _ticks(y_max)
    y_max = max(y_max, y_ticks[-1])
    plot_w, plot_h = WIDTH - 2 * MARGIN, HEIGHT - 2 * MARGIN

    def sx(x: float) -> float:
        return MARGIN + (x / x_max if x_max else 0.0) * plot_w

    def sy(y: float) -> float:
        return HEIGHT - MARGIN - y / y_max * plot_h

    parts = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" role="img" '
            f'aria-label="{html.escape(title)}">'
        ),
        f'<text x="{WIDTH / 2}" y="20" text-anchor="middle" class="title">{html.escape(title)}</text>',
        f'<line x1="{MARGIN}" y1="{HEIGHT - MARGIN}" x2="{WIDTH - MARGIN}" y2="{HEIGHT - MARGIN}" class="axis"/>',
        f'<line x1="{MARGIN}" y1="{MARGIN}" x2="{MARGIN}" y2="{HEIGHT - MARGIN}" class="axis"/>',
    ]
    for value in y_ticks:
        y = sy(value)
        parts.append(f'<line x1="{MARGIN}" y1="{y:.1f}" x2="{WIDTH - MARGIN}" y2="{y:.1f}" class="grid"/>')
        parts.append(f'<text x="{MARGIN - 6}" y="{y + 4:.1f}" text-anchor="end">{value:g}</text>')
    for value, label in x_ticks:
        x = sx(value)
        parts.append(f'<text x="{x:.1f}" y="{HEIGHT - MARGIN + 18}" text-anchor="middle">{html.escape(label)}</text>')
    parts.append(f'<text x="{WIDTH / 2}" y="{HEIGHT - 12}" text-anchor="middle">{html.escape(x_label)}</text>')
    parts.append(
        f'<text x="14" y="{HEIGHT / 2}" text-anchor="middle" transform="rotate(-90 14 {HEIGHT / 2})">'
        f"{html.escape(y_label)}</text>"
    )
    if points:
        line = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in points)
        parts.append(f'<polyline points="{line}" class="line"/>')
    parts.append("</svg>")
    return "\n".join(parts)


def latency_chart(latencies: list[float]) -> str:
    ordered = sorted(latencies)
    if not ordered:
        return "<p>No response was measured: no latency to plot.</p>"
    # The resolution the sample size allows: no percentile finer than one response in the run.
    nines = min(MAX_NINES, math.log10(len(ordered))) if len(ordered) > 1 else 0.0
    steps = 200
    points = []
    for i in range(steps + 1):
        x = nines * i / steps
        p = 100.0 * (1.0 - 10.0**-x)
        points.append((x, percentile(ordered, p) * 1e3))
    ticks = [(float(n), _nines_label(n)) for n in range(int(nines) + 1)]
    return _chart("Latency by percentile", "percentile", "ms", points, ticks, nines or 1.0)


def throughput_chart(answered_at: list[float], seconds: float) -> str:
    if not answered_at or seconds <= 0:
        return "<p>No response was measured: no throughput to plot.</p>"
    bucket = 1.0 if seconds >= 10 else 0.1
    counts = [0] * (int(max(seconds, max(answered_at)) / bucket) + 1)
    for t in answered_at:
        if t >= 0:
            counts[int(t / bucket)] += 1
    points = [(i * bucket, n / bucket) for i, n in enumerate(counts)]
    span = len(counts) * bucket
    ticks = [(t, f"{t:g}") for t in _ticks(span)]
    return _chart("Responses per second", "seconds", "responses/s", points, ticks, span)


def render(header: str, summary: dict[str, Any], latencies: list[float], answered_at: list[float]) -> str:
    """The whole page."""
    rows = [
        ("responses", f"{summary['responses']} ({summary['per_second']:.1f}/s)"),
        ("statuses", ", ".join(f"{k} x {v}" for k, v in summary["statuses"].items()) or "none"),
        ("errors", ", ".join(f"{k} x {v}" for k, v in summary["errors"].items()) or "none"),
    ]
    rows += [(f"latency {k} (ms)", f"{v:.3f}") for k, v in summary["latency_ms"].items()]
    table = "\n".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in rows)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>slipstream bench: {html.escape(summary["url"])}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2rem; color: #222; }}
table {{ border-collapse: collapse; margin: 1rem 0; }}
th, td {{ text-align: left; padding: 0.2rem 1rem 0.2rem 0; }}
svg {{ display: block; margin: 1.5rem 0; font-size: 12px; }}
svg .title {{ font-size: 14px; font-weight: bold; }}
svg .axis {{ stroke: #222; }}
svg .grid {{ stroke: #ddd; }}
svg .line {{ fill: none; stroke: #1f6feb; stroke-width: 2; }}
</style>
</head>
<body>
<h1>slipstream bench</h1>
<p>{html.escape(header)}</p>
<table>
{table}
</table>
{latency_chart(latencies)}
{throughput_chart(answered_at, summary["seconds"])}
</body>
</html>
"""
