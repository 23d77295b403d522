"""The canonical suite (§4.1): shape, buckets, determinism and the JSONL round trip."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from accord.games.calendar import (
    Scenario,
    build_canonical_suite,
    compute_oracle,
    difficulty_bucket,
    feasible_fraction,
    load_suite,
    write_suite,
)
from accord.games.calendar.config import CalendarConfig
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec


@pytest.fixture(scope="module")
def suite() -> list[Scenario]:
    return build_canonical_suite(seed=0)


def test_shape(suite: list[Scenario]) -> None:
    assert len(suite) == 90
    assert Counter(s.cost_setting for s in suite) == {"uniform": 45, "varied": 45}
    assert len({s.task_id for s in suite}) == 90
    for s in suite:
        assert (s.num_agents, s.num_slots, s.num_meetings) == (5, 16, 5)
        assert all(len(m.participants) == 3 for m in s.meetings)
        assert s.params.density in {0.6, 0.8, 1.0} or all(
            d in {0.6, 0.8, 1.0}
            for d in s.params.density  # type: ignore[union-attr]
        )
        assert s.params.num_blocked in {2, 4, 6}


def test_buckets_are_balanced_and_match_the_score(suite: list[Scenario]) -> None:
    buckets = Counter((s.cost_setting, difficulty_bucket(feasible_fraction(s))) for s in suite)
    assert buckets == {
        (setting, bucket): 15
        for setting in ("uniform", "varied")
        for bucket in ("easy", "medium", "hard")
    }
    for s in suite:
        assert difficulty_bucket(feasible_fraction(s)) in s.task_id


def test_every_task_is_solvable(suite: list[Scenario]) -> None:
    for s in suite[::9]:
        report = compute_oracle(s)
        assert report.optimal is not None
        assert report.optimal.total_cost <= report.greedy.schedule.total_cost
        assert report.worst is not None


def test_deterministic_and_seed_dependent(suite: list[Scenario]) -> None:
    assert build_canonical_suite(seed=0) == suite
    assert build_canonical_suite(seed=1)[0] != suite[0]


def test_write_then_load(tmp_path: Path, suite: list[Scenario]) -> None:
    path = write_suite(tmp_path / "nested" / "canonical.jsonl", suite)
    assert len(path.read_text("utf-8").splitlines()) == 90
    assert load_suite(path) == suite
    assert load_suite("canonical") == suite


@pytest.mark.parametrize(("suite", "task"), [("canonical", 0), ("calbench-varied", 100)])
def test_a_suite_trace_config_describes_the_task_played(suite: str, task: int) -> None:
    config = CalendarConfig(suite=suite, task=task)
    played = config.scenario_for(0)
    spec = GameSpec(
        trace_id="t",
        game="calendar",
        seed=0,
        options={"suite": suite, "task": task},
        agents=[AgentSpec(agent="oracle-follower")] * played.num_agents,
    )
    trace = asyncio.run(play_game(spec))
    assert trace.status == "complete"
    cfg = trace.config
    assert (cfg["num_agents"], cfg["num_slots"], cfg["num_meetings"]) == (
        played.num_agents,
        played.num_slots,
        played.num_meetings,
    )
    assert cfg["cost_setting"] == played.cost_setting
    assert cfg["num_agents"] == trace.scenario["num_agents"] == len(trace.seats)
    # The recorded config validates again as the same game (replay rebuilds it from here).
    again = CalendarConfig.model_validate(cfg)
    assert again.model_dump(mode="json") == cfg and again.scenario_for(0) == played
    # Without a fixed task the seed picks one, so nothing about its size is recorded.
    loose = CalendarConfig(suite=suite).model_dump(mode="json")
    assert "num_slots" not in loose and "num_agents" not in loose
    with pytest.raises(ValueError, match="only apply without 'suite'"):
        CalendarConfig(suite=suite, task=task, num_slots=played.num_slots + 1)
