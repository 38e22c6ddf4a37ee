"""What the benchmarks print besides the median: the tail of a set of timings."""

from __future__ import annotations

import math


def p95(values: list[float]) -> float:
    """The 95th percentile by nearest rank: the smallest value at least 95 % of the values do
    not exceed (one of the values, never an interpolation)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]
