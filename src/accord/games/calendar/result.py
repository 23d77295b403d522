"""The `GameResult` of a calendar game: the §4.2 metrics (`metrics.py`), the privacy metrics
(`privacy.py`: VPS, §3.2; semantic leaks) and the setting split of the run summary's Table 2
layout (`metrics.by_setting`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from accord.core.game import GameResult
from accord.games.calendar import privacy
from accord.games.calendar.metrics import by_setting, game_metrics
from accord.games.calendar.scenario import Scenario

if TYPE_CHECKING:
    from accord.games.calendar.state import World


def game_result(scenario: Scenario, world: World) -> GameResult:
    """A finished game's `GameResult`: §4.2 metrics, privacy metrics, the setting split."""
    state = world.final_state()
    gm = game_metrics(scenario, world.final_schedule(), world.moves, world.messages)
    found = privacy.analyse(
        scenario, state["rounds"], state["moves"], state["messages"], state["reflections"]
    )
    extra, seats = privacy.privacy_metrics(found)
    metrics = gm.metrics | extra
    metrics |= by_setting(metrics, scenario.cost_setting)
    rows = [r | seats[int(r["seat"])] for r in gm.seat_rows]
    return GameResult(final_state=state, metrics=metrics, seat_rows=rows)
