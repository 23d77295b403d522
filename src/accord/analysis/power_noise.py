"""The noise floor of a run: how much a metric moves when the same scenario is played again
(an experiment's ``repeats: k``), and the smallest difference a run of this size can detect.

Games are grouped into cells: the same game, batch, pairing, scenario and seat assignment
(`accord.analysis.paired`); a cell with two or more games is a repeated scenario. Per metric:

* ``within_sd``: the pooled within-scenario standard deviation,
  ``sqrt(sum over cells of sum (x - cell mean)^2 / sum over cells of (n_cell - 1))``;
* ``flip_share``: the share of repeated scenarios whose value is not the same in every repeat
  (for a 0/1 outcome: the outcome flipped);
* ``sd``: the spread of the metric over all games (scenario and repeat noise together);
* ``mdd_paired``: the MDD (80% power, alpha 0.05, `accord.analysis.power`) of a paired
  comparison of two runs of this design (the same scenarios, each played k times and
  averaged), assuming the two sides differ by a constant: the per-scenario difference then
  has spread ``within_sd * sqrt(2 / k)``;
* ``mdd_unpaired``: the MDD of two independent runs of this many games per side.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from accord.analysis.paired import GameRecord
from accord.analysis.power import DEFAULT_ALPHA, DEFAULT_POWER, mdd


@dataclass(frozen=True)
class NoiseRow:
    """The noise floor of one metric of one game."""

    game_id: str
    metric: str
    games: int
    scenarios: int
    """Repeated scenarios (cells with at least two games)."""
    repeats: float
    """Mean games per repeated scenario (k)."""
    within_sd: float
    flip_share: float
    sd: float
    mdd_paired: float
    mdd_unpaired: float

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return dict(self.__dict__)


def cell(r: GameRecord) -> tuple[Any, ...]:
    """The repeat cell of a game: game, batch, pairing, scenario and seat assignment."""
    return (r.game_id, r.labels.get("batch"), r.labels.get("pairing"), r.scenario, r.seating)


def _sd(xs: Sequence[float]) -> float:
    if len(xs) < 2:
        return math.nan
    m = math.fsum(xs) / len(xs)
    return math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def noise_floor(
    records: Iterable[GameRecord],
    *,
    metrics: Sequence[str] | None = None,
    power: float = DEFAULT_POWER,
    alpha: float = DEFAULT_ALPHA,
) -> list[NoiseRow]:
    """One row per game and metric (module docstring)."""
    by_game: dict[str, list[GameRecord]] = defaultdict(list)
    for r in records:
        by_game[r.game_id].append(r)
    rows = []
    for game_id, recs in sorted(by_game.items()):
        names = sorted({k for r in recs for k in r.metrics})
        if metrics is not None:
            names = [m for m in metrics if m in names]
        for name in names:
            cells: dict[tuple[Any, ...], list[float]] = defaultdict(list)
            for r in recs:
                if name in r.metrics:
                    cells[cell(r)].append(r.metrics[name])
            values = [v for vs in cells.values() for v in vs]
            repeated = [vs for vs in cells.values() if len(vs) >= 2]
            dof = sum(len(vs) - 1 for vs in repeated)
            within = (
                math.sqrt(
                    math.fsum((v - math.fsum(vs) / len(vs)) ** 2 for vs in repeated for v in vs)
                    / dof
                )
                if dof
                else math.nan
            )
            k = sum(len(vs) for vs in repeated) / len(repeated) if repeated else math.nan
            flips = sum(1 for vs in repeated if max(vs) != min(vs))
            sd = _sd(values)
            paired_mdd = (
                mdd(within * math.sqrt(2.0 / k), len(repeated), power=power, alpha=alpha)
                if repeated
                else math.nan
            )
            rows.append(
                NoiseRow(
                    game_id=game_id,
                    metric=name,
                    games=len(values),
                    scenarios=len(repeated),
                    repeats=k,
                    within_sd=within,
                    flip_share=flips / len(repeated) if repeated else math.nan,
                    sd=sd,
                    mdd_paired=paired_mdd,
                    mdd_unpaired=mdd(sd, len(values), paired=False, power=power, alpha=alpha),
                )
            )
    return rows
