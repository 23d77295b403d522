"""Statistics shared by every game's reports: means with percentile-bootstrap CIs.

Games are the resampling unit (rounds inside a game are not independent). The bootstrap
generator is seeded, so the same results give the same intervals.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Estimate:
    """A mean with a confidence interval over `n` values."""

    mean: float
    lo: float
    hi: float
    n: int

    def fmt(self, *, percent: bool = False, digits: int = 1) -> str:
        """``"68.2 [61.0, 74.9]"`` (× 100 when `percent`)."""
        if self.n == 0 or math.isnan(self.mean):
            return "–"
        k = 100.0 if percent else 1.0
        if self.n == 1:
            return f"{self.mean * k:.{digits}f}"
        return f"{self.mean * k:.{digits}f} [{self.lo * k:.{digits}f}, {self.hi * k:.{digits}f}]"

    def as_dict(self) -> dict[str, float | int]:
        """JSON-able form."""
        return {"mean": self.mean, "ci_low": self.lo, "ci_high": self.hi, "n": self.n}


BOOTSTRAP_BLOCK = 1 << 20
"""Indices drawn at once by `bootstrap_mean` (8 MB): memory stays flat in the sample size."""


def bootstrap_mean(
    values: Sequence[float], *, level: float = 0.95, resamples: int = 2000, seed: int = 0
) -> Estimate:
    """Mean of `values` with a percentile bootstrap CI (NaNs dropped)."""
    arr = np.asarray([v for v in values if v is not None and not math.isnan(v)], dtype=float)
    n = int(arr.size)
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    mean = float(arr.mean())
    if n == 1 or float(arr.min()) == float(arr.max()):
        return Estimate(mean, mean, mean, n)
    rng = np.random.default_rng(seed)
    # Resamples are drawn in row blocks of about 1M indices: the same random stream as one
    # (resamples x n) draw, so the same CI, without 16 KB of memory per value per resample.
    block = max(1, BOOTSTRAP_BLOCK // n)
    means = np.concatenate(
        [
            arr[rng.integers(0, n, size=(min(block, resamples - start), n))].mean(axis=1)
            for start in range(0, resamples, block)
        ]
    )
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    return Estimate(mean, float(lo), float(hi), n)
