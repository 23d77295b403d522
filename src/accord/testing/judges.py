"""Conformance checks for the LLM judges a game declares (``GameInfo.judges``).

The rule every judge is held to: a judge that judged nothing must say so. ``accord judge``
exits 1 when a judge returns an error line, so a judge whose model never gave one valid
verdict must return ``judged == 0`` with an error naming what to do; exiting 0 would let
its empty tables pass for a clean audit (a judge VPS of 0 reads as "no leakage"). Tables it
still writes leave the judge's columns empty, never 0 (each game's own tests check its
columns; their names differ from game to game).

Use it from a test: ``accord.testing.check_judges("calendar-v2")``.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Iterable
from pathlib import Path

from accord.core.gameinfo import JudgeRun, info_for, resolve_ref
from accord.core.registry import make
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.schema import Trace

SILENT_JUDGE = "mock/echo"
"""A judge model that never gives a verdict: it repeats the last user message, which is the
case put to the judge, never the JSON verdict asked for."""

PLAYER = "mock/schema"
"""The model in every seat of the games judged: random schema-valid replies, so the games
talk, fail and finish in many ways without any server."""


def _games(game_id: str, seeds: Iterable[int]) -> list[Trace]:
    seats = make(game_id).num_seats
    traces = []
    for seed in seeds:
        spec = GameSpec(
            trace_id=f"judged-{seed}",
            game=game_id,
            seed=seed,
            agents=[AgentSpec(model=PLAYER)] * seats,
        )
        traces.append(asyncio.run(play_game(spec)))
    return traces


def check_judges(game_id: str, seeds: Iterable[int] = range(3)) -> int:
    """Run every judge `game_id` declares with a model that never answers validly, on games
    played by ``mock/schema``; each must report 0 judged with an error line.

    Returns:
        How many judges were checked (0 when the game declares none).

    Raises:
        AssertionError: naming the game and judge that found nothing to judge in the games
            played, or that judged nothing and still reported success.
    """
    judges = info_for(game_id).judges
    if not judges:
        return 0
    traces = _games(game_id, seeds)
    for judge in judges:
        chosen = judge.select(traces)
        assert chosen, (
            f"{game_id}: judge {judge.name!r} selects none of {len(traces)} games played by "
            f"{PLAYER}; its select() must accept the games it is declared for"
        )
        said: list[str] = []
        with tempfile.TemporaryDirectory() as tmp:
            job = JudgeRun(
                model=SILENT_JUDGE,
                options={},
                out=Path(tmp) / "judge",
                concurrency=2,
                say=said.append,
            )
            result = resolve_ref(judge.run)(chosen, job)
        assert result.judged == 0, (
            f"{game_id}: judge {judge.name!r} counts {result.judged} games or cases judged "
            f"by {SILENT_JUDGE}, which never gives a verdict"
        )
        assert result.error, (
            f"{game_id}: judge {judge.name!r} judged nothing but returned no error, so "
            "`accord judge` would exit 0 on an empty audit; return JudgeResult(0, error) "
            "with the reasons"
        )
        assert said, f"{game_id}: judge {judge.name!r} printed no progress line"
    return len(judges)
