"""The bombardment check: every seat played by a model that answers at random, but always
within the reply schema (the ``mock/schema`` model), over many seeds.

Fallback play (the rest of the conformance suite) walks one narrow path through a game; random
schema-valid replies walk many: odd but well-formed moves, moves the rules refuse, messages of
every length. The game must take each one as data (DESIGN principle 10): a reply its parser or
rules refuse becomes a ``validation_error`` or ``invalid_action`` event, the seat is asked again,
and after the retries the request's documented fallback is played. Since every request of a
conforming game has a fallback (`check_api`), every such game must end ``complete``; an
exception out of the game ends it ``failed`` and fails the check, naming the seed.

Use it from a test: ``accord.testing.check_bombardment("my-game-v1")``.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from accord.core.registry import make
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec

RANDOM_MODEL = "mock/schema"
"""The model in every seat: a JSON value valid against each request's reply schema, drawn
from the conversation and the seed (`accord.models.mock`)."""

INVALID_EVENTS = ("validation_error", "invalid_action", "heuristic_fallback")
"""The documented invalid-action path: refused by the parser, refused by the rules, and the
fallback played after the retries."""


@dataclass
class Bombardment:
    """What a bombardment saw.

    Attributes:
        game_id: the game played.
        games: how many games were played (one per seed), all complete.
        events: how often each event type occurred, over every game.
    """

    game_id: str
    games: int = 0
    events: Counter[str] = field(default_factory=Counter)

    @property
    def invalid(self) -> int:
        """Replies that took the invalid-action path (parser or rules refused them)."""
        return sum(self.events[kind] for kind in INVALID_EVENTS)


def _event_type(event: Any) -> str:
    if isinstance(event, Mapping):
        return str(event.get("type"))
    return str(getattr(event, "type", "?"))


def check_bombardment(
    game_id: str,
    seeds: Iterable[int] = range(20),
    options: Mapping[str, Any] | None = None,
) -> Bombardment:
    """Play one game per seed with ``mock/schema`` in every seat; each must end ``complete``.

    Args:
        game_id: a registered game id or alias.
        seeds: the game seeds (the random model's replies follow from each game's prompts).
        options: game options (default: the game's defaults).

    Returns:
        The counts of what happened, e.g. to check that some replies were refused.

    Raises:
        AssertionError: naming the game, the seed and the error of a game that did not end
            ``complete``.
    """
    seats = make(game_id, options).num_seats
    report = Bombardment(game_id)
    for seed in seeds:
        spec = GameSpec(
            trace_id=f"bombard-{seed}",
            game=game_id,
            options=dict(options or {}),
            seed=seed,
            agents=[AgentSpec(model=RANDOM_MODEL)] * seats,
        )
        trace = asyncio.run(play_game(spec))
        assert trace.status == "complete", (
            f"{game_id}: seed {seed} played by {RANDOM_MODEL} ended {trace.status}: {trace.error}"
        )
        assert trace.seat_rows and len(trace.seat_rows) == seats, (
            f"{game_id}: seed {seed} ended without one result row per seat"
        )
        report.games += 1
        report.events.update(_event_type(e) for e in trace.events)
    assert report.games, f"{game_id}: no seeds given"
    return report
