"""The system prompt names only agents that exist (issue 24): at N = 1 there is no range
"Agent-0 to Agent-0" and no Agent-1 in the objective or the command examples."""

from __future__ import annotations

import pytest

from accord.games.sorting.prompts import build_prompt
from accord.games.sorting.task import init_task


@pytest.mark.parametrize("kind", ["sort", "max", "prefix_sum"])
@pytest.mark.parametrize("backend", ["broadcast", "p2p", "kv"])
def test_the_one_agent_prompt_names_no_other_agent(kind: str, backend: str) -> None:
    task = init_task(kind, 1, 3, "random", 0)  # type: ignore[arg-type]
    prompt = build_prompt(task, 0, backend, "camoc")  # type: ignore[arg-type]
    assert "Agent-0 to Agent-0" not in prompt and "Agent-1" not in prompt
    assert "There is N = 1 agent" in prompt and str(list(task.xs[0])) in prompt


def test_the_message_example_names_another_agent_that_exists() -> None:
    task = init_task("sort", 2, 2, "random", 0)
    for agent, other in ((0, 1), (1, 0)):
        prompt = build_prompt(task, agent, "p2p", "camoc")
        assert f"e.g. send_message {other} hello" in prompt
    assert "There are N = 2 agents (Agent-0 to Agent-1)" in prompt
