"""The task Inspect's command line finds through the ``inspect_ai`` entry point:
``inspect eval accord/accord_game -T game=negotiation-v3 -T games=5 --model PROVIDER/MODEL
--model-role B=OTHER/MODEL``, and the ``accord`` model provider, which answers through any of
Accord's models (``--model accord/mock/schema`` works offline; `accord.inspectai.accord_api`)."""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task

from accord.inspectai.accord_api import accord_models  # noqa: F401 - registers --model accord/...
from accord.inspectai.task import accord_task


@task
def accord_game(
    game: str,
    games: int = 10,
    seed: int = 0,
    agents: str | None = None,
    options: dict[str, Any] | str | None = None,
) -> Task:
    """Play an Accord game (`accord.inspectai.task.accord_task`): one sample per game, one
    model role per seat (named after the seat), Accord's metrics as the score."""
    return accord_task(game, games=games, seed=seed, agents=agents, options=options)
