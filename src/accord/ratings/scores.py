"""What each game's leaderboard rates: dimensions, their direction and margin, and the score of
a seat (free-for-all games) or of a whole game (team games) on each dimension.

CalBench App. E rates calendar models on three dimensions, each on its own: coordination (the
seat's scheduled-meeting ratio, higher is better, margin 0.2), excess cost (lower is better,
margin 10.0) and excess VPS (lower is better, margin 5.0). Excess cost is taken on the cost
scale the agents were shown (varied errands at 1/10/100, not remapped to 1/2/3), so a seat's
excess is recomputed against the oracle of the shown costs (`shown_excess`).

Negotiation (seed 004 Table 3: efficiency, optimum rate, overdraw rate) and sorting (MAS-Bench
§3.4: SR and TE) have no per-seat outcome: both seats of a dyad, and every agent of a sorting
team, share one result. They are rated as team games (see `leaderboard`). Their margins follow
App. E's rule of thumb (calibrated to the per-game spread of the score): 0.2 for every rate in
[0, 1], as for coordination, and 1.0 for TE, whose per-model means in MAS-Bench Table 1 spread
over a few units.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from accord.traces.schema import Trace

SeatScore = Callable[[Trace], list[float | None]]
"""Per-seat scores of one trace, by seat index (None: not defined for that seat)."""
GameScore = Callable[[Trace], float | None]
"""The one score a whole game earned (None: not defined)."""


@dataclass(frozen=True)
class Dimension:
    """One rated dimension of a game's leaderboard."""

    key: str
    label: str
    higher_is_better: bool
    margin: float
    seat_score: SeatScore | None = None
    game_score: GameScore | None = None


@dataclass(frozen=True)
class Board:
    """How a game is rated: free-for-all over seats (`seats`) or games as teams (`teams`)."""

    game: str
    mode: Literal["seats", "teams"]
    dimensions: tuple[Dimension, ...]


def _metric(key: str) -> GameScore:
    def score(trace: Trace) -> float | None:
        v = trace.metrics.get(key)
        return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None

    return score


# -- calendar (CalBench App. E) ------------------------------------------------------------

VPS_KEYS = ("vps", "excess_vps", "excess_calibrated_vps_loss_total")
"""Seat-row keys read as a seat's excess VPS (total over rounds and observers minus the
five-slot floor, App. E, App. F), first found wins; a seat without one is not rated on it."""


def _seat_field(trace: Trace, keys: tuple[str, ...]) -> list[float | None]:
    by_seat = {r.get("seat"): r for r in trace.seat_rows}
    out: list[float | None] = []
    for seat in trace.seats:
        row = by_seat.get(seat.seat, {})
        value = next((row[k] for k in keys if row.get(k) is not None), None)
        out.append(float(value) if isinstance(value, int | float) else None)
    return out


def coordination(trace: Trace) -> list[float | None]:
    """Scheduled-meeting ratio of each seat (seat row ``success``)."""
    return _seat_field(trace, ("success",))


def excess_vps(trace: Trace) -> list[float | None]:
    """Excess VPS of each seat, when the trace reports one (`VPS_KEYS`)."""
    return _seat_field(trace, VPS_KEYS)


_SHOWN_CACHE: dict[tuple[str, tuple[int, ...]], tuple[int, ...] | None] = {}


