"""IMAP (CalBench App. D.1) on hand-built calendars where its choice is known: the cost vectors,
the argmin with ties by slot index, the six-message footprint and the refusal to bump."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from accord.games.calendar import write_suite
from accord.games.calendar.layout import scenario_from_layout
from accord.games.calendar.protocols import messages as pm
from accord.games.calendar.protocols.base import calendar_from_info
from accord.games.calendar.protocols.imap import cost_vector, pick_slot
from accord.games.calendar.rules import initial_calendars
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.schema import Trace

# Varied costs; slot 3 holds a blocked errand for agent 0 and slot 2 one for agent 1.
VARIED = [". 3 . b1 .", "1 . b1 . 2", "2 . 1 . ."]


def play(tmp_path: Path, layout: list[str], meetings: list[list[int]], **kw: Any) -> Trace:
    path = tmp_path / "task.jsonl"
    write_suite(path, [scenario_from_layout(layout, meetings, **kw)])
    spec = GameSpec(
        trace_id="imap",
        game="calendar-v2",
        seed=0,
        options={"suite": str(path)},
        agents=[AgentSpec(agent="imap")] * len(layout),
    )
    trace = asyncio.run(play_game(spec))
    assert trace.status == "complete", trace.error
    return trace


def test_cost_vector_marks_blocked_meetings_and_missing_landing_infeasible() -> None:
    sc = scenario_from_layout([". 3 . b1 .", "1 1 1 1 1"], [[0, 1]], cost_setting="varied")
    mine, full = initial_calendars(sc)
    assert cost_vector(mine, [0, 1, 2, 3, 4]) == [0, 3, 0, None, 0]
    # A full calendar has nowhere to put a displaced errand.
    assert cost_vector(full, [0, 1, 4]) == [None, None, None]
    # Out-of-range slots in a request are infeasible rather than an error.
    assert cost_vector(mine, [7]) == [None]


def test_pick_slot_is_the_argmin_with_ties_by_index() -> None:
    assert pick_slot([[0, 3, 0, None, 0], [1, 0, None, 0, 2], [2, 0, 1, 0, 0]]) == 4
    assert pick_slot([[1, 0, 1], [0, 1, 0]]) == 0
    assert pick_slot([[None, 1], [0, None]]) is None


def test_imap_schedules_the_argmin_with_six_messages(tmp_path: Path) -> None:
    trace = play(tmp_path, VARIED, [[0, 1, 2]], cost_setting="varied")
    # Totals per slot: 3, 3, -, -, 2 -> slot 4 although slots 0 and 1 come first.
    assert trace.final_state["schedule"] == [{"meeting_id": 1, "slot": 4}]
    msgs = trace.final_state["messages"]
    kinds = [(m["sender"], pm.decode(m["content"]).key[1]) for m in msgs]  # type: ignore[union-attr]
    assert sorted(kinds) == [
        (0, "cost_request"),
        (0, "cost_request"),
        (0, "decision"),
        (0, "decision"),
        (1, "costs"),
        (2, "costs"),
    ]
    costs = {m["sender"]: pm.decode(m["content"]) for m in msgs if '"costs"' in m["content"]}
    assert isinstance(costs[1], pm.Costs) and costs[1].costs == [1, 0, None, 0, 2]
    assert isinstance(costs[2], pm.Costs) and costs[2].costs == [2, 0, 1, 0, 0]
    # Agent 1 moved its cost-2 errand off slot 4 to its lowest free slot.
    moves = [
        (m["agent"], m["from_slot"], m["to_slot"], m["cost"]) for m in trace.final_state["moves"]
    ]
    assert moves == [(1, 4, 1, 2)]


def test_imap_never_bumps_a_prior_meeting(tmp_path: Path) -> None:
    # M1 {0, 1} lands on slot 0 (the only slot free for both); M2 {0, 2} then finds slot 0
    # held by M1 on agent 0's calendar and slot 1 blocked for agent 2: IMAP gives up.
    trace = play(tmp_path, [". b1", ". b1", ". b1"], [[0, 1], [0, 2]])
    rounds = trace.final_state["rounds"]
    assert rounds[0]["success"] and rounds[0]["slot"] == 0
    assert not rounds[1]["success"]
    round2 = [m for m in trace.final_state["messages"] if m["round"] == 2]
    assert all(pm.decode(m["content"]).key[1] != "decision" for m in round2)  # type: ignore[union-attr]


def test_calendar_from_info_round_trips_items() -> None:
    sc = scenario_from_layout([". 2 b1"], [[0]])
    (cal,) = initial_calendars(sc)
    from accord.games.calendar.rules import render_fields

    assert calendar_from_info([render_fields(i) for i in cal]) == cal
