"""Golden traces (DESIGN principle 10): small scripted games whose traces are committed.

Each game declares its cases (`accord.core.gameinfo.GameInfo.golden`); `golden_cases()` lists
them all; `golden_trace(case)` plays one; `normalize` drops what legitimately
changes between runs (timestamps, package version). ``scripts/regen_golden.py`` rewrites the
committed files; a test diffs fresh traces against them.
"""

from __future__ import annotations

import asyncio
from typing import Any

from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec


def golden_cases() -> dict[str, GameSpec]:
    """Every installed game's golden cases (`GameInfo.golden`), by name."""
    from accord.core.gameinfo import all_infos, resolve_ref

    cases: dict[str, GameSpec] = {}
    for info in all_infos():
        for name, case in (resolve_ref(info.golden) if info.golden else {}).items():
            cases[name] = GameSpec(
                trace_id=name,
                game=info.game_id,
                options=dict(case.get("options") or {}),
                seed=int(case.get("seed", 0)),
                agents=[AgentSpec(agent=a) for a in case["agents"]],
            )
    return cases


def __getattr__(name: str) -> Any:
    if name == "GOLDEN":  # the older name: a table, now built from the game declarations
        return golden_cases()
    raise AttributeError(name)


VOLATILE = ("started_at", "ended_at", "accord_version")


def golden_trace(case: str) -> dict[str, Any]:
    """Play a golden case and return its normalized trace."""
    trace = asyncio.run(play_game(golden_cases()[case]))
    return normalize(trace.model_dump(mode="json"))


def normalize(trace: dict[str, Any]) -> dict[str, Any]:
    """A trace without the fields that differ between identical runs."""
    return {k: v for k, v in trace.items() if k not in VOLATILE}
