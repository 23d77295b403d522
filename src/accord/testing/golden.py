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
        game="negotiation-v3",
        options={"ratio": 0.5, "rounds": 2},
        seed=11,
        agents=[AgentSpec(agent="cooperative"), AgentSpec(agent="cooperative")],
    ),
    "negotiation-greedy-vs-split-rotating": GameSpec(
        trace_id="negotiation-greedy-vs-split-rotating",
        game="negotiation-v3",
        options={"ratio": 0.8, "rounds": 3, "projects": "rotating", "partner": "shifting"},
        seed=12,
        agents=[AgentSpec(agent="greedy"), AgentSpec(agent="equal-split")],
    ),
    # Calendar: the default small game (3 agents, 8 slots, 3 meetings of 2, direct messages)
    # with full enough calendars that every meeting displaces an errand.
    "calendar-follower-dm": GameSpec(
        trace_id="calendar-follower-dm",
        game="calendar-v2",
        options={"density": 0.8},
        seed=1,
        agents=[AgentSpec(agent="oracle-follower")] * 3,
    ),
    # Calendar: varied costs, every channel, meetings of 3, and a DM cap of 0, so that every
    # proposal is dropped (message_dropped) while the followers still schedule by the oracle.
    "calendar-follower-varied-capped": GameSpec(
        trace_id="calendar-follower-varied-capped",
        game="calendar-v2",
        options={
            "num_agents": 4,
            "participants_per_meeting": 3,
            "num_meetings": 2,
            "cost_setting": "varied",
            "channels": "all",
            "dm_cap": 0,
        },
        seed=4,
        agents=[AgentSpec(agent="oracle-follower")] * 4,
    ),
    "sorting-share-all-broadcast": GameSpec(
        trace_id="sorting-share-all-broadcast",
        game="sorting-v3",
        options={"n": 3, "k": 2, "backend": "broadcast", "mode": "random"},
        seed=21,
        agents=[AgentSpec(agent="share-all")] * 3,
    ),
    "sorting-share-all-kv-camoc": GameSpec(
        trace_id="sorting-share-all-kv-camoc",
        game="sorting-v3",
        options={"n": 2, "k": 3, "backend": "kv", "mode": "near_desc", "condition": "camoc"},
        seed=22,
        agents=[AgentSpec(agent="share-all")] * 2,
    ),
    "sorting-local-sort-p2p-prefix-sum": GameSpec(
        trace_id="sorting-local-sort-p2p-prefix-sum",
        game="sorting-v3",
        options={"n": 3, "k": 2, "backend": "p2p", "mode": "asc", "task": "prefix_sum"},
        seed=23,
        agents=[AgentSpec(agent="local-sort")] * 3,
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
