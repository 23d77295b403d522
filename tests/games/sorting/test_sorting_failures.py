"""Rule-based failure modes of sorting games (MAS-Bench §5.3; `sorting.failures`)."""

from __future__ import annotations

import asyncio
from typing import Any

from accord.agents.base import Agent
from accord.agents.llm import LLMAgent
from accord.core.registry import make
from accord.games.sorting.engine import SortingGame
from accord.games.sorting.failures import FAILURE_MODES, classify, game_modes, mode_counts
from accord.games.sorting.task import Task
from accord.models.mock import MockModel
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.schema import Trace

SEED = 5


def task(**opts: Any) -> Task:
    g = make("sorting", opts)
    assert isinstance(g, SortingGame)
    g.reset(SEED)
    return g.task


def play(scripts: list[list[str]], **opts: Any) -> Trace:
    agents: list[Agent] = [LLMAgent(MockModel(replies=s)) for s in scripts]
    spec = GameSpec(
        trace_id="f",
        game="sorting",
        seed=SEED,
        options=opts,
        agents=[AgentSpec(model="mock/scripted")] * len(scripts),
    )
    trace = asyncio.run(play_game(spec, agents))
    assert trace.status == "complete", trace.error
    return trace


def block(command: str) -> str:
    return f"```\n{command}\n```"


OPTS: dict[str, Any] = {"n": 2, "k": 2, "mode": "desc", "max_rounds": 4}


def test_local_sorting_in_a_descending_family_is_premature() -> None:
    t = task(**OPTS)
    scripts = [[block(f"submit_result {sorted(t.xs[i])}")] for i in range(2)]
    trace = play(scripts, **OPTS)
    assert trace.metrics["sr"] == 0.0
    assert classify(trace) == {0: "premature_submission", 1: "premature_submission"}
    assert game_modes(trace) == ["premature_submission"]


def test_no_submission_and_invented_values() -> None:
    opts = {**OPTS, "max_rounds": 2}
    trace = play([[block("wait")] * 2, [block("submit_result [100000, 3]")]], **opts)
    assert classify(trace) == {0: "no_submission", 1: "value_hallucination"}
    short = play([[block("wait")] * 2, [block("submit_result [1]")]], **opts)
    assert classify(short)[1] == "value_hallucination"  # a dropped element


def test_sharing_then_claiming_the_same_slice_is_a_boundary_mismatch() -> None:
    t = task(**OPTS)
    share = [block(f"broadcast_message my list {t.xs[i]}") for i in range(2)]
    scripts = [
        [share[i], block("receive_messages"), block(f"submit_result {list(t.expected[0])}")]
        for i in range(2)
    ]
    trace = play(scripts, **OPTS)
    assert classify(trace) == {1: "boundary_mismatch"}
    assert game_modes(trace) == ["boundary_mismatch"]


def test_a_read_overtaken_by_another_agents_write_is_stale() -> None:
    opts = {**OPTS, "backend": "kv"}
    t = task(**opts)
    mine = list(t.expected[0])
    scripts = [
        [
            block(f"write_file plan\n{t.xs[0]}"),
            block("wait"),
            block("write_file plan\nchanged"),
            block(f"submit_result {mine}"),
        ],
        # Agent-1 reads the plan in round 2; Agent-0 rewrites it in round 3, before Agent-1's
        # submission of the same round is applied (agents are applied in id order).
        [block("wait"), block("read_file plan"), block(f"submit_result {mine}")],
    ]
    trace = play(scripts, **opts)
    assert classify(trace) == {1: "stale_kv_read"}


def test_correct_games_have_no_failure_and_counts_cover_every_mode() -> None:
    t = task(**OPTS)
    scripts = [[block(f"submit_result {list(t.expected[i])}")] for i in range(2)]
    assert classify(play(scripts, **OPTS)) == {}
    counts = mode_counts(["other", "other", "no_submission"])
    assert list(counts) == list(FAILURE_MODES) and counts["other"] == 2
