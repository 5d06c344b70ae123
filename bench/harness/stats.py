"""Small statistics used by the report: median, spread, percentiles (no numpy)."""
from __future__ import annotations

import statistics


def median(values: list[float]) -> float:
    if not values:
        raise ValueError("median of nothing")
    return float(statistics.median(values))


def spread(values: list[float]) -> tuple[float, float]:
    """(min, max) of the rounds."""
    if not values:
        raise ValueError("spread of nothing")
    return float(min(values)), float(max(values))


def relative_spread(values: list[float]) -> float:
    """(max - min) / median, 0 when the median is 0."""
    lo, hi = spread(values)
    mid = median(values)
    return (hi - lo) / mid if mid else 0.0


def percentile(sorted_values: list[float], pct: float) -> float:
    """Nearest-rank percentile of already sorted values (pct in 0..100)."""
    if not sorted_values:
        raise ValueError("percentile of nothing")
    rank = max(1, min(len(sorted_values), -(-len(sorted_values) * pct // 100)))
    return float(sorted_values[int(rank) - 1])
