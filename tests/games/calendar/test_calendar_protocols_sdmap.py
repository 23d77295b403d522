"""SD-MAP (CalBench App. D.2) on hand-built calendars: the walk over local candidates, binary
replies, the scheduling-difficulty bump and its repair, and the fall-back when no repair slot
exists."""

from __future__ import annotations

import asyncio
from pathlib import Path

from accord.agents.base import Agent
from accord.games.calendar import write_suite
from accord.games.calendar.layout import scenario_from_layout
from accord.games.calendar.protocols import SdMapAgent
from accord.games.calendar.protocols import messages as pm
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.schema import Trace

# Round 1 puts M1 {0, 1} on slot 0. Round 2 schedules M2 {0, 2, 3}; agents 2 and 3 can only
# use slot 0, which holds M1 on agent 0's calendar. Δ(M1) = 1 < Δ(M2) = 2, so agent 0 bumps M1.
BUMP = [". . .", ". . .", ". b1 b1", ". b1 b1"]
MEETINGS = [[0, 1], [0, 2, 3]]


def play(
    tmp_path: Path, layout: list[str], meetings: list[list[int]], agents: list[Agent] | None = None
) -> Trace:
    path = tmp_path / "task.jsonl"
    write_suite(path, [scenario_from_layout(layout, meetings)])
    spec = GameSpec(
        trace_id="sd",
        game="calendar-v2",
        seed=0,
        options={"suite": str(path)},
        agents=[AgentSpec(agent="sd-map")] * len(layout),
    )
    trace = asyncio.run(play_game(spec, agents))
    assert trace.status == "complete", trace.error
    return trace


def kinds(trace: Trace, round_no: int) -> list[tuple[int, str]]:
    out = []
    for m in trace.final_state["messages"]:
        if m["round"] == round_no:
            msg = pm.decode(m["content"])
            assert msg is not None
            out.append((m["sender"], msg.key[1]))
    return out


def test_walk_proposes_in_local_order_until_all_pending(tmp_path: Path) -> None:
    # Agent 0 cannot use slot 1; agent 1 cannot use slots 0 and 2: proposals 0, 2, 3.
    trace = play(tmp_path, [". b1 . .", "b1 . b1 ."], [[0, 1]])
    assert trace.final_state["schedule"] == [{"meeting_id": 1, "slot": 3}]
    proposed = [
        pm.decode(m["content"])
        for m in trace.final_state["messages"]
        if '"propose"' in m["content"]
    ]
    assert [p.slot for p in proposed if isinstance(p, pm.Propose)] == [0, 2, 3]
    replies = [
        pm.decode(m["content"]) for m in trace.final_state["messages"] if '"reply"' in m["content"]
    ]
    assert [r.status for r in replies if isinstance(r, pm.Reply)] == [
        "IMPOSSIBLE",
        "IMPOSSIBLE",
        "PENDING",
    ]


def test_difficulty_rule_and_sd_model_weights() -> None:
    unit = SdMapAgent()
    assert unit.difficulty((0, 1), seat=0) == 1.0
    assert unit.difficulty((0, 2, 3), seat=0) == 2.0
    heavy = SdMapAgent(sd_model={1: 5.0})
    # With agent 1 weighing 5, M1 {0, 1} is harder to move than M2 {0, 2, 3}: no bump.
    assert heavy.difficulty((0, 1), seat=0) > heavy.difficulty((0, 2, 3), seat=0)


def test_bump_and_its_repair(tmp_path: Path) -> None:
    trace = play(tmp_path, BUMP, MEETINGS)
    assert trace.final_state["schedule"] == [
        {"meeting_id": 1, "slot": 1},
        {"meeting_id": 2, "slot": 0},
    ]
    round2 = kinds(trace, 2)
    assert (0, "propose_reschedule") in round2 and (1, "reschedule_reply") in round2
    assert (0, "confirm_reschedule") in round2
    # Agent 0 coordinates M1 itself, so it sends no reschedule_request.
    assert all(k != "reschedule_request" for _, k in round2)
    moves = sorted(
        (m["agent"], m["phase"], m["kind"], m["from_slot"], m["to_slot"])
        for m in trace.final_state["moves"]
    )
    # The outsider moves its copy in VOLUNTARY, the participant in its DECISION batch.
    assert moves == [(0, "DECISION", "meeting", 0, 1), (1, "VOLUNTARY", "meeting", 0, 1)]
    assert trace.final_state["consistency_violations"] == 0


