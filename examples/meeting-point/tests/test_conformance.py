"""meeting-point-v1 passes Accord's conformance suite (the acceptance gate of every game),
keeps each seat's costs private, scores against its exact oracle, and plays exactly its
committed golden traces."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from accord import testing
from accord.core.registry import make
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec

from meeting_point.config import MeetingPointConfig
from meeting_point.golden import GOLDEN, golden_trace
from meeting_point.rules import make_scenario, oracle, team_cost

GAME_ID = "meeting-point-v1"
GOLDEN_DIR = Path(__file__).parent / "golden"


def test_api() -> None:
    testing.check_api(GAME_ID)


def test_determinism() -> None:
    testing.check_determinism(GAME_ID)


def test_oracle() -> None:
    testing.check_oracle(GAME_ID)


def test_trace_roundtrip() -> None:
    testing.check_trace_roundtrip(GAME_ID)


def test_a_seat_is_told_only_its_own_costs() -> None:
    game = make(GAME_ID)
    game.reset(5)
    costs = game.scenario()["costs"]
    assert costs[0] != costs[1]
    (request,) = game.pending()
    other = costs[1 - request.seat]
    assert request.info["costs"] == costs[request.seat]
    assert other not in request.info.values()
    shown = request.system or ""
    lines = [line for line in shown.splitlines() if line.startswith("- place")]
    assert [int(line.rsplit(": ", 1)[1]) for line in lines] == costs[request.seat]


def test_the_oracle_tries_every_place() -> None:
    scenario = make_scenario(MeetingPointConfig(places=8), 9)
    best, cost = oracle(scenario)
    assert cost == min(team_cost(scenario, p) for p in range(8)) == team_cost(scenario, best)


def _play(agents: list[str], seed: int, **options: int) -> dict[str, Any]:
    spec = GameSpec(
        trace_id="t",
        game=GAME_ID,
        seed=seed,
        options=options,
        agents=[AgentSpec(agent=a) for a in agents],
    )
    trace = asyncio.run(play_game(spec))
    assert trace.status == "complete", trace.error
    return trace.metrics


@pytest.mark.parametrize("seed", range(5))
def test_talking_sharers_meet_at_the_best_place_and_silent_ones_may_not(seed: int) -> None:
    assert _play(["share", "share"], seed)["excess"] == 0
    silent = _play(["share", "share"], seed, talk_turns=0)
    assert silent["excess"] is None or silent["excess"] >= 0


def test_an_agreeable_partner_meets_the_stubborn_one_at_its_favourite() -> None:
    metrics = _play(["stubborn", "agreeable"], 3)
    assert metrics["met"] is True and metrics["messages"] == 4


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_trace_matches_golden(case: str) -> None:
    expected = json.loads((GOLDEN_DIR / f"{case}.json").read_text(encoding="utf-8"))
    assert json.loads(json.dumps(golden_trace(case), sort_keys=True)) == expected
