"""DSM (CalBench App. D.3, Table 9): the presets, the scoring arithmetic on both scales, offer
sizes, a sub-round escalation with its point bookkeeping, DSM-Private's early stop with and
without the release's fallback, a cross-meeting displacement, and the release's plan ranking,
decision recipients and DECISION walk (issue 24) beside the ``-v2`` forms."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from accord.agents.base import Agent
from accord.games.calendar import write_suite
from accord.games.calendar.layout import scenario_from_layout
from accord.games.calendar.protocols import PRIVATE, PROTOCOL_AGENTS, WELFARE, DsmAgent
from accord.games.calendar.protocols import messages as pm
from accord.games.calendar.protocols.base import View
from accord.games.calendar.protocols.dsm import SubRound
from accord.games.calendar.protocols.dsm_plans import (
    PRIVATE_NOFALLBACK,
    PRIVATE_V1,
    PRIVATE_V2,
    WELFARE_RELEASE,
    WELFARE_V1,
    WELFARE_V2,
    D,
    Plan,
    level,
    offer_size,
    reward,
    schedulable_slots,
    scoring_cost,
    utility,
)
from accord.games.calendar.rules import Item
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.schema import Trace

# Agent 0 (initiator): 13 free slots, then errands of cost 1, 1, 3. Agent 1: slots 0-12 blocked,
# errands of cost 1 and 3 on slots 13 and 14, slot 15 free.
ESCALATE = [" ".join(["."] * 13 + ["1", "1", "3"]), " ".join(["b1"] * 13 + ["1", "3", "."])]


def play(
    tmp_path: Path,
    layout: list[str],
    meetings: list[list[int]],
    agents: list[Agent],
    **options: Any,
) -> Trace:
    path = tmp_path / "task.jsonl"
    write_suite(path, [scenario_from_layout(layout, meetings, cost_setting="varied")])
    spec = GameSpec(
        trace_id="dsm",
        game="calendar-v2",
        seed=0,
        options={"suite": str(path), **options},
        agents=[AgentSpec(agent="dsm")] * len(layout),
    )
    trace = asyncio.run(play_game(spec, agents))
    assert trace.status == "complete", trace.error
    return trace


def decoded(trace: Trace, kind: type[pm.Typed]) -> list[pm.Typed]:
    out = [pm.decode(m["content"]) for m in trace.final_state["messages"]]
    return [m for m in out if isinstance(m, kind)]


def test_presets_are_table_9() -> None:
    assert (WELFARE.client, PRIVATE.client) == ("paper_dsm", "private_dsm")
    assert (WELFARE.l_min, WELFARE.l_max, PRIVATE.l_min, PRIVATE.l_max) == (1, 12, 1, 2)
    assert (WELFARE.beta, WELFARE.theta, WELFARE.w_soc) == (1.0, 0.0, 1.0)
    assert (PRIVATE.beta, PRIVATE.theta, PRIVATE.w_soc) == (0.25, 10.0, 0.25)
    assert (WELFARE.cascade_depth, WELFARE.displacement_targets) == (2, 4)
    assert (PRIVATE.cascade_depth, PRIVATE.displacement_targets) == (1, 2)
    assert WELFARE.exhaustive and not PRIVATE.exhaustive
    # As the paper ran them (the release's client); the -v1 variants are calendar-v2's DSM.
    for p in (WELFARE, PRIVATE):
        assert (p.scale, p.fallback, p.offer_scope) == ("shown", True, "all")
    for p in (WELFARE_V1, PRIVATE_V1):
        assert (p.scale, p.fallback, p.offer_scope) == ("log", False, "moves")
    assert not PRIVATE_NOFALLBACK.fallback and PRIVATE_NOFALLBACK.scale == "shown"
    names = {"dsm-welfare", "dsm-private", "dsm-welfare-v1", "dsm-private-v1"}
    assert names | {"dsm-private-nofallback"} <= set(PROTOCOL_AGENTS)


def test_levels_scoring_costs_and_rewards() -> None:
    assert D == 12
    assert [level(None), level(0), level(1), level(2), level(3)] == [0, 11, 10, 9, 8]
    assert level(100) > level(1000) >= 1  # the log scale keeps the published costs ordered
    # The paper presets score the shown cost and saturate: 100 and 1000 look alike, and on a
    # generated varied task (shown 1/10/100) levels 2 and 3 do too.
    assert [level(c, "shown") for c in (1, 2, 9, 10, 100, 1000)] == [10, 9, 2, 1, 1, 1]
    assert [level(c, "shown", "log10") for c in (0, 1, 2, 3)] == [11, 10, 1, 1]
    assert [scoring_cost(s) for s in (0, 11, 10, 8)] == [0, 0, 1, 3]
    assert reward(10, availability=2, offered=3) == 1 + 1
    assert reward(8, availability=5, offered=3) == 3 + 2
    assert reward(0, 3, 3) == 0 and reward(11, 3, 3) == 0


def test_offer_size_follows_the_utility() -> None:
    levels = [11] * 13 + [10, 10, 8]
    # θ = 0: broad offers, capped by L_max.
    assert offer_size(0.8125, levels, WELFARE)[0] == 12
    # θ = 10 makes every extra offered slot cost more than it can gain.
    assert offer_size(0.8125, levels, PRIVATE)[0] == 1
    # Utility by hand for L = 2 under the welfare preset.
    p = 1 - (1 - 0.5) ** 2
    assert utility(2, 0.5, [11, 10], WELFARE) == pytest.approx(p * (21 / 2 / 11) + p - (1 - p))


def test_welfare_escalates_to_a_second_sub_round_and_settles_points(tmp_path: Path) -> None:
    agents = [DsmAgent(WELFARE), DsmAgent(WELFARE)]
    trace = play(tmp_path, ESCALATE, [[0, 1]], list(agents))
    proposals = decoded(trace, pm.Proposals)
    assert [(p.sub, [slot for _, slot, _ in p.plans]) for p in proposals] == [  # type: ignore[attr-defined]
        (1, list(range(12))),
        (2, [12, 13, 14]),
    ]
    scores = decoded(trace, pm.Scores)
    assert [s.scores for s in scores] == [  # type: ignore[attr-defined]
        [(i, 0) for i in range(12)],
        [(12, 0), (13, 10), (14, 1)],  # cost 3 is shown as 100: level 1 on the shown scale
    ]
    (decision,) = decoded(trace, pm.DsmDecision)
    assert isinstance(decision, pm.DsmDecision)
    assert decision.slot == 13 and decision.reward == (D - 1 - 10) + (min(2, 3) - 1)
    assert trace.final_state["schedule"] == [{"meeting_id": 1, "slot": 13}]
    # The responder pays C(10) + C(1) = 1 + 10 and receives R = 2; the initiator the reverse.
    assert (agents[0].points, agents[1].points) == (9, -9)


def test_v1_welfare_scores_on_the_log_scale(tmp_path: Path) -> None:
    agents = [DsmAgent(WELFARE_V1), DsmAgent(WELFARE_V1)]
    trace = play(tmp_path, ESCALATE, [[0, 1]], list(agents))
    assert [s.scores for s in decoded(trace, pm.Scores)][1] == [(12, 0), (13, 10), (14, 8)]  # type: ignore[attr-defined]
    assert (agents[0].points, agents[1].points) == (2, -2)


def test_private_without_fallback_stops_after_one_narrow_offer(tmp_path: Path) -> None:
    for params in (PRIVATE_NOFALLBACK, PRIVATE_V1):
        agents = [DsmAgent(params), DsmAgent(params)]
        trace = play(tmp_path, ESCALATE, [[0, 1]], list(agents))
        proposals = decoded(trace, pm.Proposals)
        assert [(p.sub, len(p.plans)) for p in proposals] == [(1, 1)]  # type: ignore[attr-defined]
        assert trace.final_state["schedule"] == [] and not decoded(trace, pm.DsmDecision)
        assert (agents[0].points, agents[1].points) == (0, 0)  # no decision, nothing settled
        assert trace.final_state["total_cost"] == 0


@pytest.mark.parametrize(("policy", "charged"), [("keep", 1), ("rollback", 0)])
def test_private_falls_back_to_a_slot_it_can_clear_alone(
    tmp_path: Path, policy: str, charged: int
) -> None:
    # One plan (slot 0) is offered; agent 1 scores it 0. The initiator still announces it, then
    # schedules slot 0 while agent 1 falls back to slot 13 (its errand there moves to slot 15).
    agents = [DsmAgent(PRIVATE), DsmAgent(PRIVATE)]
    trace = play(tmp_path, ESCALATE, [[0, 1]], list(agents), failed_round=policy)
    (decision,) = decoded(trace, pm.DsmDecision)
    assert isinstance(decision, pm.DsmDecision) and decision.slot == 0 and decision.reward == 0
    (res,) = [e for e in trace.events if e["type"] == "resolution"]
    assert res["chosen"] == [0, 13] and not res["success"]
    assert res["rolled_back"] == (policy == "rollback")
    assert trace.final_state["schedule"] == [] and trace.final_state["total_cost"] == charged
    assert trace.metrics["excess_cost"] == pytest.approx(charged / 2)


def test_cross_meeting_displacement(tmp_path: Path) -> None:
    # M1 {0, 1} takes slot 0, the only slot agent 1 has. M2 {0, 2} can only use slot 0 on
    # agent 2's calendar, so agent 0 offers plans that move M1; agent 1 scores them as an
    # additional responder and moves its copy in VOLUNTARY.
    agents: list[Agent] = [DsmAgent(WELFARE) for _ in range(3)]
    layout = [". . .", ". . 1", ". b1 b1"]
    trace = play(tmp_path, layout, [[0, 1], [0, 2]], agents)
    schedule = {e["meeting_id"]: e["slot"] for e in trace.final_state["schedule"]}
    assert schedule[2] == 0 and schedule[1] == 1
    offered = [
        (m["recipients"], pm.decode(m["content"]))
        for m in trace.final_state["messages"]
        if m["round"] == 2 and '"proposals"' in m["content"]
    ]
    by_recipient = {tuple(r): p for r, p in offered if isinstance(p, pm.Proposals)}
    outsider, participant = by_recipient[(1,)], by_recipient[(2,)]
    assert any(moves for _, _, moves in outsider.plans)
    # The paper preset offers the outsider the whole set, as the release's client does.
    assert [pid for pid, _, _ in outsider.plans] == [pid for pid, _, _ in participant.plans]
    kinds = {(m["agent"], m["phase"], m["kind"]) for m in trace.final_state["moves"]}
    assert (1, "VOLUNTARY", "meeting") in kinds and (0, "DECISION", "meeting") in kinds
    assert trace.final_state["consistency_violations"] == 0


def test_v1_offers_an_outsider_only_the_plans_that_move_its_meeting(tmp_path: Path) -> None:
    agents: list[Agent] = [DsmAgent(WELFARE_V1) for _ in range(3)]
    layout = [". . .", ". 1 1", ". b1 b1"]
    trace = play(tmp_path, layout, [[0, 1], [0, 2]], agents)
    offered = [
        pm.decode(m["content"])
        for m in trace.final_state["messages"]
        if m["round"] == 2 and m["recipients"] == [1] and '"proposals"' in m["content"]
    ]
    assert offered and all(
        isinstance(p, pm.Proposals) and all(moves for _, _, moves in p.plans) for p in offered
    )


def sub_round(plans: list[Plan], levels: list[int], concerned: list[list[int]],
              scores: dict[int, dict[int, int]]) -> SubRound:  # fmt: skip
    offered = {a: [p.id for p in plans] for a in scores}
    sub = SubRound(1, plans, {p.id: lv for p, lv in zip(plans, levels, strict=True)}, offered, 0)
    sub.concerned = {p.id: c for p, c in zip(plans, concerned, strict=True)}
    sub.scores = scores
    return sub


def test_plans_rank_by_loss_then_scorers_then_slot() -> None:
    # Three two-party plans with the same loss 2: the lowest slot wins, not the first offered.
    plans = [Plan(0, 3, []), Plan(1, 1, []), Plan(2, 2, [])]
    sub = sub_round(plans, [11, 10, 11], [[1]] * 3, {1: {0: 9, 1: 10, 2: 9}})
    assert DsmAgent(WELFARE)._best(sub) == plans[1]
    assert DsmAgent(WELFARE_V2)._best(sub) == plans[0]  # offer order on ties
    # A lower loss beats a lower slot; an infeasible plan (a 0) is never chosen.
    sub = sub_round(plans, [11, 10, 11], [[1]] * 3, {1: {0: 11, 1: 10, 2: 0}})
    assert DsmAgent(WELFARE)._best(sub) == plans[0]
    # Equal loss: the plan that needs fewer scorers wins even on a later slot. Plan 0 moves
    # a meeting of outsider 4, which scored every plan (the whole offer set).
    plans = [Plan(0, 0, [(7, 0, 5)]), Plan(1, 5, [])]
    scores = {1: {0: 11, 1: 11}, 4: {0: 11, 1: 11}}
    sub = sub_round(plans, [10, 10], [[1, 4], [1]], scores)
    assert DsmAgent(WELFARE)._best(sub) == plans[1]
    assert DsmAgent(WELFARE_V2)._best(sub) == plans[0]


def test_the_decision_goes_to_the_seats_the_plan_concerns(tmp_path: Path) -> None:
    # Round 2 (M2 {0, 2}): agent 0 also offers plans that move M1, so outsider 1 scores the
    # whole offer set; the chosen plan (a free slot) does not move M1, so only agent 2 hears it.
    layout = [". . .", ". 1 1", ". . b1"]
    told = {}
    for params in (WELFARE, WELFARE_V2):
        agents: list[Agent] = [DsmAgent(params) for _ in range(3)]
        trace = play(tmp_path, layout, [[0, 1], [0, 2]], agents)
        assert any(
            m["round"] == 2 and m["recipients"] == [1] and '"scores"' not in m["content"]
            for m in trace.final_state["messages"]
        )
        told[params.name] = [
            m["recipients"]
            for m in trace.final_state["messages"]
            if m["round"] == 2 and isinstance(pm.decode(m["content"]), pm.DsmDecision)
        ]
    assert told == {"dsm-welfare": [[2]], "dsm-welfare-v2": [[1], [2]]}


def view(calendar: tuple[Item | None, ...], attempt: int) -> View:
    return View(
        seat=1, phase="DECISION", round=1, turn=0, max_turns=None, meeting_id=9,
        participants=(0, 1), is_participant=True, calendar=calendar, inbox=(), num_agents=2,
        num_slots=len(calendar), channels=("dm",), attempt=attempt,
    )  # fmt: skip


def test_decision_walks_the_schedulable_slots_as_the_release_does() -> None:
    # Agent 1 was told slot 0, which holds its meeting M3 that the plan does not move.
    meeting = Item("meeting", 3, 1, participants=(1, 2))
    calendar = (meeting, Item("errand", 4, 1), Item("errand", 5, 1, blocked=True), None)
    assert schedulable_slots(calendar) == [0, 1, 3]
    walker, first = DsmAgent(PRIVATE), DsmAgent(PRIVATE_V2)
    for agent in (walker, first):
        agent._agreed = Plan(0, 0, [])
    assert walker.decide(view(calendar, 1)) == []  # nothing: the game asks again
    retry = walker.decide(view(calendar, 2))  # the second schedulable slot, its errand moved
    assert retry is not None and retry[-1] == {"type": "schedule", "meeting_id": 9, "slot": 1}
    assert retry[0]["to_slot"] == 3
    assert walker.decide(view(calendar, 3)) == [{"type": "schedule", "meeting_id": 9, "slot": 3}]
    assert walker.decide(view(calendar, 4)) == []  # the walk has run out
    assert walker.status()["fallback"] is True
    # The -v2 form goes straight to the lowest slot it can clear alone.
    batch = first.decide(view(calendar, 1))
    assert batch is not None and batch[-1]["slot"] == 1
    # Without a decision the release's seat submits nothing on its first attempt.
    assert DsmAgent(PRIVATE).decide(view(calendar, 1)) == []


def test_release_welfare_stops_after_one_sub_round(tmp_path: Path) -> None:
    trace = play(tmp_path, ESCALATE, [[0, 1]], [DsmAgent(WELFARE_RELEASE) for _ in range(2)])
    assert [p.sub for p in decoded(trace, pm.Proposals)] == [1]  # type: ignore[attr-defined]
    (decision,) = decoded(trace, pm.DsmDecision)  # the best infeasible plan, announced
    assert isinstance(decision, pm.DsmDecision) and decision.slot == 0


def test_a_chain_never_lands_on_an_errand_under_the_release_rule(tmp_path: Path) -> None:
    # As above, but agent 1 holds errands on slots 1 and 2: moving its copy of M1 there would
    # evict one. The release's client never proposes or accepts that, so M2 cannot be placed;
    # the -v2 preset evicts the errand and places M2 on slot 0.
    layout = [". . .", ". 1 1", ". b1 b1"]
    placed = {}
    for params in (WELFARE, WELFARE_V2):
        trace = play(tmp_path, layout, [[0, 1], [0, 2]], [DsmAgent(params) for _ in range(3)])
        placed[params.name] = {e["meeting_id"]: e["slot"] for e in trace.final_state["schedule"]}
    assert placed["dsm-welfare"] == {1: 0}
    assert placed["dsm-welfare-v2"][2] == 0 and placed["dsm-welfare-v2"][1] != 0


def test_release_chains_list_every_cascade_cheapest_first() -> None:
    from accord.games.calendar.protocols import dsm_chains

    m1 = Item("meeting", 1, 3, participants=(0, 1))
    m2 = Item("meeting", 2, 1, participants=(0, 2))
    calendar = (m1, m2, Item("errand", 7, 1), None, None)
    v = view(calendar, 1)
    found = dsm_chains.chains(v, 0, depth=2)
    # M1 to a free slot (3 or 4), or onto M2 which moves on to a free slot; never onto the errand.
    assert found == [
        [(1, 0, 3)],
        [(1, 0, 4)],
        [(1, 0, 1), (2, 1, 3)],
        [(1, 0, 1), (2, 1, 4)],
    ]
    assert dsm_chains.chains(v, 0, depth=1) == found[:2]
    # Pricing on a scorer's calendar: the moved meetings' costs; a target holding an errand is
    # infeasible; an outside participant a plan does not touch is not concerned.
    assert dsm_chains.plan_cost(calendar, 0, found[2]) == 4
    assert dsm_chains.plan_cost(calendar, None, [(1, 0, 2)]) is None
    assert not dsm_chains.concerns(calendar, [(9, 0, 3)])
