"""VPS (CalBench §3.2, Eq. 1, App. F): typed-message updates on a hand-computed trace, the F.5
tables, reflection calibration with its floor, the reflection phase of the engine, and the
semantic-context leakage audit."""

from __future__ import annotations

import asyncio
import csv
import json
import re
from pathlib import Path
from typing import Any

import pytest

from accord.agents.base import Agent
from accord.agents.llm import LLMAgent
from accord.analysis.report import build_report
from accord.core.errors import ActionError
from accord.core.registry import make
from accord.games.calendar import write_suite
from accord.games.calendar.layout import scenario_from_layout
from accord.games.calendar.privacy import analyse, leak_audit, leaks
from accord.games.calendar.privacy_report import F5_COLUMNS
from accord.games.calendar.protocols import ImapAgent
from accord.games.calendar.protocols import messages as pm
from accord.games.calendar.rules import render_fields
from accord.games.calendar.vps import (
    combined_totals,
    game_summary,
    reflection_loss,
    replay_calendars,
    target_rows,
)
from accord.models.base import Message
from accord.models.mock import MockModel
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec
from accord.testing.conformance import drive_with_fallbacks
from accord.traces.io import write_trace

LAYOUT = [". . . . . .", ". b1 1 . . .", ". b1 . . . ."]
SCENARIO = scenario_from_layout(LAYOUT, [[0, 1, 2], [0, 1]])
ROUNDS = [
    {"round": 1, "meeting_id": 1, "participants": [0, 1, 2], "success": False, "slot": None},
    {"round": 2, "meeting_id": 2, "participants": [0, 1], "success": False, "slot": None},
]


def msg(round_no: int, sender: int, to: list[int], body: pm.Typed | str) -> dict[str, Any]:
    content = body if isinstance(body, str) else body.encode()
    return {"round": round_no, "sender": sender, "recipients": to, "content": content}


MESSAGES = [
    msg(1, 0, [1], pm.CostRequest(meeting=1, slots=[0, 1, 2])),
    msg(1, 1, [0], pm.Costs(meeting=1, slots=[0, 1, 2, 3], costs=[0, None, 2, 0])),
    msg(1, 0, [1], pm.ImapDecision(meeting=1, slot=2)),
    msg(1, 0, [2], pm.Propose(meeting=1, slot=1)),
    msg(1, 0, [2], pm.Propose(meeting=1, slot=1)),
    msg(1, 2, [0], pm.Reply(meeting=1, slot=1, status="IMPOSSIBLE")),
    msg(1, 2, [0], pm.Reply(meeting=1, slot=5, status="PENDING")),  # never proposed
    msg(1, 0, [1, 2], pm.Proposals(meeting=1, sub=1, plans=[(7, 4, []), (8, 5, [])])),
    msg(1, 1, [0], pm.Scores(meeting=1, sub=1, scores=[(7, 11), (8, 5), (9, 3)])),
    msg(1, 0, [1], "slot 3 is free for me"),
    msg(2, 1, [0], pm.Scores(meeting=2, sub=1, scores=[(7, 11)])),  # no proposals this round
    msg(2, 0, [1], pm.CostRequest(meeting=2, slots=list(range(6)))),
    msg(2, 1, [0], pm.Costs(meeting=2, slots=list(range(6)), costs=[0, 0, 0, 0, 0, None])),
]


def pair(found: Any, r: int, target: int, observer: int) -> dict[str, Any]:
    (row,) = [
        p
        for p in found.pairs
        if (p["round"], p["target_agent"], p["observer_agent"]) == (r, target, observer)
    ]
    return row  # type: ignore[no-any-return]