def test_bump_requested_by_responders(tmp_path: Path) -> None:
    # M1 {2, 3} sits on slot 0; M2 {0, 2, 3} needs slot 0 (agent 0 has only it free).
    # Both responders bump; agent 3 asks M1's initiator (agent 2) for the repair.
    trace = play(tmp_path, [". b1 b1", ". . .", ". . .", ". . ."], [[2, 3], [0, 2, 3]])
    assert trace.final_state["schedule"] == [
        {"meeting_id": 1, "slot": 1},
        {"meeting_id": 2, "slot": 0},
    ]
    round2 = kinds(trace, 2)
    assert (3, "reschedule_request") in round2
    assert (2, "propose_reschedule") in round2 and (2, "confirm_reschedule") in round2


def test_failed_repair_falls_back_to_the_pre_bump_slot(tmp_path: Path) -> None:
    # The outsider (agent 1) has no other slot for M1: fail_reschedule, M1 stays on slot 0,
    # agent 0 withdraws slot 0 and the walk goes on (slots 1 and 2 are blocked for 2 and 3).
    trace = play(tmp_path, [". . .", ". b1 b1", ". b1 b1", ". b1 b1"], MEETINGS)
    assert trace.final_state["schedule"] == [{"meeting_id": 1, "slot": 0}]
    round2 = kinds(trace, 2)
    assert (0, "fail_reschedule") in round2 and (0, "fail") in round2
    assert trace.final_state["moves"] == []


def test_no_bump_under_weights_that_forbid_it(tmp_path: Path) -> None:
    agents: list[Agent] = [SdMapAgent(sd_model={1: 5.0}) for _ in range(4)]
    trace = play(tmp_path, BUMP, MEETINGS, agents)
    assert trace.final_state["schedule"] == [{"meeting_id": 1, "slot": 0}]
    assert all(k != "propose_reschedule" for _, k in kinds(trace, 2))


def test_sd_messages_carry_no_costs(tmp_path: Path) -> None:
    trace = play(tmp_path, BUMP, MEETINGS)
    for m in trace.final_state["messages"]:
        msg = pm.decode(m["content"])
        assert msg is not None and msg.key[0] == "sd"
        assert not {"costs", "scores", "plans"} & set(msg.model_dump())


def test_paper_walk_proposes_every_slot_and_only_responders_evaluate(tmp_path: Path) -> None:
    # The layout of the walk test above. `sd-map-paper` (D.2 word for word) proposes slot 1
    # too, which the initiator cannot use; agent 1 answers PENDING, the initiator confirms it,
    # and the meeting is lost (the release's walk skips slot 1 and books slot 3).
    layout, meetings = [". b1 . .", "b1 . b1 ."], [[0, 1]]
    trace = play(tmp_path, layout, meetings, [SdMapAgent(walk="every") for _ in layout])
    proposed = [pm.decode(m["content"]) for m in trace.final_state["messages"]]
    assert [p.slot for p in proposed if isinstance(p, pm.Propose)] == [0, 1]
    assert [p.slot for p in proposed if isinstance(p, pm.Confirm)] == [1]
    assert trace.final_state["schedule"] == []
    assert trace.metrics["meetings_scheduled"] == 0


def test_paper_walk_is_registered_as_sd_map_paper() -> None:
    from accord.games.calendar.protocols import PROTOCOL_AGENTS

    agent = PROTOCOL_AGENTS["sd-map-paper"]()
    assert isinstance(agent, SdMapAgent) and agent.walk == "every"
    assert isinstance(PROTOCOL_AGENTS["sd-map"](), SdMapAgent)
    assert PROTOCOL_AGENTS["sd-map"]().walk == "own"  # type: ignore[attr-defined]
