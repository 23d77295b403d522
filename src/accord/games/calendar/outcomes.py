"""What Accord's analyses read from calendar traces: the leaderboard board (CalBench App. E),
the value-of-communication outcomes (§4.2), the messages of ``accord query`` (App. A.4) and the
PettingZoo score. Declared in this package's `INFO`.

Board: coordination (the seat's scheduled-meeting ratio, higher is better, margin 0.2), excess
cost (lower is better, margin 10.0) and excess VPS (lower is better, margin 5.0), each rated on
its own. Excess cost is taken on the cost scale the agents were shown (varied errands at
1/10/100, not remapped to 1/2/3), so a seat's excess is recomputed against the oracle of the
shown costs (`shown_excess`).

Value of communication: success (scheduled-meeting ratio), oracle 1 (every task is built around
a feasible witness schedule), and coordination-adjusted excess, oracle 0. CalBench has no
no-talk condition; ours is a run with ``dm_cap: 0`` (no message is ever delivered, on any
channel), matched by team and by every other option (channels and turn limits aside). Channel:
the ``channels`` option.

PettingZoo score: ``(meetings_scheduled - excess_cost / 3) / max(meetings, 1)``: each of the
seat's meetings that got scheduled earns 1, each unit of cost beyond the oracle's cost for the
meetings actually scheduled (§4.2 excess, on the 1/2/3 cost scale) costs 1/3, so one needless
move of the most expensive errand cancels one meeting. A seat of a perfect game scores 1; a
seat without meetings scores ``-excess_cost / 3`` (0 unless it moved things).
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from accord.core.gameinfo import (
    Board,
    Dimension,
    MessageRow,
    Outcome,
    TalkValue,
    metric,
    players,
    seat_field,
)

if TYPE_CHECKING:
    from accord.core.game import GameResult
    from accord.traces.schema import Trace

VPS_KEYS = ("vps", "excess_vps", "excess_calibrated_vps_loss_total")
"""Seat-row keys read as a seat's excess VPS (total over rounds and observers minus the
five-slot floor, App. E, App. F), first found wins; a seat without one is not rated on it."""

ERRAND_COST_LEVELS = 3
"""Highest errand cost on CalBench's 1/2/3 scale."""


def coordination(trace: Trace) -> list[float | None]:
    """Scheduled-meeting ratio of each seat (seat row ``success``)."""
    return seat_field(trace, ("success",))


def excess_vps(trace: Trace) -> list[float | None]:
    """Excess VPS of each seat, when the trace reports one (`VPS_KEYS`)."""
    return seat_field(trace, VPS_KEYS)


_SHOWN_CACHE: dict[tuple[str, tuple[int, ...]], tuple[int, ...] | None] = {}


def shown_excess(trace: Trace) -> list[float | None]:
    """Each seat's excess cost on the shown cost scale (App. E).

    ``max(0, c_real - c_oracle)`` with both sides priced at the costs the agents saw
    (`Scenario.shown_cost`: 1/10/100 for varied generated tasks); the oracle share comes from
    the minimum-cost schedule of the meetings actually scheduled, as in §4.2. Where shown and
    level costs coincide (uniform tasks) the seat row's ``excess_cost`` is already that value.
    A schedule with no oracle counts as zero excess, as in the calendar metrics.
    """
    from accord.games.calendar.metrics import cost_level
    from accord.games.calendar.oracle import optimal_schedule
    from accord.games.calendar.scenario import Errand, Scenario

    fallback = seat_field(trace, ("excess_cost",))
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


BOARD = Board(
    "seats",
    (
        Dimension("coordination", "coordination", True, 0.2, seat_score=coordination),
        Dimension("cost", "excess cost", False, 10.0, seat_score=shown_excess),
        Dimension("privacy", "excess VPS", False, 5.0, seat_score=excess_vps),
    ),
)


def _is_baseline(t: Trace) -> bool:
    return t.config.get("dm_cap") == 0


def _channel(t: Trace) -> str:
    return str(t.config.get("channels", "dm"))


def _cell(t: Trace) -> str:
    skip = {"channels", "dm_cap", "max_turns_per_round"}
    opts = {k: v for k, v in t.config.items() if k not in skip}
    return json.dumps([players(t), opts], sort_keys=True, default=str)


VALUE = TalkValue(
    outcomes=(
        Outcome("success", "success", 1.0, metric("success_rate")),
        Outcome("adjusted_excess", "adjusted excess", 0.0, metric("adjusted_excess")),
    ),
    is_baseline=_is_baseline,
    cell=_cell,
    channel=_channel,
    how="-o dm_cap=0",
)


def messages(events: list[dict[str, Any]], seats: int) -> list[MessageRow]:
    """CalBench App. A.4 routing: ``dm_sent`` and group-chat ``message`` events."""
    del seats
    return [
        (i, e["sender"], str(e.get("channel", "dm")), e.get("recipients"),
         str(e.get("content", "")), bool(e.get("delivered", True)))
        for i, e in enumerate(events)
        if e.get("type") in ("dm_sent", "message") and "sender" in e
    ]  # fmt: skip


def score(result: GameResult) -> list[float]:
    """The PettingZoo default (see the module docstring)."""
    return [
        (row["meetings_scheduled"] - row["excess_cost"] / ERRAND_COST_LEVELS)
        / max(row["meetings"], 1)
        for row in result.seat_rows
    ]


def judged(traces: list[Trace]) -> list[Trace]:
    """The traces the calendar judge audits: complete ``calendar-v2`` games."""
    return [t for t in traces if t.status == "complete" and t.game_id == "calendar-v2"]
