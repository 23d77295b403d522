"""Seeded negotiation games under every prompt condition, with the mock model in both seats:
their transcripts hold every prompt the game sent (the prompt-template golden test compares
them with ``tests/games/negotiation/data/prompt_transcripts.json``).

Regenerate the golden file only for an intended change of wording:
``python -m accord.testing.prompt_cases tests/games/negotiation/data/prompt_transcripts.json``
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec

CASES: dict[str, dict[str, Any]] = {
    "default": {"rounds": 3},
    "no-thinking": {"rounds": 2, "thinking": False},
    "no-talk": {"rounds": 2, "cheap_talk": False},
    "shifting-rotating": {"rounds": 3, "partner": "shifting", "projects": "rotating"},
    "transparency-joint": {"rounds": 2, "transparency": "joint", "projects": "rotating"},
    "transparency-full-tom": {
        "rounds": 2, "transparency": "full", "intervention": "theory_of_mind",
    },
    "share-projects-reminder": {
        "rounds": 2, "intervention": "share_projects", "json_reminder": "always",
    },
    "themes-per-round-unlimited": {
        "rounds": 3, "theme_per": "round", "talk_turns": 0, "max_talk_messages": 6,
    },
    "joint-goal-no-reflection": {"rounds": 2, "joint_goal": True, "reflection": False},
}  # fmt: skip


async def transcripts() -> dict[str, Any]:
    """Every case's seat transcripts (the exact messages each model was sent)."""
    out: dict[str, Any] = {}
    for name, options in CASES.items():
        seat = AgentSpec(model="mock/schema")
        spec = GameSpec(
            trace_id=name, game="negotiation", options=options, seed=7, agents=[seat, seat]
        )
        trace = await play_game(spec)
        assert trace.status == "complete", (name, trace.error)
        out[name] = {k: v.model_dump(mode="json") for k, v in trace.transcripts.items()}
    return out


if __name__ == "__main__":  # regenerate the golden file (only for an intended wording change)
    import asyncio
    import sys

    target = Path(sys.argv[1])
    target.write_text(json.dumps(asyncio.run(transcripts()), indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {target}")
