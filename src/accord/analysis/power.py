"""Power of a comparison: the minimum detectable difference (MDD) of a design and the games a
planned comparison needs (`accord plan`, the noise floor, the reproduction kits' dry runs).

A two-sided test at level alpha detects a true difference delta with probability ``power``
when ``delta >= (t[1 - alpha/2, df] + t[power, df]) * se``: the usual normal-theory formula
with Student's t quantiles, so it holds at small sizes too. The standard error is

* paired (the same n scenarios on both sides): ``se = sd_d / sqrt(n)``, ``df = n - 1``, where
  ``sd_d`` is the spread of the per-scenario differences;
* unpaired (n fresh games per side): ``se = sd * sqrt(2 / n)``, ``df = 2n - 2``.

A test in ``tests/analysis`` checks, by 1,000 simulated comparisons per case, that a true
difference of the stated MDD is detected with the stated power (within five points).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from statistics import NormalDist

from accord.analysis.welch import t_two_sided_p

DEFAULT_POWER = 0.8
DEFAULT_ALPHA = 0.05
WORST_SD = 0.5
"""The largest spread a metric in [0, 1] can have (a rate at 50%): the assumption when no
earlier run says more."""
MAX_GAMES = 10**9


def t_quantile(q: float, df: float) -> float:
    """The `q` quantile of Student's t with `df` degrees of freedom (0 < q < 1)."""
    if not 0.0 < q < 1.0:
        raise ValueError("q must lie strictly between 0 and 1")
    if math.isinf(df) or df > 1e7:
        return NormalDist().inv_cdf(q)
    if q == 0.5:
        return 0.0
    target = 2.0 * min(q, 1.0 - q)  # two-sided tail probability of |t|
    lo, hi = 0.0, 1.0
    while t_two_sided_p(hi, df) > target:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_two_sided_p(mid, df) > target:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    t = (lo + hi) / 2.0
    return t if q > 0.5 else -t


def _factor(df: float, power: float, alpha: float) -> float:
    if not 0.0 < alpha < 1.0 or not 0.0 < power < 1.0:
        raise ValueError("alpha and power must lie strictly between 0 and 1")
    return t_quantile(1.0 - alpha / 2.0, df) + t_quantile(power, df)


def mdd(
    sd: float,
    n: int,
    *,
    paired: bool = True,
    power: float = DEFAULT_POWER,
    alpha: float = DEFAULT_ALPHA,
) -> float:
    """The smallest true difference detected with `power` (NaN below two games / pairs)."""
    if n < 2 or math.isnan(sd):
        return math.nan
    if paired:
        return _factor(n - 1, power, alpha) * sd / math.sqrt(n)
    return _factor(2 * n - 2, power, alpha) * sd * math.sqrt(2.0 / n)


def power_of(
    delta: float, sd: float, n: int, *, paired: bool = True, alpha: float = DEFAULT_ALPHA
) -> float:
    """Probability that the two-sided test at `alpha` detects a true difference `delta`
    (shifted-t approximation of the noncentral t; both tails counted)."""
    if n < 2:
        return math.nan
    df = n - 1 if paired else 2 * n - 2
    se = sd / math.sqrt(n) if paired else sd * math.sqrt(2.0 / n)
    if se == 0.0:
        return 1.0 if delta else alpha
    crit = t_quantile(1.0 - alpha / 2.0, df)
    shift = abs(delta) / se

    def upper(x: float) -> float:  # P(T > x)
        half = t_two_sided_p(abs(x), df) / 2.0
        return half if x >= 0 else 1.0 - half

    return upper(crit - shift) + (1.0 - upper(-crit - shift))


def games_needed(
    delta: float,
    sd: float,
    *,
    paired: bool = True,
    power: float = DEFAULT_POWER,
    alpha: float = DEFAULT_ALPHA,
) -> int:
    """The fewest scenarios (paired) or games per side (unpaired) whose MDD is at most
    `delta`."""
    if delta <= 0.0:
        raise ValueError("the difference to detect must be positive")
    if sd == 0.0:
        return 2
    lo, hi = 2, 2
    while mdd(sd, hi, paired=paired, power=power, alpha=alpha) > delta:
        lo, hi = hi, hi * 2
        if hi > MAX_GAMES:
            return MAX_GAMES
    while lo < hi:
        mid = (lo + hi) // 2
        if mdd(sd, mid, paired=paired, power=power, alpha=alpha) > delta:
            lo = mid + 1
        else:
            hi = mid
    return hi


def grid_detectable(groups: Mapping[str, int], *, sd: float = WORST_SD, span: float = 1.0) -> str:
    """One line for a reproduction's dry run: the difference its grid can detect between two
    row groups (unpaired, 80% power, alpha 0.05, a rate's worst-case spread), at the
    smallest and the largest group size. A rate cannot differ by more than its range
    (`span`, 1 for a rate): a detectable difference beyond it is printed as "none", since
    no possible difference would be found with that power."""
    sizes = sorted({n for n in groups.values() if n >= 2})
    if not sizes:
        return "Detectable difference: every row group has fewer than 2 games, too few to test."
    parts = []
    for n in dict.fromkeys((sizes[0], sizes[-1])):
        value = mdd(sd, n, paired=False)
        if value > span:
            parts.append(f"none at {n} games (it would take more than {span:g}, the whole range)")
        else:
            parts.append(f"{value:.3f} at {n} games")
    return (
        "Detectable difference between two row groups (80% power, alpha 0.05, unpaired, "
        f"spread {sd:g} as for a rate near 50%): " + "; ".join(parts) + ". Paired on the same "
        "tasks it is smaller: see accord plan --from DIR after the run."
    )
