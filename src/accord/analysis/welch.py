"""Welch's unequal-variance t-test (MAS-Bench App. G.2, G.4 compare conditions and backends
with it).

The two-sided p-value is that of Student's t distribution with the Welch-Satterthwaite degrees
of freedom, P(|T| >= |t|) = I_x(df/2, 1/2) with x = df / (df + t^2), where I is the
regularised incomplete beta function, evaluated by its continued fraction (modified Lentz).
No SciPy needed; tests check the values against known quantiles of the t distribution.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

_EPS = 1e-15
_TINY = 1e-300
_MAX_TERMS = 500


@dataclass(frozen=True)
class WelchResult:
    """Welch's t-test of mean(a) - mean(b)."""

    diff: float
    """mean(a) - mean(b)."""
    t: float
    df: float
    p: float
    """Two-sided p-value."""
    n_a: int
    n_b: int


def _beta_cf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _MAX_TERMS + 1):
        m2 = 2 * m
        for num in (
            m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0)),
        ):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + num / c
            c = c if abs(c) > _TINY else _TINY
            h *= d * c
        if abs(d * c - 1.0) < _EPS:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta function I_x(a, b) for a, b > 0 and 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    front = math.exp(log_front)
    # The fraction converges fast on the side of the mean a / (a + b); use symmetry otherwise.
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_cf(a, b, x) / a
    return 1.0 - front * _beta_cf(b, a, 1.0 - x) / b


def t_two_sided_p(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with `df` degrees of freedom."""
    if math.isinf(t):
        return 0.0
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def _mean_var(xs: Sequence[float]) -> tuple[float, float]:
    m = math.fsum(xs) / len(xs)
    return m, math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1)


def welch(a: Sequence[float], b: Sequence[float]) -> WelchResult | None:
    """Welch's t-test of two samples; ``None`` when either has fewer than two values.

    Two samples without any spread give p = 1 when their means agree and p = 0 otherwise.
    """
    if len(a) < 2 or len(b) < 2:
        return None
    ma, va = _mean_var(a)
    mb, vb = _mean_var(b)
    sa, sb = va / len(a), vb / len(b)
    diff = ma - mb
    se2 = sa + sb
    if se2 == 0.0:
        same = math.isclose(ma, mb)
        t = 0.0 if same else math.copysign(math.inf, diff)
        return WelchResult(diff, t, math.nan, 1.0 if same else 0.0, len(a), len(b))
    t = diff / math.sqrt(se2)
    df = (
        se2
        * se2
        / ((sa * sa / (len(a) - 1) if sa else 0.0) + (sb * sb / (len(b) - 1) if sb else 0.0))
    )
    return WelchResult(diff, t, df, t_two_sided_p(t, df), len(a), len(b))


def stars(p: float | None) -> str:
    """``***`` p < 0.001, ``**`` p < 0.01, ``*`` p < 0.05, else ``""``."""
    if p is None or math.isnan(p):
        return ""
    return "***" if p < 0.001 else "**" if p < 0.01 else "*" if p < 0.05 else ""
