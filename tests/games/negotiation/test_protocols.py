"""Reference agents: the cooperative pair reaches a joint optimum on every pool scenario."""

from __future__ import annotations

import asyncio

import pytest

from accord.games.negotiation.pool import pool_ids
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec


def play(agents: list[str], **options: object) -> dict:  # type: ignore[type-arg]
    spec = GameSpec(
        trace_id="p",
        game="negotiation",
        options={"rounds": 1, **options},
        seed=0,
        agents=[AgentSpec(agent=a) for a in agents],
    )
    trace = asyncio.run(play_game(spec))
    assert trace.status == "complete", trace.error
    return trace.model_dump()


@pytest.mark.parametrize("scenario", pool_ids())
@pytest.mark.parametrize("first", [0, 1])
def test_cooperative_pair_reaches_the_joint_optimum(scenario: str, first: int) -> None:
    trace = play(["cooperative", "cooperative"], scenario=scenario, first_speaker=first)
    (rec,) = trace["final_state"]["rounds"]
    assert rec["optimal"] and not rec["annulled"]
    assert rec["joint_reward"] == rec["oracle_max"]
    # Two messages suffice: projects, then the plan with an early decision.
    assert len(rec["messages"]) <= 3


def test_cooperative_pair_under_transparency_needs_one_message() -> None:
    trace = play(["cooperative", "cooperative"], scenario="0.8/gen_001", transparency="full")
    (rec,) = trace["final_state"]["rounds"]
    assert rec["optimal"] and rec["early_decision"][0]


def test_greedy_pair_overdraws_where_individual_optima_clash() -> None:
    trace = play(["greedy", "greedy"], scenario="0.5/gen_012", theme="medieval")
    (rec,) = trace["final_state"]["rounds"]
    # Both individual optima need stone: 9 + 9 > 10 (seed 004 App. C, gen_012).
    assert rec["annulled"] and rec["rewards"] == [0, 0]


def test_equal_split_never_overdraws() -> None:
    for sid in pool_ids():
        (rec,) = play(["equal-split", "equal-split"], scenario=sid)["final_state"]["rounds"]
        assert not rec["annulled"]
        assert rec["efficiency"] <= 1.0


def test_cooperative_against_a_silent_partner_stays_within_half() -> None:
    trace = play(["cooperative", "greedy"], scenario="1.0/gen_000", first_speaker=1)
    (rec,) = trace["final_state"]["rounds"]
    supply = {"r1": 10, "r2": 10, "r3": 6}
    assert all(q <= supply[r] // 2 for r, q in rec["purchases"][0].items())
