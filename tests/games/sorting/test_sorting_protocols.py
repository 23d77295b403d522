"""Reference agents solve every backend; LLM seats through the mock model.

The conformance suite runs over every game in tests/test_conformance.py."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any

import pytest

from accord.agents.base import Agent
from accord.agents.llm import LLMAgent
from accord.agents.reference import reference_names
from accord.core.errors import ModelError
from accord.core.registry import make
from accord.games.sorting.actions import MODEL_FAILED, NO_COMMAND, UNCLOSED_FENCE
from accord.games.sorting.prompts import FIRST_OBSERVATION
from accord.games.sorting.protocols import answer, list_message, read_lists
from accord.models.base import Message
from accord.models.mock import MockModel, ScriptedReply
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.schema import Trace


def play(agent: str, n: int, seed: int = 0, **opts: Any) -> Trace:
    spec = GameSpec(
        trace_id="t",
        game="sorting-v3",
        seed=seed,
        options={"n": n, **opts},
        agents=[AgentSpec(agent=agent)] * n,
    )
    trace = asyncio.run(play_game(spec))
    assert trace.status == "complete", trace.error
    return trace


def test_reference_agents_are_registered() -> None:
    assert reference_names("sorting-v3") == ["local-sort", "share-all"]


@pytest.mark.parametrize("backend", ["broadcast", "p2p", "kv"])
@pytest.mark.parametrize("task", ["sort", "max", "prefix_sum"])
@pytest.mark.parametrize(
    ("n", "k", "mode"), [(1, 1, "random"), (2, 5, "desc"), (3, 1, "near_asc"), (5, 10, "random")]
)
def test_share_all_always_succeeds(backend: str, task: str, n: int, k: int, mode: str) -> None:
    t = play("share-all", n, seed=n * 7 + k, k=k, mode=mode, backend=backend, task=task)
    assert t.metrics["sr"] == 1.0 and t.metrics["global_check"] == 1.0
    assert t.metrics["rounds"] == (1 if n == 1 else 3)
    assert t.metrics["failed_commands"] == 0


@pytest.mark.parametrize("backend", ["broadcast", "p2p", "kv"])
def test_share_all_at_the_largest_paper_scale(backend: str) -> None:
    t = play("share-all", 20, seed=5, k=10, backend=backend)
    assert t.metrics["sr"] == 1.0 and t.metrics["rounds"] == 3
    assert t.metrics["cr_est"] > 0


def test_share_all_communication_floor_per_backend() -> None:
    b = play("share-all", 4, backend="broadcast").metrics
    p = play("share-all", 4, backend="p2p").metrics
    kv = play("share-all", 4, backend="kv").metrics
    # Messaging: every agent receives in round 1, all but the last (who then knows every list)
    # again in round 2. Broadcast: 4 broadcasts + 7 receives; P2P: 12 sends + 7 receives.
    # K-V: 4 writes, then 12 reads in round 2. Plus 4 submissions each.
    assert (b["commands"], p["commands"], kv["commands"]) == (4 + 7 + 4, 12 + 7 + 4, 4 + 12 + 4)


def test_share_all_runs_both_phases() -> None:
    t = play("share-all", 3, condition="camoc", backend="kv")
    assert t.metrics["sr"] == 1.0 and t.metrics["sr_phase1"] == 1.0
    assert t.metrics["rounds_per_phase"] == [3, 3] and t.metrics["rounds_combined"] == 6
    assert t.metrics["rounds"] == 3  # the final phase, the default scope


def test_local_sort_is_a_no_coordination_floor() -> None:
    assert play("local-sort", 3, mode="asc").metrics["sr"] == 1.0
    srs = [play("local-sort", 3, seed=s, mode="random").metrics["sr"] for s in range(3)]
    assert max(srs) < 1.0
    assert play("local-sort", 3, mode="random").metrics["commands"] == 3


def test_list_messages_round_trip_and_answers() -> None:
    text = list_message(3, [5, -2]) + " and " + list_message(0, [7])
    assert read_lists(text) == {3: [5, -2], 0: [7]}
    assert read_lists("Agent-1 submitted its result: [1, 2]") == {}
    lists = [[5, 1], [9, 3]]
    assert answer("sort", 1, 2, lists) == [5, 9]
    assert answer("max", 0, 2, lists) == [9]
    assert answer("prefix_sum", 1, 2, lists) == [15, 18]


# -- LLM seats through the mock model ---------------------------------------------------------
def _own_sorted(messages: list[Message]) -> str:
    """A model that submits its own list sorted (right when N = 1)."""
    m = re.search(r"Your list: \[([^\]]*)\]", messages[0]["content"])
    assert m is not None
    values = sorted(int(v) for v in m.group(1).split(","))
    return f"Sorting locally.\n```\nsubmit_result {values}\n```"


def play_llm(
    script: Sequence[ScriptedReply], *, status: str = "complete", **opts: Any
) -> tuple[Trace, MockModel]:
    model = MockModel(replies=script)
    agents: list[Agent] = [LLMAgent(model)]
    spec = GameSpec(
        trace_id="m",
        game="sorting",
        seed=2,
        options={"n": 1, **opts},
        agents=[AgentSpec(model="mock/scripted")],
    )
    trace = asyncio.run(play_game(spec, agents))
    assert trace.status == status, trace.error
    return trace, model


def test_malformed_replies_get_harness_replies_and_the_agent_continues() -> None:
    trace, model = play_llm(
        [
            "I will just think about it.",
            "```\nsort_all\n```",
            "```\nsubmit_result one two three\n```",
            "Unclosed fence:\n```\nsubmit_result [1]",
            _own_sorted,
        ]
    )
    assert trace.metrics["sr"] == 1.0 and trace.metrics["rounds"] == 5
    assert trace.metrics["no_command_replies"] == 2 and trace.metrics["failed_commands"] == 2
    last_user = [call[-1]["content"] for call in model.calls]
    assert last_user[0] == FIRST_OBSERVATION
    assert last_user[1] == NO_COMMAND
    assert last_user[2].startswith("[sort_all]\nUnknown command: sort_all. A block must hold")
    assert "list of integers" in last_user[3]
    assert last_user[4] == NO_COMMAND + UNCLOSED_FENCE
    # The conversation keeps every turn: system, then (observation, reply) pairs.
    assert [m["role"] for m in model.calls[4]] == ["system"] + ["user", "assistant"] * 4 + ["user"]


def test_a_model_that_cannot_be_reached_fails_the_game() -> None:
    # A model that cannot be reached makes the game `failed` (kept out of every mean) rather
    # than answered with the App. F.3 error reply; that reply stays for a failed-call action.
    trace, _ = play_llm([ModelError("down")] * 4 + [_own_sorted], status="failed")
    assert trace.error is not None and "could not reach its model" in trace.error
    g = make("sorting", {"n": 1})
    g.reset(0)
    g.submit(0, {"failed": True})
    assert g.pending()[0].observation == MODEL_FAILED


def test_second_phase_starts_a_fresh_conversation() -> None:
    trace, model = play_llm([_own_sorted, "```\nwait\n```", _own_sorted], condition="abl-message")
    assert trace.metrics["rounds_per_phase"] == [1, 2] and trace.metrics["sr"] == 1.0
    phase2 = model.calls[1]
    assert [m["role"] for m in phase2] == ["system", "user"]
    assert "This is the second run of the task" in phase2[0]["content"]
    assert phase2[1]["content"] == FIRST_OBSERVATION
