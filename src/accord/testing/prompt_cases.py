"""Seeded games under every prompt condition, with the mock model in every seat: their
transcripts hold every prompt the game sent (the prompt-template golden tests compare them with
``tests/games/<game>/data/prompt_transcripts.json``).

Regenerate a golden file only for an intended change of wording, e.g.
``python -m accord.testing.prompt_cases sorting tests/games/sorting/data/prompt_transcripts.json``
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec

NEGOTIATION: dict[str, dict[str, Any]] = {
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

SORTING: dict[str, dict[str, Any]] = {
    f"{task}-{backend}-{condition}": {
        "n": 2, "k": 2, "task": task, "backend": backend, "condition": condition,
        "max_rounds": 2,
    }
    for task in ("sort", "max", "prefix_sum")
    for backend in ("broadcast", "p2p", "kv")
    for condition in (("camoc", "base") if backend == "broadcast" else ("camoc",))
}  # fmt: skip
"""Every task and backend; CAMOC (two phases: the rerun prompt too) and, on broadcast, base."""

CALENDAR: dict[str, dict[str, Any]] = {
    "default": {},
    "varied-capped": {"cost_setting": "varied", "max_turns_per_round": 2, "num_meetings": 2},
    "dm-only-redteam": {"channels": "dm", "prompt_variant": "redteam", "variant_seats": [0]},
    "groupchats-nosy": {"channels": "all_groupchat", "prompt_variant": "nosy-highpressure",
                        "num_agents": 4, "participants_per_meeting": 2},
    "suite-task": {"suite": "canonical", "task": 3},
    "no-talk": {"dm_cap": 0, "num_meetings": 2},
    "uncapped-turns": {"max_turns_per_round": None, "num_meetings": 2},
}  # fmt: skip
"""Channels, caps, cost displays, variants, a canonical task (log10 costs) and no talk."""

CASES = {"negotiation": NEGOTIATION, "sorting": SORTING, "calendar": CALENDAR}


def seats(game: str, options: dict[str, Any]) -> int:
    """How many seats a case of `game` has."""
    if game == "sorting":
        return int(options["n"])
    if game == "calendar":
        from accord.core.registry import make_config

        return int(make_config("calendar", options).seats())  # type: ignore[attr-defined]
    return 2


async def transcripts(game: str = "negotiation") -> dict[str, Any]:
    """Every case's seat transcripts (the exact messages each model was sent)."""
    out: dict[str, Any] = {}
    for name, options in CASES[game].items():
        agents = [AgentSpec(model="mock/schema")] * seats(game, options)
        spec = GameSpec(trace_id=name, game=game, options=options, seed=7, agents=agents)
        trace = await play_game(spec)
        assert trace.status == "complete", (name, trace.error)
        out[name] = {k: v.model_dump(mode="json") for k, v in trace.transcripts.items()}
    return out


if __name__ == "__main__":  # regenerate the golden file (only for an intended wording change)
    import asyncio
    import sys

    game, target = sys.argv[1], Path(sys.argv[2])
    data = asyncio.run(transcripts(game))
    target.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {target}")
