"""Golden traces (DESIGN principle 10): small scripted games whose traces are committed.

`GOLDEN` lists them; `golden_trace(case)` plays one; `normalize` drops what legitimately
changes between runs (timestamps, package version). ``scripts/regen_golden.py`` rewrites the
committed files; a test diffs fresh traces against them.
"""

from __future__ import annotations

import asyncio
from typing import Any

from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec

GOLDEN: dict[str, GameSpec] = {
    "negotiation-coop-0.5": GameSpec(
        trace_id="negotiation-coop-0.5",
        game="negotiation-v1",
        options={"ratio": 0.5, "rounds": 2},
        seed=11,
        agents=[AgentSpec(agent="cooperative"), AgentSpec(agent="cooperative")],
    ),
    "negotiation-greedy-vs-split-rotating": GameSpec(
        trace_id="negotiation-greedy-vs-split-rotating",
        game="negotiation-v1",
        options={"ratio": 0.8, "rounds": 3, "projects": "rotating", "partner": "shifting"},
        seed=12,
        agents=[AgentSpec(agent="greedy"), AgentSpec(agent="equal-split")],
    ),
}

VOLATILE = ("started_at", "ended_at", "accord_version")


def golden_trace(case: str) -> dict[str, Any]:
    """Play a golden case and return its normalized trace."""
    trace = asyncio.run(play_game(GOLDEN[case]))
    return normalize(trace.model_dump(mode="json"))


def normalize(trace: dict[str, Any]) -> dict[str, Any]:
    """A trace without the fields that differ between identical runs."""
    return {k: v for k, v in trace.items() if k not in VOLATILE}
