"""The statistics of `accord compare`: bootstrap CIs of a difference (paired and unpaired),
permutation p-values (exact where the sample allows it) and Holm's step-down adjustment.

Everything is vectorised numpy with a seeded generator: the same inputs give the same
intervals and p-values.

* Paired: `d_i = b_i - a_i` per matched scenario. The CI resamples scenarios (the pairs), the
  p-value is the sign-flip permutation test of ``mean(d) = 0``: under the null each pair's
  sign is exchangeable. With at most `EXACT_MAX` pairs all ``2^n`` sign vectors are
  enumerated (exact p); beyond that `PERMUTATIONS` random ones are drawn and
  ``p = (1 + hits) / (1 + draws)`` (never 0).
* Unpaired: each side's games resampled on their own for the CI; the p-value permutes the
  side labels over the pooled games.
* Holm (1979): sort the m p-values, multiply the i-th smallest (0-based) by ``m - i``, take
  the running maximum, cap at 1. It controls the family-wise error across the metrics
  compared.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

RESAMPLES = 2000
"""Bootstrap resamples per interval."""
PERMUTATIONS = 10_000
"""Random permutations when the exact test is too large."""
EXACT_MAX = 16
"""Up to this many pairs the sign-flip test enumerates every sign vector (65,536)."""
BLOCK = 1 << 20
"""Elements drawn at once: memory stays flat in the sample size."""
_TOL = 1e-12

Array = np.ndarray[Any, Any]


def _quantiles(means: Array, level: float) -> tuple[float, float]:
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def _resampled_means(x: Array, resamples: int, rng: np.random.Generator) -> Array:
    n = x.size
    block = max(1, BLOCK // n)
    return np.concatenate(
        [
            x[rng.integers(0, n, size=(min(block, resamples - start), n))].mean(axis=1)
            for start in range(0, resamples, block)
        ]
    )


def paired_ci(
    diffs: Sequence[float] | Array,
    *,
    level: float = 0.95,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap CI of ``mean(diffs)``, the pairs resampled."""
    d = np.asarray(diffs, dtype=float)
    if d.size < 2 or float(d.min()) == float(d.max()):
        m = float(d.mean()) if d.size else math.nan
        return m, m
    return _quantiles(_resampled_means(d, resamples, np.random.default_rng(seed)), level)


def unpaired_ci(
    a: Sequence[float] | Array,
    b: Sequence[float] | Array,
    *,
    level: float = 0.95,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap CI of ``mean(b) - mean(a)``, each side resampled on its own."""
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if not xa.size or not xb.size:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    ma = _resampled_means(xa, resamples, rng) if xa.size > 1 else np.full(resamples, xa.mean())
    mb = _resampled_means(xb, resamples, rng) if xb.size > 1 else np.full(resamples, xb.mean())
    return _quantiles(mb - ma, level)


def sign_flip_p(
    diffs: Sequence[float] | Array, *, permutations: int = PERMUTATIONS, seed: int = 0
) -> tuple[float, bool]:
    """Two-sided sign-flip permutation p-value of ``mean(diffs) = 0`` and whether it is exact."""
    d = np.asarray(diffs, dtype=float)
    n = d.size
    if n == 0:
        return math.nan, True
    observed = abs(float(d.mean()))
    if observed <= _TOL:
        return 1.0, True
    if n <= EXACT_MAX:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=n)))
        stats = np.abs(signs @ d) / n
        return float(np.mean(stats >= observed - _TOL)), True
    rng = np.random.default_rng(seed)
    hits = 0
    block = max(1, BLOCK // n)
    for start in range(0, permutations, block):
        rows = min(block, permutations - start)
        signs = rng.integers(0, 2, size=(rows, n)) * 2.0 - 1.0
        hits += int(np.sum(np.abs(signs @ d) / n >= observed - _TOL))
    return (1 + hits) / (1 + permutations), False


def label_permutation_p(
    a: Sequence[float] | Array,
    b: Sequence[float] | Array,
    *,
    permutations: int = PERMUTATIONS,
    seed: int = 0,
) -> float:
    """Two-sided permutation p-value of ``mean(b) = mean(a)``, side labels shuffled."""
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if not xa.size or not xb.size:
        return math.nan
    pooled = np.concatenate([xa, xb])
    observed = abs(float(xb.mean() - xa.mean()))
    if observed <= _TOL:
        return 1.0
    rng = np.random.default_rng(seed)
    n, nb = pooled.size, xb.size
    hits = 0
    block = max(1, BLOCK // n)
    for start in range(0, permutations, block):
        rows = min(block, permutations - start)
        perm = rng.permuted(np.broadcast_to(pooled, (rows, n)), axis=1)
        stat = np.abs(perm[:, :nb].mean(axis=1) - perm[:, nb:].mean(axis=1))
        hits += int(np.sum(stat >= observed - _TOL))
    return (1 + hits) / (1 + permutations)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values, in the input order (NaN stays NaN and is not counted)."""
    idx = [i for i, p in enumerate(pvalues) if not math.isnan(p)]
    m = len(idx)
    out = [math.nan] * len(pvalues)
    running = 0.0
    for rank, i in enumerate(sorted(idx, key=lambda i: pvalues[i])):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out
