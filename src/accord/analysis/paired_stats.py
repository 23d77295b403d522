"""The statistics of `accord compare`: bootstrap CIs of a difference (paired and unpaired),
permutation p-values (exact where the sample allows it) and Holm's step-down adjustment.

Everything is vectorised numpy with a seeded generator: the same inputs give the same
intervals and p-values.

* Intervals (paired and unpaired): the studentized bootstrap (bootstrap-t: the t statistic
  ``(mean* - mean) / se*`` of each resample gives the quantiles, Efron & Tibshirani 1993
  ch. 12), widened at each end where needed to contain Student's t interval (Welch's for
  two samples). The bootstrap-t corrects for skew, which t cannot; t holds its level for
  discrete differences (a 0/1 outcome) at small n, where the bootstrap-t's resamples often
  have no spread. ``bench/bench_interval_coverage.py`` measures the coverage (normal, skewed
  and 0/1 differences, n = 3 to 100) and `accord.analysis.paired.MIN_PAIRS` is the smallest n
  from which it holds; `docs/analysis.md` gives the table. The percentile bootstrap used
  before covered 72.5% at n = 3 and 88.5% at n = 10.
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

from accord.analysis.power import t_quantile

RESAMPLES = 2000
"""Bootstrap resamples per interval."""
PERMUTATIONS = 10_000
"""Random permutations when the exact test is too large."""
EXACT_MAX = 16
"""Up to this many pairs the sign-flip test enumerates every sign vector (65,536)."""
BLOCK = 1 << 20
"""Elements drawn at once: memory stays flat in the sample size."""
_TOL = 1e-12
SPREAD_TOL = 1e-9
"""A resample whose spread is below this share of the sample's has none: the mean of n equal
floats is not always exactly that float, so a resample of one repeated value can show a
spread of 1e-15 and a t statistic of 1e13 (an interval of [-12.4, 3.7e10] for differences
that are -12.4 or -12.2)."""

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


def _resampled_mean_sd(x: Array, resamples: int, rng: np.random.Generator) -> tuple[Array, Array]:
    n = x.size
    block = max(1, BLOCK // n)
    means, sds = [], []
    for start in range(0, resamples, block):
        draw = x[rng.integers(0, n, size=(min(block, resamples - start), n))]
        means.append(draw.mean(axis=1))
        sds.append(draw.std(axis=1, ddof=1))
    return np.concatenate(means), np.concatenate(sds)


def _studentized_quantiles(
    x: Array, level: float, resamples: int, rng: np.random.Generator
) -> tuple[float, float] | None:
    """The (alpha/2, 1 - alpha/2) quantiles of the bootstrap t statistic of ``mean(x)``;
    None when too few resamples have a spread (a sample of mostly one value)."""
    m, n = float(x.mean()), x.size
    means, sds = _resampled_mean_sd(x, resamples, rng)
    ok = sds > SPREAD_TOL * float(x.std(ddof=1))
    if int(ok.sum()) < resamples // 2:
        return None
    t = (means[ok] - m) / (sds[ok] / math.sqrt(n))
    return _quantiles(t, level)


def paired_ci(
    diffs: Sequence[float] | Array,
    *,
    level: float = 0.95,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> tuple[float, float]:
    """CI of ``mean(diffs)``: the studentized (bootstrap-t) interval, the pairs resampled,
    widened where needed to contain Student's t interval (module docstring)."""
    d = np.asarray(diffs, dtype=float)
    if d.size < 2 or float(d.min()) == float(d.max()):
        m = float(d.mean()) if d.size else math.nan
        return m, m
    m, se = float(d.mean()), float(d.std(ddof=1)) / math.sqrt(d.size)
    q = t_quantile(0.5 + level / 2.0, d.size - 1)
    lo, hi = m - q * se, m + q * se
    boot = _studentized_quantiles(d, level, resamples, np.random.default_rng(seed))
    if boot is not None:
        lo, hi = min(lo, m - boot[1] * se), max(hi, m - boot[0] * se)
    return lo, hi


def percentile_paired_ci(
    diffs: Sequence[float] | Array,
    *,
    level: float = 0.95,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> tuple[float, float]:
    """The percentile bootstrap CI of ``mean(diffs)`` (what `accord compare` used before the
    coverage study in ``bench/bench_interval_coverage.py``; kept for that comparison)."""
    d = np.asarray(diffs, dtype=float)
    if d.size < 2 or float(d.min()) == float(d.max()):
        m = float(d.mean()) if d.size else math.nan
        return m, m
    return _quantiles(_resampled_means(d, resamples, np.random.default_rng(seed)), level)


def _welch(xa: Array, xb: Array) -> tuple[float, float, float]:
    """``(difference, standard error, Welch-Satterthwaite df)`` of ``mean(b) - mean(a)``."""
    va, vb = float(xa.var(ddof=1)) / xa.size, float(xb.var(ddof=1)) / xb.size
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (xa.size - 1) + vb**2 / (xb.size - 1)) if se > 0 else 1.0
    return float(xb.mean() - xa.mean()), se, df


def unpaired_ci(
    a: Sequence[float] | Array,
    b: Sequence[float] | Array,
    *,
    level: float = 0.95,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> tuple[float, float]:
    """CI of ``mean(b) - mean(a)``: the two-sample studentized bootstrap (each side resampled
    on its own, Welch's standard error) widened to contain Welch's t interval. A side of one
    game has no spread of its own: then the percentile bootstrap of the other side."""
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if not xa.size or not xb.size:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    if xa.size < 2 or xb.size < 2:
        ma = _resampled_means(xa, resamples, rng) if xa.size > 1 else np.full(resamples, xa.mean())
        mb = _resampled_means(xb, resamples, rng) if xb.size > 1 else np.full(resamples, xb.mean())
        return _quantiles(mb - ma, level)
    diff, se, df = _welch(xa, xb)
    if se == 0:
        return diff, diff
    q = t_quantile(0.5 + level / 2.0, df)
    lo, hi = diff - q * se, diff + q * se
    ma, sa = _resampled_mean_sd(xa, resamples, rng)
    mb, sb = _resampled_mean_sd(xb, resamples, rng)
    se_star = np.sqrt(sa**2 / xa.size + sb**2 / xb.size)
    ok = se_star > SPREAD_TOL * se
    if int(ok.sum()) >= resamples // 2:
        t = ((mb - ma)[ok] - diff) / se_star[ok]
        tl, th = _quantiles(t, level)
        lo, hi = min(lo, diff - th * se), max(hi, diff - tl * se)
    return lo, hi


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