def shown_excess(trace: Trace) -> list[float | None]:
    """Each seat's excess cost on the shown cost scale (App. E).

    ``max(0, c_real - c_oracle)`` with both sides priced at the costs the agents saw
    (`Scenario.shown_cost`: 1/10/100 for varied generated tasks); the oracle share comes from
    the minimum-cost schedule of the meetings actually scheduled, as in §4.2. Where shown and
    level costs coincide (uniform tasks) the seat row's ``excess_cost`` is already that value.
    A schedule with no oracle counts as zero excess, as in the calendar metrics.
    """
    from accord.games.calendar import Errand, Scenario, optimal_schedule
    from accord.games.calendar.metrics import cost_level

    fallback = _seat_field(trace, ("excess_cost",))
    if not trace.scenario or "calendars" not in trace.scenario:
        return fallback
    sc = Scenario.model_validate(trace.scenario)
    errands = [e for cal in sc.calendars for e in cal if e is not None]
    if all(sc.shown_cost(e.cost) == cost_level(sc, e.cost) for e in errands):
        return fallback
    meeting_cost = {m.id: m.cost for m in sc.meetings}
    shown_cost = {e.id: sc.shown_cost(e.cost) for e in errands}
    real = [0] * sc.num_agents
    for mv in trace.final_state.get("moves", []):
        item = int(mv["item_id"])
        real[int(mv["agent"])] += (
            meeting_cost[item] if mv["kind"] == "meeting" else shown_cost.get(item, int(mv["cost"]))
        )
    scheduled = tuple(sorted(int(m["meeting_id"]) for m in trace.final_state.get("schedule", [])))
    digest = hashlib.sha256(json.dumps(trace.scenario, sort_keys=True).encode()).hexdigest()
    key = (digest, scheduled)
    if key not in _SHOWN_CACHE:
        calendars = tuple(
            tuple(
                None
                if e is None
                else Errand(id=e.id, cost=shown_cost[e.id], blocked=e.blocked, label=e.label)
                for e in cal
            )
            for cal in sc.calendars
        )
        shown = sc.model_copy(update={"calendars": calendars})
        best = optimal_schedule(shown, scheduled)
        _SHOWN_CACHE[key] = None if best is None else tuple(best.agent_costs)
    oracle = _SHOWN_CACHE[key]
    if oracle is None:
        return [0.0] * sc.num_agents
    return [float(max(0, r - o)) for r, o in zip(real, oracle, strict=True)]


# -- sorting (MAS-Bench §3.4) --------------------------------------------------------------


def token_efficiency(trace: Trace) -> float | None:
    """TE (eq. 6) over model-reported tokens when there are any, else the game's text estimate.

    The sorting report's own TE (`accord.games.sorting.usage.trace_metrics`): the phase the
    game's ``metrics_phase`` names (default: the final phase), reasoning tokens included.
    """
    from accord.games.sorting.usage import trace_metrics

    value = trace_metrics(trace).get("te")
    return float(value) if isinstance(value, int | float) else None


BOARDS: dict[str, Board] = {
    "calendar": Board(
        "calendar",
        "seats",
        (
            Dimension("coordination", "coordination", True, 0.2, seat_score=coordination),
            Dimension("cost", "excess cost", False, 10.0, seat_score=shown_excess),
            Dimension("privacy", "excess VPS", False, 5.0, seat_score=excess_vps),
        ),
    ),
    "negotiation": Board(
        "negotiation",
        "teams",
        (
            Dimension("efficiency", "efficiency", True, 0.2, game_score=_metric("efficiency")),
            Dimension("optimum", "optimum", True, 0.2, game_score=_metric("optimum_rate")),
            Dimension("overdraw", "overdraw", False, 0.2, game_score=_metric("overdraw_rate")),
        ),
    ),
    "sorting": Board(
        "sorting",
        "teams",
        (
            Dimension("sr", "SR", True, 0.2, game_score=_metric("sr")),
            Dimension("te", "TE", True, 1.0, game_score=token_efficiency),
        ),
    ),
}
"""The leaderboard of each game, by short game name."""


# -- any other game (e.g. from another package) ----------------------------------------------

SCORE_KEY = "score"
"""The seat-row column rated for a game without a board of its own: the seat's final score,
higher is better (the same column the PettingZoo adapter pays by default)."""


def seat_row_score(trace: Trace) -> list[float | None]:
    """Each seat's ``score`` seat-row column (rows without a ``seat`` key are in seat order)."""
    by_seat = {r.get("seat", i): r for i, r in enumerate(trace.seat_rows)}
    out: list[float | None] = []
    for seat in trace.seats:
        value = by_seat.get(seat.seat, {}).get(SCORE_KEY)
        rated = isinstance(value, int | float) and not isinstance(value, bool)
        out.append(float(value) if rated and value is not None else None)
    return out


SCORE_DIMENSION = Dimension(SCORE_KEY, "score", True, 0.2, seat_score=seat_row_score)
"""Margin 0.2 as for every rate in [0, 1] above; a game scoring on another scale declares its
own board."""


def board_for(game: str, traces: Sequence[Trace]) -> Board | None:
    """`BOARDS[game]`; for any other game whose seat rows have a ``score``, a free-for-all
    board on it; else None (the game is not rated)."""
    if game in BOARDS:
        return BOARDS[game]
    if any(SCORE_KEY in row for t in traces for row in t.seat_rows):
        return Board(game, "seats", (SCORE_DIMENSION,))
    return None