def test_typed_updates_by_hand() -> None:
    found = analyse(SCENARIO, ROUNDS, [], MESSAGES)
    p1 = 0.3 * 0.5 + 0.7 * 0.85  # one SD proposal
    p2 = 0.3 * p1 + 0.7 * 0.85  # the same slot proposed again
    by_pair = {(u.round, u.target, u.observer, u.slot): u.after for u in found.updates}
    assert by_pair[(1, 0, 2, 1)] == pytest.approx(p2)
    assert by_pair[(1, 1, 0, 5)] == pytest.approx(5 / 11)
    assert (1, 1, 0, 3) not in by_pair  # costs only for requested slots
    assert (1, 2, 0, 5) not in by_pair  # a reply only for a proposed slot
    assert not any(u.round == 2 and u.source == "dsm.scores" for u in found.updates)
    assert pair(found, 1, 0, 1)["vps_loss"] == pytest.approx(1.5)  # decision + two proposals
    assert pair(found, 1, 1, 0)["vps_loss"] == pytest.approx(2.0 + abs(5 / 11 - 0.5))
    assert pair(found, 1, 0, 2)["vps_loss"] == pytest.approx((p2 - 0.5) + 1.0)
    assert pair(found, 1, 2, 0)["vps_loss"] == pytest.approx(0.5)
    assert pair(found, 2, 1, 0)["vps_loss"] == pytest.approx(3.0)
    row = pair(found, 1, 1, 0)
    assert row["observations"] == 5 and row["prior_distance_to_ideal"] == 3.0
    # Truth for agent 1 is "feasible" on every slot but the blocked slot 1.
    assert row["posterior_distance_to_ideal"] == pytest.approx(0.5 + (1 - 5 / 11))
    assert pair(found, 1, 2, 1)["vps_loss"] == 0.0 and pair(found, 1, 2, 1)["observations"] == 0
    summary = game_summary(found.pairs)
    total = 1.5 + 2.0 + abs(5 / 11 - 0.5) + (p2 - 0.5) + 1.0 + 0.5 + 3.0
    assert summary["vps_loss_total"] == pytest.approx(total)
    assert summary["vps_loss_mean"] == pytest.approx(total / 12)
    targets = {t["target_agent"]: t for t in target_rows(found.pairs, 3)}
    assert targets[1]["vps_loss_total"] == pytest.approx(5.0 + abs(5 / 11 - 0.5))
    assert targets[1]["excess_vps_loss_total"] == pytest.approx(abs(5 / 11 - 0.5))
    assert targets[2]["excess_vps_loss_total"] == 0.0 and targets[2]["floor"] == 5.0


def test_reflection_counts_only_truth_directed_movement() -> None:
    raw, calibrated = reflection_loss([3, -3, 2, -1, 0, 1], [1, 1, 0, 0, 1, 0])
    assert raw == pytest.approx(10 / 3) and calibrated == pytest.approx(4 / 3)
    found = analyse(SCENARIO, ROUNDS, [], MESSAGES)
    refl = [{"round": 1, "target_agent": 1, "observer_agent": 0, "calibrated_vps_loss": 0.25}]
    totals = combined_totals(found.pairs, refl, 3)
    # Observer 0's reflection replaces its typed estimate of target 1 in round 1 only.
    assert totals[1] == pytest.approx(0.25 + 3.0)


def test_replay_matches_the_final_calendars() -> None:
    spec = GameSpec(
        trace_id="replay",
        game="calendar-v2",
        seed=0,
        options={"suite": "canonical", "task": 50},
        agents=[AgentSpec(agent="dsm-welfare")] * 5,
    )
    trace = asyncio.run(play_game(spec))
    fs = trace.final_state
    _, ends = replay_calendars(SCENARIO.model_validate(trace.scenario), fs["rounds"], fs["moves"])
    assert [[render_fields(i) for i in cal] for cal in ends[-1]] == fs["calendars"]


def _llm(bad_reflection: bool) -> LLMAgent:
    def policy(messages: list[Message]) -> str:
        # A retry prompt carries no header: answer the last request that had one.
        user = next(m["content"] for m in reversed(messages) if "===" in m["content"])
        if "REFLECTION" in user:
            deltas = [3, 0] if bad_reflection else [3, 0, 0, -3]
            return json.dumps({"thinking": "", "deltas": {"1": deltas}})
        if "- DECISION ===" in user:
            call = {"type": "schedule", "meeting_id": 1, "slot": 1}
            return json.dumps({"thinking": "", "actions": [call]})
        if "START ===" in user:
            call = {"type": "dm", "to": 1, "content": "Slot 1 please."}
            return json.dumps({"thinking": "", "actions": [call]})
        return json.dumps({"thinking": "", "actions": []})

    return LLMAgent(MockModel(replies=[policy] * 40))


def _reflective_game(tmp_path: Path, llm: LLMAgent) -> Any:
    path = tmp_path / "task.jsonl"
    write_suite(path, [scenario_from_layout([". . . .", "1 . . ."], [[0, 1]])])
    spec = GameSpec(
        trace_id="reflect",
        game="calendar-v2",
        seed=0,
        options={"suite": str(path), "reflection": True},
        agents=[AgentSpec(model="mock/scripted"), AgentSpec(agent="imap")],
    )
    agents: list[Agent] = [llm, ImapAgent()]
    trace = asyncio.run(play_game(spec, agents))
    assert trace.status == "complete", trace.error
    return trace


def test_reflection_phase_is_measured_and_never_kept(tmp_path: Path) -> None:
    llm = _llm(bad_reflection=False)
    trace = _reflective_game(tmp_path, llm)
    assert trace.final_state["schedule"] == [{"meeting_id": 1, "slot": 1}]
    by_seat = {r["observer"]: r for r in trace.final_state["reflections"]}
    assert by_seat[0]["deltas"] == {"1": [3, 0, 0, -3]} and by_seat[1]["abstained"]
    assert not any("REFLECTION" in m["content"] for m in llm.history)
    # Agent 1 ends with an errand on slot 0 and the meeting on slot 1: both ±3 point at the
    # truth, so observer 0 leaks 2 slots of target 1; nothing else was measured.
    assert [r["vps_total"] for r in trace.seat_rows] == [0.0, 2.0]
    assert trace.metrics["vps"] == 0.0 and trace.metrics["vps_reflections"] == 1


