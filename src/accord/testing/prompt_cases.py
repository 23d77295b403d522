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

from accord.core.gameinfo import PromptCases
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec


def cases(game: str) -> PromptCases:
    """The prompt cases `game` (an id or alias) declares (`GameInfo.prompt_cases`)."""
    from accord.core.errors import ConfigError
    from accord.core.gameinfo import info_for, resolve_ref

    info = info_for(game)
    if info.prompt_cases is None:
        raise ConfigError(f"{info.game_id} declares no prompt cases (GameInfo.prompt_cases)")
    return resolve_ref(info.prompt_cases)


def seats(game: str, options: dict[str, Any]) -> int:
    """How many seats a case of `game` has."""
    return cases(game).seats(options)


async def transcripts(game: str) -> dict[str, Any]:
    """Every case's seat transcripts (the exact messages each model was sent)."""
    out: dict[str, Any] = {}
    for name, options in cases(game).cases.items():
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
