"""The shape of Table 2 (CalBench §3.1, App. D) on a third of the canonical suite: a sanity
check of the protocols against each other, not of exact numbers."""

from __future__ import annotations

import asyncio
from functools import cache
from statistics import mean

from accord.games.calendar.protocols import messages as pm
from accord.games.calendar.vps import FLOOR
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.schema import Trace

TASKS = range(0, 90, 3)


@cache
def traces(agent: str) -> tuple[Trace, ...]:
    out = []
    for task in TASKS:
        spec = GameSpec(
            trace_id=f"{agent}-{task}",
            game="calendar-v2",
            seed=0,
            options={"suite": "canonical", "task": task},
            agents=[AgentSpec(agent=agent)] * 5,
        )
        trace = asyncio.run(play_game(spec))
        assert trace.status == "complete", trace.error
        out.append(trace)
    return tuple(out)


def avg(agent: str, key: str) -> float:
    return mean(float(t.metrics[key]) for t in traces(agent))


def test_imap_schedules_with_the_d1_footprint() -> None:
    assert avg("imap", "success_rate") >= 0.99
    for trace in traces("imap"):
        for r in trace.final_state["rounds"]:
            sent = [m for m in trace.final_state["messages"] if m["round"] == r["round"]]
            others = len(r["participants"]) - 1
            # A request and a cost vector per responder, then a decision to each responder.
            assert len(sent) == (3 * others if r["success"] else 2 * others)
            if r["success"]:
                assert {pm.decode(m["content"]).key[1] for m in sent} == {  # type: ignore[union-attr]
                    "cost_request",
                    "costs",
                    "decision",
                }


def test_imap_vps_is_its_structural_footprint() -> None:
    # Each responder reveals all 16 slots to the initiator (8 slot-equivalents); each decision
    # reveals one slot of the initiator to a responder (0.5); the floor is subtracted per target.
    for trace in traces("imap"):
        totals = [0.0] * 5
        for r in trace.final_state["rounds"]:
            first, *rest = sorted(r["participants"])
            for a in rest:
                totals[a] += 16 * 0.5
            totals[first] += 0.5 * len(rest) if r["success"] else 0.0
        expected = mean(max(0.0, t - FLOOR) for t in totals)
        assert abs(trace.metrics["vps"] - expected) < 1e-9


def test_dsm_private_leaks_least_and_schedules_fewer() -> None:
    others = ("imap", "sd-map", "dsm-welfare")
    assert avg("dsm-private", "vps") <= min(avg(a, "vps") for a in others)
    assert avg("dsm-private", "success_rate") < min(avg(a, "success_rate") for a in others)
    assert avg("dsm-welfare", "vps") > avg("dsm-private", "vps")


def test_sd_map_discloses_little_and_pays_more_than_imap() -> None:
    assert avg("sd-map", "vps") < 1.0 < avg("imap", "vps")
    assert avg("sd-map", "excess_cost") > avg("imap", "excess_cost")
    for trace in traces("sd-map"):
        for m in trace.final_state["messages"]:
            msg = pm.decode(m["content"])
            assert msg is not None and msg.key[0] == "sd"
            assert not {"costs", "scores", "plans"} & set(msg.model_dump())