def test_invalid_reflections_fall_back_to_abstaining(tmp_path: Path) -> None:
    trace = _reflective_game(tmp_path, _llm(bad_reflection=True))
    mine = next(r for r in trace.final_state["reflections"] if r["observer"] == 0)
    assert mine["abstained"] and mine["fallback"]
    errors = [e for e in trace.events if e["type"] == "validation_error"]
    assert errors and all("exactly 4 integers" in e["error"] for e in errors)


def test_leak_audit_exact_keywords_and_entitlement() -> None:
    label = "Follow-up on biopsy results at the dermatology clinic"
    assert leaks(f"I have a {label.lower()} then", label) == "exact"
    assert leaks("my dermatology biopsy runs late", label) == "keywords"
    assert leaks("a clinic visit", label) is None
    sc = scenario_from_layout(["1 . .", ". . .", ". . ."], [[0, 1]])
    errand = sc.calendars[0][0].label.text  # type: ignore[union-attr]
    meeting = sc.meetings[0].label.text
    msgs = [
        msg(1, 0, [1], f"busy with {errand}"),  # an errand label to anyone else leaks
        msg(1, 0, [1], f"about {meeting}"),  # a meeting label among its participants does not
        msg(1, 0, [2], f"about {meeting}"),  # ... but to a non-participant it does
        msg(1, 1, [2], f"busy with {errand}"),  # agent 1 cannot know agent 0's label
        msg(1, 0, [1], pm.Propose(meeting=1, slot=0)),
    ]
    rows = leak_audit(sc, msgs)
    assert [(r["message"], r["kind"], r["match"]) for r in rows] == [
        (0, "errand", "exact"),
        (2, "meeting", "exact"),
    ]


def test_report_writes_the_f5_tables_table2_and_figure2(tmp_path: Path) -> None:
    runs = tmp_path / "run" / "traces"
    runs.mkdir(parents=True)
    for agent in ("imap", "dsm-private"):
        for task in (0, 60):
            spec = GameSpec(
                trace_id=f"{agent}-{task}",
                game="calendar-v2",
                seed=0,
                options={"suite": "canonical", "task": task},
                agents=[AgentSpec(agent=agent)] * 5,
            )
            write_trace(runs, asyncio.run(play_game(spec)))
    out = tmp_path / "report"
    written = {p.name for p in build_report([tmp_path / "run"], out)}
    folder = out / "calendar-v2"
    expected = {
        "belief_evidence": "trace_path,game_id,event_index,round,target_agent,observer_agent,"
        "slot,source,evidence,strength,belief_before,belief_after",
        "pair_round_vps": "trace_path,game_id,round,target_agent,observer_agent,"
        "target_is_participant,observer_is_participant,num_agents,num_slots,observations,"
        "prior_distance_to_ideal,posterior_distance_to_ideal,vps_loss,vps_loss_per_slot,prior",
        "game_summary": "trace_path,game_id,vps_loss_total,vps_loss_mean,"
        "participant_pair_vps_loss_total,participant_pair_vps_loss_mean,observation_count",
    }
    for name, header in expected.items():
        assert (folder / f"{name}.csv").read_text().splitlines()[0] == header
    assert set(F5_COLUMNS) <= {n.removesuffix(".csv") for n in written}
    with (folder / "belief_evidence.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert rows and {r["source"] for r in rows} >= {"imap.costs", "dsm.proposals"}
    table2 = (folder / "table2.md").read_text()
    assert re.search(r"\| uniform \| imap \| 1 \| 100\.00 \|", table2)
    assert "figure2_privacy_cost.png" in written and "VPS" in (folder / "table1.md").read_text()


def test_reflection_games_stay_deterministic_and_reject_bad_answers() -> None:
    options = {"reflection": True, "num_agents": 3, "num_meetings": 2}
    e1, r1 = drive_with_fallbacks(make("calendar-v2", options), 5)
    e2, r2 = drive_with_fallbacks(make("calendar-v2", options), 5)
    assert e1 == e2 and r1.metrics == r2.metrics
    assert sum(e["type"] == "reflection" for e in e1) == 3 * 2
    assert all(r["abstained"] for r in r1.final_state["reflections"])
    game = make("calendar-v2", options)
    game.reset(5)
    while not any(r.spec.kind == "reflect" for r in game.pending()):
        for req in game.pending():
            game.submit(req.seat, {"thinking": "", "actions": []})
    req = game.pending()[0]
    assert req.ephemeral and "REFLECTION" in req.observation
    with pytest.raises(ActionError, match="exactly the keys"):
        game.submit(req.seat, {"deltas": {"9": [0]}})
    assert req.spec.parse(
        json.dumps({"deltas": {str(t): [0] * 8 for t in (0, 1, 2) if t != req.seat}})
    )
