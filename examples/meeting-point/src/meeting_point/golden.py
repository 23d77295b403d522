"""Golden traces of meeting-point-v1: small scripted games whose traces are committed.

``scripts/regen_golden.py`` writes them to ``tests/golden/``; ``tests/test_conformance.py``
diffs fresh traces against them, so any change of rules, prompts or trace format shows up.
"""

from __future__ import annotations

import asyncio
from importlib import metadata
from typing import Any

from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec
from accord.testing.golden import normalize

GAME_ID = "meeting-point-v1"

GOLDEN: dict[str, GameSpec] = {
    "meeting-point-share": GameSpec(
        trace_id="meeting-point-share",
        game=GAME_ID,
        seed=1,
        agents=[AgentSpec(agent="share"), AgentSpec(agent="share")],
    ),
    "meeting-point-stubborn-vs-agreeable": GameSpec(
        trace_id="meeting-point-stubborn-vs-agreeable",
        game=GAME_ID,
        seed=2,
        options={"talk_turns": 1, "places": 4},
        agents=[AgentSpec(agent="stubborn"), AgentSpec(agent="agreeable")],
    ),
}


def golden_trace(case: str) -> dict[str, Any]:
    """Play a golden case; its trace without the fields that change between runs."""
    trace = asyncio.run(play_game(GOLDEN[case]))
    return normalize(trace.model_dump(mode="json"))


def ensure_registered() -> None:
    """Before ``pip install -e .`` the entry point does not exist: register the game's
    declaration from code. Once installed, Accord finds it through the entry point only."""
    try:
        metadata.distribution("meeting-point")
    except metadata.PackageNotFoundError:
        from accord.core.registry import register

        from meeting_point import INFO

        register(INFO)
