"""The calendar engine (CalBench Algorithm 1): phases, routing, activation, retries, resolution,
driven by hand-built actions and by the mock model through `LLMAgent` (the conformance suite runs
over every game in tests/test_conformance.py)."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from accord import testing
from accord.agents.llm import LLMAgent
from accord.core.errors import ActionError, ConfigError
from accord.core.registry import make
from accord.games.calendar import CalendarGame, write_suite
from accord.games.calendar.layout import scenario_from_layout
from accord.models.mock import MockModel
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec

# Three agents, three slots. M1 = {0, 2}, M2 = {0, 1}; agent 0 has an errand in slot 2.
LAYOUT = [". . 1", ". . .", ". . ."]
MEETINGS = [[0, 2], [0, 1]]


def task_file(tmp_path: Path, layout: list[str], meetings: list[list[int]]) -> str:
    path = tmp_path / "task.jsonl"
    write_suite(path, [scenario_from_layout(layout, meetings)])
    return str(path)


def new_game(
    tmp_path: Path, layout: list[str] = LAYOUT, meetings: Any = MEETINGS, **opts: Any
) -> CalendarGame:
    g = make("calendar", {"suite": task_file(tmp_path, layout, meetings), **opts})
    assert isinstance(g, CalendarGame)
    g.reset(0)
    return g


def act(g: CalendarGame, seat: int, *calls: dict[str, Any]) -> None:
    g.submit(seat, {"thinking": "", "actions": list(calls)})


def who(g: CalendarGame) -> list[tuple[int, str]]:
    return [(r.seat, r.spec.kind) for r in g.pending()]


def obs(g: CalendarGame, seat: int) -> str:
    return next(r.observation for r in g.pending() if r.seat == seat)


def dm(to: int, text: str = "hello") -> dict[str, Any]:
    return {"type": "dm", "to": to, "content": text}


def sched(meeting: int, slot: int) -> dict[str, Any]:
    return {"type": "schedule", "meeting_id": meeting, "slot": slot}


def move(item: int, frm: int, to: int) -> dict[str, Any]:
    return {
        "type": "reschedule",
        "item_id": item,
        "from_slot": frm,
        "to_slot": to,
        "justification": "room",
    }


def events(g: CalendarGame) -> list[dict[str, Any]]:
    return g.drain_events()


def play_round_one(g: CalendarGame) -> None:
    """M1 at slot 0 for agents 0 and 2, without talk."""
    act(g, 0)
    act(g, 2)
    assert who(g) == [(0, "decide"), (2, "decide")]
    act(g, 0, sched(1, 0))
    act(g, 2, sched(1, 0))


def test_default_game_is_small_and_plays_with_fallbacks() -> None:
    g = make("calendar")
    assert g.num_seats == 3
    _, result = testing.drive_with_fallbacks(g, 5)
    assert result.metrics["meetings_scheduled"] == 0 and result.metrics["success_rate"] == 0.0
    assert len(result.seat_rows) == 3


def test_round_start_goes_to_the_first_speaker(tmp_path: Path) -> None:
    g = new_game(tmp_path)
    assert who(g) == [(0, "talk")]
    text = obs(g, 0)
    assert text.startswith("=== ROUND 1 START ===")
    assert "Meeting M1: participants [0, 2], duration 1 slot" in text
    assert "Slot 0: [FREE]\nSlot 1: [FREE]\nSlot 2: Errand #1 (cost=1)" in text
    assert "CHEAP_TALK turn 1 of 15; 14 turn(s) remain after this one." in text
    kinds = [e["type"] for e in events(g)]
    assert kinds[:5] == [
        "game_start",
        "agent_registered",
        "agent_registered",
        "agent_registered",
        "round_start",
    ]
    assert kinds[-1] == "turn_start"


def test_quiet_sweep_ends_talk_and_decisions_are_simultaneous(tmp_path: Path) -> None:
    g = new_game(tmp_path)
    act(g, 0)
    assert who(g) == [(2, "talk")]
    act(g, 2)
    assert who(g) == [(0, "decide"), (2, "decide")]
    assert "=== ROUND 1 - DECISION ===" in obs(g, 2)


def test_dm_is_delivered_at_the_recipients_next_turn(tmp_path: Path) -> None:
    g = new_game(tmp_path)
    act(g, 0, dm(2, "slot 0?"))
    act(g, 2, dm(0, "yes, slot 0"))
    text = obs(g, 0)  # sweep 2 opens with agent 0
    assert "Incoming Message [1] From Agent 2 (direct message, meeting M1): yes, slot 0" in text
    assert "CHEAP_TALK turn 2 of 15" in text
    act(g, 0)
    assert "No new messages in your inbox." in obs(g, 2)
    act(g, 2)
    assert who(g) == [(0, "decide"), (2, "decide")]
    sent = [e for e in events(g) if e["type"] == "dm_sent"]
    assert [(e["sender"], e["to"], e["chars"]) for e in sent] == [(0, 2, 7), (2, 0, 11)]


def test_talk_stops_at_the_turn_budget_with_a_final_turn_warning(tmp_path: Path) -> None:
    g = new_game(tmp_path, max_turns_per_round=2)
    act(g, 0, dm(2))
    act(g, 2, dm(0))
    assert "last CHEAP_TALK turn" in obs(g, 0)
    act(g, 0, dm(2))
    act(g, 2, dm(0, "late"))
    assert who(g) == [(0, "decide"), (2, "decide")]
    # The message sent in the last sweep is shown with the decision prompt.
    assert "Messages that arrived after your last turn" in obs(g, 0) and "late" in obs(g, 0)


def test_dm_activates_an_outsider_who_then_moves_in_voluntary(tmp_path: Path) -> None:
    g = new_game(tmp_path)
    play_round_one(g)
    # Round 2: M2 = {0, 1}; speaker order rotates to [1, 0].
    assert who(g) == [(1, "talk")]
    assert "Round 1 result" not in obs(g, 1)
    act(g, 1)
    assert "Round 1 result: meeting M1 is scheduled at slot 0." in obs(g, 0)
    act(g, 0, dm(2, "could you move M1 to slot 1?"))
    assert who(g) == [(2, "talk")]  # queued in the same sweep, after the participants
    text = obs(g, 2)
    assert "You are not a participant" in text and "Meeting M2: participants [0, 1]" in text
    assert "Private context" not in text.split("Your calendar")[0]  # M2's context is not 2's
    act(g, 2, dm(0, "ok"))
    act(g, 1)
    act(g, 0)
    assert who(g) == [(2, "voluntary")]
    assert "=== ROUND 2 - VOLUNTARY ===" in obs(g, 2)
    act(g, 2, move(1, 0, 1))
    assert who(g) == [(0, "decide"), (1, "decide")]
    act(g, 0, move(1, 0, 1), sched(2, 0))
    act(g, 1, sched(2, 0))
    assert g.done()
    result = g.result()
    assert result.final_state["schedule"] == [
        {"meeting_id": 1, "slot": 1},
        {"meeting_id": 2, "slot": 0},
    ]
    assert [r["real_cost"] for r in result.seat_rows] == [
        1,
        0,
        1,
    ]  # a moved meeting costs 1 per calendar
    assert result.final_state["rounds"][1]["activated"] == [2]


def test_a_one_sided_meeting_move_fails_the_round_and_is_undone(tmp_path: Path) -> None:
    g = new_game(tmp_path, failed_round="rollback")
    play_round_one(g)
    events(g)
    act(g, 1)
    act(g, 0)
    act(g, 0, move(1, 0, 1), sched(2, 0))
    act(g, 1, sched(2, 0))
    evs = events(g)
    (res,) = [e for e in evs if e["type"] == "resolution"]
    assert (
        not res["success"] and res["reason"] == "earlier meeting(s) ['M1'] lost their common slot"
    )
    assert res["rolled_back"] and not [e for e in evs if e["type"] == "batch_applied"]
    result = g.result()
    assert result.final_state["schedule"] == [{"meeting_id": 1, "slot": 0}]
    assert result.final_state["total_cost"] == 0 and result.metrics["meetings_scheduled"] == 1


def test_failed_round_keeps_valid_batches_by_default(tmp_path: Path) -> None:
    # CalBench release: every participant had a valid batch, so they stay committed and
    # charged even though the round failed (here M1 ends up split: not scheduled at the end).
    g = new_game(tmp_path)
    assert g.config.failed_round == "keep"
    play_round_one(g)
    events(g)
    act(g, 1)
    act(g, 0)
    act(g, 0, move(1, 0, 1), sched(2, 0))
    act(g, 1, sched(2, 0))
    evs = events(g)
    (res,) = [e for e in evs if e["type"] == "resolution"]
    assert not res["success"] and not res["rolled_back"]
    assert [e["agent"] for e in evs if e["type"] == "batch_applied"] == [0, 1]
    result = g.result()
    assert result.final_state["schedule"] == [] and result.final_state["total_cost"] == 1
    assert result.metrics["meetings_scheduled"] == 0


def test_failed_round_with_different_slots(tmp_path: Path) -> None:
    for policy, applied, cost in (("keep", [0, 2], 1), ("rollback", [], 0)):
        g = new_game(tmp_path, failed_round=policy)
        act(g, 0)
        act(g, 2)
        act(g, 0, move(1, 2, 1), sched(1, 2))  # agent 0 frees slot 2 (its errand, cost 1)
        act(g, 2, sched(1, 0))
        evs = events(g)
        (res,) = [e for e in evs if e["type"] == "resolution"]
        assert res["reason"] == "the participants scheduled it in different slots"
        decision = [e["agent"] for e in evs if e["type"] == "batch_applied"]
        assert decision == applied and res["rolled_back"] == (policy == "rollback")
        assert sum(m.cost for m in g._world.moves) == cost


def test_keep_still_rolls_back_when_a_participant_has_no_valid_batch(tmp_path: Path) -> None:
    g = new_game(tmp_path, decision_retries=0)
    act(g, 0)
    act(g, 2)
    act(g, 0, move(1, 2, 1), sched(1, 2))
    act(g, 2, sched(1, 7))  # rule 1, no retries left
    evs = events(g)
    (res,) = [e for e in evs if e["type"] == "resolution"]
    assert res["rolled_back"] and not [e for e in evs if e["type"] == "batch_applied"]
    assert g._world.moves == []


def test_rejected_batch_is_retried_with_its_conflict_then_discarded(tmp_path: Path) -> None:
    g = new_game(tmp_path, decision_retries=1)
    act(g, 0)
    act(g, 2)
    act(g, 0, sched(1, 2))  # slot 2 holds agent 0's errand
    assert who(g) == [(0, "decide"), (2, "decide")]
    retry = obs(g, 0)
    assert "batch rejected (attempt 2 of 2)" in retry
    assert "schedule slot 2 is not free after the reschedules: it holds errand #1" in retry
    act(g, 0)  # an empty batch: rule 6
    act(g, 2, sched(1, 2))
    evs = events(g)
    rejected = [e["conflict"] for e in evs if e["type"] == "batch_rejected"]
    assert rejected[1] == "Expected exactly 1 schedule action, got 0"
    assert [e["type"] for e in evs if e["type"] == "batch_discarded"] == ["batch_discarded"]
    (res,) = [e for e in evs if e["type"] == "resolution"]
    assert res["reason"] == "agent(s) [0] submitted no valid batch" and res["chosen"] == [None, 2]


def test_channels_and_activation_rules(tmp_path: Path) -> None:
    g = new_game(tmp_path, channels="participant_groupchat")
    with pytest.raises(ActionError, match="not available in this game"):
        g.pending()[0].spec.parse(json.dumps({"thinking": "", "actions": [dm(1)]}))
    act(g, 0, {"type": "participant_groupchat", "content": "slot 1?"})
    assert who(g) == [(2, "talk")]  # agent 1 is not a participant and is not woken
    assert "(participant group chat, meeting M1): slot 1?" in obs(g, 2)
    g = new_game(tmp_path, channels="all_groupchat")
    act(g, 0, {"type": "all_groupchat", "content": "anyone free at 1?"})
    act(g, 2)
    assert who(g) == [(1, "talk")]  # all-agent group chat wakes the outsider
    g = new_game(tmp_path, channels="all")
    act(g, 0, dm(1))
    act(g, 2)
    assert who(g) == [(1, "talk")]
    with pytest.raises(ActionError, match="only the meeting's participants"):
        g.pending()[0].spec.parse(_env({"type": "participant_groupchat", "content": "x"}))


def test_dm_cap_drops_messages_beyond_the_cap(tmp_path: Path) -> None:
    g = new_game(tmp_path, dm_cap=1)
    act(g, 0, dm(2, "one"), dm(2, "two"))
    evs = events(g)
    assert [e["type"] for e in evs if e["type"] in {"dm_sent", "message_dropped"}] == [
        "dm_sent",
        "message_dropped",
    ]
    act(g, 2)
    assert "message limit (1) is used up" in obs(g, 0)


def test_speaker_order_options(tmp_path: Path) -> None:
    g = new_game(tmp_path, speaker_order="ascending")
    play_round_one(g)
    assert who(g) == [(0, "talk")]
    with pytest.raises(ConfigError, match="only apply without 'suite'"):
        make("calendar", {"suite": "canonical", "num_slots": 5})
    with pytest.raises(ConfigError, match="mixes tasks"):
        make("calendar", {"suite": "calbench-uniform"})
    assert make("calendar", {"suite": "calbench-uniform", "num_agents": 2}).num_seats == 2


def test_unbounded_talk_and_random_speaker_order(tmp_path: Path) -> None:
    g = new_game(tmp_path, max_turns_per_round=None)
    assert "it ends when a full turn passes with no message" in obs(g, 0)
    for _ in range(30):  # far beyond the default budget of 15
        act(g, who(g)[0][0], dm(2 if who(g)[0][0] == 0 else 0))
    assert who(g)[0][1] == "talk" and "CHEAP_TALK turn 16" in obs(g, who(g)[0][0])
    opts = {"speaker_order": "random", "num_agents": 4, "participants_per_meeting": 4}
    orders = set()
    for seed in range(8):
        runs = [make("calendar", opts) for _ in range(2)]
        firsts = []
        for r in runs:
            r.reset(seed)
            firsts.append(
                next(e["speaker_order"] for e in r.drain_events() if e["type"] == "round_start")
            )
        assert firsts[0] == firsts[1]  # the seed fixes the order
        orders.add(tuple(firsts[0]))
    assert len(orders) > 1


def test_submit_out_of_turn_and_bad_built_actions_raise(tmp_path: Path) -> None:
    g = new_game(tmp_path)
    with pytest.raises(ActionError):
        act(g, 1)
    with pytest.raises(ActionError, match="must be another agent"):
        act(g, 0, dm(0))
    assert who(g) == [(0, "talk")]  # a rejected submission changes nothing


def _env(*calls: dict[str, Any]) -> str:
    return json.dumps({"thinking": "t", "actions": list(calls)})


async def _play_mock(tmp_path: Path, scripts: list[list[str]], **opts: Any) -> Any:
    spec = GameSpec(
        trace_id="mock",
        game="calendar-v2",
        seed=0,
        options={"suite": task_file(tmp_path, LAYOUT, MEETINGS[:1]), **opts},
        agents=[AgentSpec(model="mock/scripted")] * 3,
    )
    agents = [LLMAgent(MockModel(replies=s)) for s in scripts]
    return await play_game(spec, agents=agents)


def test_mock_model_malformed_output_and_batch_retries(tmp_path: Path) -> None:
    seat0 = [
        "I think slot 0",  # not JSON: re-prompted with the parser's error
        _env(dm(2, "slot 0?")),
        _env(),  # sweep 2
        _env(sched(1, 2)),  # rejected by rule 7: a game-level retry
        "```json\n" + _env(sched(1, 0)) + "\n```",  # fenced: accepted with a warning
    ]
    seat2 = [_env(dm(0, "fine")), _env(), _env(sched(1, 0))]
    trace = asyncio.run(_play_mock(tmp_path, [seat0, [], seat2]))
    assert trace.status == "complete", trace.error
    kinds = Counter(e["type"] for e in trace.events)
    assert kinds["validation_error"] == 1 and kinds["batch_rejected"] == 1
    assert kinds["output_format_warning"] == 1 and kinds["resolution"] == 1
    assert trace.metrics["meetings_scheduled"] == 1 and trace.metrics["success_rate"] == 1.0
    err = next(e for e in trace.events if e["type"] == "validation_error")
    assert "not one valid JSON object" in err["error"]


def test_mock_model_exhausting_retries_is_auto_filled(tmp_path: Path) -> None:
    seat0 = [_env(), "x", "y", "z", "w"]  # talk passes, then four bad DECISION replies
    trace = asyncio.run(_play_mock(tmp_path, [seat0, [], [_env(), _env(sched(1, 0))]]))
    kinds = Counter(e["type"] for e in trace.events)
    assert kinds["heuristic_fallback"] == 1 and kinds["decision_auto_filled"] == 1
    assert trace.final_state["rounds"][0]["auto_filled"] == [0]
    assert trace.metrics["meetings_scheduled"] == 0


def test_schema_following_mock_plays_whole_games() -> None:
    spec = GameSpec(
        trace_id="schema",
        game="calendar-v2",
        seed=2,
        options={"channels": "all", "max_turns_per_round": 3},
        agents=[AgentSpec(model="mock/schema")] * 3,
    )
    trace = asyncio.run(play_game(spec))
    assert trace.status == "complete", trace.error
    assert trace.final_state["rounds_succeeded"] + trace.final_state["rounds_failed"] == 3
