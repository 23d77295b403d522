"""Anytime-valid confidence sequences for a paired mean difference, and the stopping rule of a
sequential comparison (`stop:` in an experiment, ``accord run ... --until-decided METRIC``).

A confidence sequence (CS) is a sequence of intervals C_1, C_2, ... that holds the true mean
at *every* time at once with probability at least 1 - alpha: P(for all t: mu in C_t) >= 1 -
alpha. So a comparison may be looked at after every block of games and stopped as soon as
it is decided, continued after a stop, or resumed later, without the error rate growing
(a fixed-n interval looked at after every block would exceed alpha).

**Which sequence.** Both from Waudby-Smith and Ramdas, "Estimating means of bounded random
variables by betting", JRSS B 86(1), 2024 (WSR), for observations in [0, 1]:

* the default, the **hedged-capital betting** sequence (WSR §4.2, Theorem 3): for each
  candidate mean m, two gamblers bet for and against it, ``K+-_t(m) = prod_i (1 +-
  lam+-_i(m) (x_i - m))``, with the predictable plug-in bets of eq. (13) truncated at
  ``c/m`` and ``c/(1 - m)`` (c = 3/4); m leaves the sequence once ``max(K+, K-) / 2 >=
  1/alpha`` (Ville's inequality bounds the chance that this ever happens to the true mean
  by alpha). Much tighter than the empirical-Bernstein sequence when the differences vary
  little next to their range (90 simulated differences with the calendar's SD 0.137:
  width 0.12 against 0.33);
* the **tuned** betting sequence (``stop: {effect: D, sd: S}``): the same two gamblers, but
  every bet is the constant that makes the capital grow fastest when the true difference is
  the planned D with spread S, ``lam = D / (S^2 + D^2)`` in the sequence's units (Kelly's
  criterion, as in WSR's growth-rate-adapted bets; Howard, Ramdas, McAuliffe and Sekhon,
  "Time-uniform, nonparametric, nonasymptotic confidence sequences", Ann. Statist. 49(2),
  2021, tune a boundary's parameter the same way, to where it should be tightest), truncated at
  ``0.95/m`` and ``0.95/(1 - m)``. A constant bet is predictable, so the guarantee is
  unchanged; the sequence decides sooner near D and is wider far from it (an effect much
  smaller than planned is detected later). ``bench/bench_sequential.py`` shows the saving;
* the **predictable plug-in empirical-Bernstein** sequence (WSR Theorem 2, eqs. (13)-(15)),
  closed form, kept for comparison (``method="eb"``):
  ``m_t = (1/2 + sum_{i<=t} x_i) / (t + 1)``, ``s2_t = (1/4 + sum (x_i - m_i)^2) / (t + 1)``,
  ``lam_t = min(sqrt(2 log(2/alpha) / (s2_{t-1} t log(1 + t))), 1/2)``,
  ``psi(l) = (-log(1 - l) - l) / 4``, ``v_t = 4 (x_t - m_{t-1})^2``, and
  ``C_t = sum lam_i x_i / sum lam_i +- (log(2/alpha) + sum v_i psi(lam_i)) / sum lam_i``.

All are intersected over time (the running intersection is valid too).

A paired difference ``d = b - a`` of a metric bounded in ``[lo, hi]`` lies in
``[lo - hi, hi - lo]`` and is mapped linearly onto [0, 1]; the metric's range must be stated
(``range: [lo, hi]``, default [0, 1]) and a value outside it is an error, not clipped.

**Stopping rule** (checked after each block): stop when the CS excludes 0 (``decided``: B
above or below A), when it lies inside ``[-margin, margin]`` (``equivalent``, only with a
margin), or when the maximum number of pairs is reached (``undecided``). The order of the
pairs is fixed by the experiment (block by block, scenario by scenario), so replaying or
resuming a run computes the same sequence. ``bench/bench_sequential.py`` simulates the
type-I error, the power and the games saved against a fixed-size design.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from accord.core.errors import ConfigError

MAX_BET = 0.5
"""Largest bet lambda of the empirical-Bernstein sequence (the paper's c = 1/2)."""
HEDGE_C = 0.75
"""The betting sequence's truncation: bets at most c/m (for) and c/(1 - m) (against)."""
TUNED_C = 0.95
"""The truncation of the tuned sequence's bets: at most this share of the largest bet that keeps
the capital non-negative (a bet of the full share loses everything on one extreme pair)."""
GRID = 4000
"""Candidate means of the betting sequence, spread evenly over [0, 1]."""


def tuned_bet(effect: float, sd: float) -> float:
    """The constant bet of the tuned sequence for a planned difference `effect` and spread `sd`
    of the differences (both in the [0, 1] units of the sequence): the bet that maximises the
    expected log-capital ``E log(1 + lam (x - m))`` to second order, ``effect / (sd^2 +
    effect^2)`` (Kelly's criterion: the growth rate of a betting test, WSR 2024)."""
    if not effect > 0 or not sd >= 0:
        raise ConfigError(
            f"a tuned sequence needs a planned difference above 0 and a spread of at least 0 "
            f"(got effect {effect:g}, sd {sd:g}): give stop: effect and sd from a pilot"
        )
    return effect / (sd * sd + effect * effect)


@dataclass(frozen=True)
class CsPoint:
    """The confidence sequence after `n` pairs, in the metric's own units."""

    n: int
    mean: float
    """The plain mean difference of the first n pairs."""
    low: float
    high: float

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {"n": self.n, "mean": self.mean, "low": self.low, "high": self.high}


def eb_sequence(xs: Sequence[float], *, alpha: float = 0.05) -> list[tuple[float, float]]:
    """The running-intersection PrPl-EB confidence sequence of the mean of `xs` (each in
    [0, 1]): one ``(low, high)`` per prefix (module docstring)."""
    if not 0.0 < alpha < 1.0:
        raise ValueError("alpha must lie strictly between 0 and 1")
    log_term = math.log(2.0 / alpha)
    mean_prev, var_prev = 0.5, 0.25  # m_0 and s2_0 of the prior point
    total_x = sq = 0.0
    sum_lam = sum_lam_x = sum_pen = 0.0
    low, high = 0.0, 1.0
    out: list[tuple[float, float]] = []
    for t, x in enumerate(xs, start=1):
        if not 0.0 <= x <= 1.0 or math.isnan(x):
            raise ValueError(f"observation {x} is outside [0, 1]")
        lam = min(math.sqrt(2.0 * log_term / (var_prev * t * math.log(1.0 + t))), MAX_BET)
        psi = (-math.log(1.0 - lam) - lam) / 4.0
        sum_pen += 4.0 * (x - mean_prev) ** 2 * psi
        sum_lam += lam
        sum_lam_x += lam * x
        center = sum_lam_x / sum_lam
        width = (log_term + sum_pen) / sum_lam
        low, high = max(low, center - width), min(high, center + width)
        total_x += x
        mean_t = (0.5 + total_x) / (t + 1)
        sq += (x - mean_t) ** 2
        mean_prev, var_prev = mean_t, (0.25 + sq) / (t + 1)
        out.append((low, high))
    return out


def _bets(x: np.ndarray, alpha: float) -> np.ndarray:
    """The predictable plug-in bets lam_t of WSR eq. (13), before truncation, for each row
    of `x` (rows: sequences; columns: time)."""
    t = np.arange(1, x.shape[1] + 1, dtype=float)
    mean = (0.5 + np.cumsum(x, axis=1)) / (t + 1.0)
    var = (0.25 + np.cumsum((x - mean) ** 2, axis=1)) / (t + 1.0)
    var_prev = np.concatenate([np.full((x.shape[0], 1), 0.25), var[:, :-1]], axis=1)
    bets: np.ndarray = np.sqrt(2.0 * math.log(2.0 / alpha) / (var_prev * t * np.log1p(t)))
    return bets


def betting_bounds(
    x: np.ndarray, *, alpha: float = 0.05, grid: int = GRID, bet: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """`betting_sequence` of every row of `x` at once: ``(low, high)``, each shaped like `x`.
    With `bet` (`tuned_bet`), every bet is that constant, truncated at ``TUNED_C/m`` and
    ``TUNED_C/(1 - m)``; without, the predictable plug-in bets truncated at ``HEDGE_C``."""
    if not 0.0 < alpha < 1.0:
        raise ValueError("alpha must lie strictly between 0 and 1")
    if x.size and (np.isnan(x).any() or x.min() < 0.0 or x.max() > 1.0):
        raise ValueError("observations must lie in [0, 1]")
    rows, steps = x.shape
    step = 1.0 / grid
    m = (np.arange(grid) + 0.5) * step
    c = HEDGE_C if bet is None else TUNED_C
    cap_up, cap_down = c / m, c / (1.0 - m)
    lam = _bets(x, alpha) if bet is None and steps else np.zeros((rows, 0))
    # Constant bets: truncated once for every candidate, shared by all rows.
    up_bet, down_bet = np.minimum(bet or 0.0, cap_up), np.minimum(bet or 0.0, cap_down)
    log_up = np.zeros((rows, grid))
    log_down = np.zeros((rows, grid))
    alive = np.ones((rows, grid), dtype=bool)
    threshold = math.log(2.0 / alpha)  # max(K+, K-) / 2 >= 1/alpha
    low, high = np.zeros((rows, steps)), np.ones((rows, steps))
    for t in range(steps):
        gap = x[:, t, None] - m
        if bet is None:
            lt = lam[:, t, None]
            up_bet, down_bet = np.minimum(lt, cap_up), np.minimum(lt, cap_down)
        log_up += np.log1p(up_bet * gap)
        log_down += np.log1p(-down_bet * gap)
        worst = np.maximum(log_up, log_down)
        alive &= worst < threshold
        some = alive.any(axis=1)
        first = np.argmax(alive, axis=1)
        last = grid - 1 - np.argmax(alive[:, ::-1], axis=1)
        if not some.all():
            # Every candidate rejected (a chance below alpha): keep the last point standing.
            best = np.argmin(worst, axis=1)
            first, last = np.where(some, first, best), np.where(some, last, best)
        low[:, t] = np.maximum(0.0, m[first] - step)
        high[:, t] = np.minimum(1.0, m[last] + step)
    return low, high


def betting_sequence(
    xs: Sequence[float], *, alpha: float = 0.05, grid: int = GRID, bet: float | None = None
) -> list[tuple[float, float]]:
    """The hedged-capital betting confidence sequence of the mean of `xs` (each in [0, 1]),
    WSR 2024 §4.2 (Theorem 3 with the predictable plug-in bets of eq. (13) truncated at
    ``c/m`` and ``c/(1 - m)``, c = `HEDGE_C`, theta = 1/2): a candidate mean m leaves the
    sequence, for good, once ``max(K+_t(m), K-_t(m)) / 2 >= 1/alpha`` where
    ``K+-_t(m) = prod_i (1 +- lam+-_i(m) (x_i - m))``. Computed on `grid` candidates; each
    interval is widened by one grid step so that no mean between two candidates is lost.
    With `bet`, the tuned sequence: every bet that constant (`betting_bounds`)."""
    x = np.asarray([list(xs)], dtype=float).reshape(1, -1)
    low, high = betting_bounds(x, alpha=alpha, grid=grid, bet=bet)
    return [(float(a), float(b)) for a, b in zip(low[0], high[0], strict=True)]


def difference_sequence(
    diffs: Sequence[float],
    *,
    lo: float = 0.0,
    hi: float = 1.0,
    alpha: float = 0.05,
    method: str = "betting",
    effect: float | None = None,
    sd: float | None = None,
) -> list[CsPoint]:
    """The CS of the mean paired difference of a metric bounded in ``[lo, hi]``: the
    betting sequence (default), tuned to a planned difference `effect` (metric units) when
    given, with `sd` the planned spread of the differences (default ``hi - lo``, the most
    a difference can spread); or ``method="eb"``, the empirical-Bernstein one."""
    if not hi > lo:
        raise ConfigError(f"a metric's range needs low < high, not [{lo}, {hi}]")
    span = 2.0 * (hi - lo)
    bet = None
    if effect is not None:
        bet = tuned_bet(abs(effect) / span, (hi - lo if sd is None else sd) / span)
    xs = []
    for d in diffs:
        if not (lo - hi) - 1e-12 <= d <= (hi - lo) + 1e-12:
            raise ConfigError(
                f"a paired difference of {d:g} is outside what a metric in [{lo:g}, {hi:g}] "
                "allows: state the metric's true range (range: [low, high] under stop:)"
            )
        xs.append(min(1.0, max(0.0, (d - (lo - hi)) / span)))
    points = []
    running = 0.0
    if method == "betting":
        seq = betting_sequence(xs, alpha=alpha, bet=bet)
    else:
        seq = eb_sequence(xs, alpha=alpha)
    for n, (a, b) in enumerate(seq, start=1):
        running += diffs[n - 1]
        low, high = (lo - hi) + span * float(a), (lo - hi) + span * float(b)
        points.append(CsPoint(n, running / n, low, high))
    return points


@dataclass
class Decision:
    """Where a sequential comparison stands after the pairs seen so far."""

    status: str
    """``decided`` (the CS excludes 0), ``equivalent`` (inside the margin), ``undecided``
    (the maximum reached without either) or ``continue`` (play another block)."""
    reason: str
    pairs: int
    points: list[CsPoint] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "status": self.status,
            "reason": self.reason,
            "pairs": self.pairs,
            "sequence": [p.as_dict() for p in self.points],
        }


def decide(
    points: Sequence[CsPoint],
    *,
    max_pairs: int,
    margin: float | None = None,
    checks: Sequence[int] | None = None,
) -> Decision:
    """The stopping rule applied at the block ends `checks` (default: every pair count)."""
    looks = set(checks) if checks is not None else {p.n for p in points}
    for p in points:
        if p.n not in looks and p.n < max_pairs:
            continue
        if p.low > 0 or p.high < 0:
            side = "above" if p.low > 0 else "below"
            why = (
                f"after {p.n} pairs the sequence [{p.low:.4g}, {p.high:.4g}] excludes 0: "
                f"B is {side} A"
            )
            return Decision("decided", why, p.n, list(points[: p.n]))
        if margin is not None and -margin <= p.low and p.high <= margin:
            why = (
                f"after {p.n} pairs the sequence [{p.low:.4g}, {p.high:.4g}] lies inside the "
                f"equivalence margin +-{margin:g}"
            )
            return Decision("equivalent", why, p.n, list(points[: p.n]))
        if p.n >= max_pairs:
            why = (
                f"the maximum of {max_pairs} pairs was reached with the sequence "
                f"[{p.low:.4g}, {p.high:.4g}] still holding 0"
            )
            return Decision("undecided", why, p.n, list(points[:max_pairs]))
    n = points[-1].n if points else 0
    return Decision("continue", f"{n} pairs so far: not decided yet", n, list(points))
