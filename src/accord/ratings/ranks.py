"""Ranks on a leaderboard: MMR, ties shown as ties, and the uncertainty of each rank.

**MMR** (CalBench App. E: "a single number for matchmaking and headline ordering"; the paper
gives no formula, so this is our choice): the mean over the board's dimensions of OpenSkill's
conservative ordinal ``mu - 3 sigma``, over the dimensions the model is rated on. Every
dimension starts from the same prior (mu 25, sigma 25/3), so the ordinals share a scale; the
``- 3 sigma`` term keeps a model with few games from heading the board on luck.

**Ties.** Two models tie when they played the same games with the same raw values on every
dimension (so nothing in the data tells them apart), or when their ranking values (MMR, or
mu and sigma of the ``--sort`` dimension) agree to `TIE_TOL`. Tied models share a rank
(competition ranking: 1, 1, 3) and are listed in name order. Reference protocols tie when
their raw means agree on every dimension.

**Rank uncertainty.** Each model's skill is drawn `DRAWS` times from its posterior (for the
sort dimension ``N(mu, sigma^2)``; for MMR the mean of the dimensions' draws), the models are
ranked in every draw, and the 2.5% and 97.5% quantiles of each model's rank form its 95%
rank interval. It carries OpenSkill's own uncertainty (sigma), seeded so the same board gives
the same interval. Tied models get the union of their intervals.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from accord.ratings.leaderboard import Standing
    from accord.ratings.scores import Dimension

MMR_KEY = "mmr"
"""`--sort mmr` (the default order)."""
ORDINAL_SIGMAS = 3.0
TIE_TOL = 1e-9
DRAWS = 2000


def mmr(s: Standing, dims: Sequence[Dimension]) -> float | None:
    """Mean of ``mu - 3 sigma`` over the dimensions `s` is rated on (None if on none)."""
    rated = [d.key for d in dims if d.key in s.mu]
    if not rated:
        return None
    return sum(s.mu[k] - ORDINAL_SIGMAS * s.sigma[k] for k in rated) / len(rated)


def _same_data(a: Standing, b: Standing, dims: Sequence[Dimension]) -> bool:
    return a.trace_ids == b.trace_ids and all(
        sorted(a.values.get(d.key, [])) == sorted(b.values.get(d.key, [])) for d in dims
    )


def _close(x: Sequence[float], y: Sequence[float]) -> bool:
    pairs = zip(x, y, strict=True)
    return all(math.isclose(u, v, rel_tol=TIE_TOL, abs_tol=TIE_TOL) for u, v in pairs)


def competition_ranks(
    ordered: Sequence[Standing], tied: Callable[[Standing, Standing], bool]
) -> list[int]:
    """Ranks of a sorted list where a player tied with the one above shares its rank."""
    ranks: list[int] = []
    for i, s in enumerate(ordered):
        ranks.append(ranks[-1] if i and tied(ordered[i - 1], s) else i + 1)
    return ranks


def rank_models(
    standings: Sequence[Standing], dims: Sequence[Dimension], key: str
) -> list[Standing]:
    """Order models by `key` (``mmr`` or a dimension), set `rank`, `mmr` and the rank
    interval on each, ties sharing a rank (module docstring)."""
    for s in standings:
        s.mmr = mmr(s, dims)

    def value(s: Standing) -> tuple[float, float]:
        if key == MMR_KEY:
            return (-math.inf if s.mmr is None else s.mmr, 0.0)
        return (s.mu.get(key, -math.inf), -s.sigma.get(key, math.inf))

    def tied(a: Standing, b: Standing) -> bool:
        return _same_data(a, b, dims) or _close(value(a), value(b))

    # Sorted by value; within a tie (same data, or equal values) by name.
    ordered = sorted(standings, key=lambda s: (tuple(-v for v in value(s)), s.player))
    groups: list[list[Standing]] = []
    for s in ordered:
        if groups and tied(groups[-1][0], s):
            groups[-1].append(s)
        else:
            groups.append([s])
    ordered = [s for g in groups for s in sorted(g, key=lambda s: s.player)]
    for s, r in zip(ordered, competition_ranks(ordered, tied), strict=True):
        s.rank = r
    _intervals(ordered, dims, key, groups)
    return ordered


def _intervals(
    ordered: Sequence[Standing], dims: Sequence[Dimension], key: str, groups: list[list[Standing]]
) -> None:
    rng = np.random.default_rng(0)
    n = len(ordered)
    draws = np.full((DRAWS, n), -np.inf)
    for j, s in enumerate(ordered):
        keys = [d.key for d in dims if d.key in s.mu] if key == MMR_KEY else [key]
        keys = [k for k in keys if k in s.mu]
        if keys:
            mus = np.array([s.mu[k] for k in keys])
            sig = np.array([s.sigma[k] for k in keys])
            draws[:, j] = (mus + sig * rng.standard_normal((DRAWS, len(keys)))).mean(axis=1)
    # Rank 1 = best; unrated models (all -inf) share the bottom ranks.
    order = np.argsort(-draws, axis=1, kind="stable")
    ranks = np.empty_like(order)
    ranks[np.arange(DRAWS)[:, None], order] = np.arange(1, n + 1)
    lo = np.quantile(ranks, 0.025, axis=0, method="lower")
    hi = np.quantile(ranks, 0.975, axis=0, method="higher")
    for j, s in enumerate(ordered):
        s.rank_lo, s.rank_hi = int(lo[j]), int(hi[j])
    for g in groups:
        low, high = min(s.rank_lo for s in g), max(s.rank_hi for s in g)
        for s in g:
            s.rank_lo, s.rank_hi = min(low, s.rank), max(high, s.rank)


def rank_references(ordered: Sequence[Standing], raw_key: Callable[[Standing], Any]) -> None:
    """Ranks of reference protocols (already sorted): equal raw means share a rank."""
    ranks = competition_ranks(ordered, lambda a, b: raw_key(a)[:-1] == raw_key(b)[:-1])
    for s, r in zip(ordered, ranks, strict=True):
        s.rank = s.rank_lo = s.rank_hi = r
