"""The sorting game's events (MAS-Bench, seed 003 App. F), as typed trace events.

Declared on `SortingGame.event_types`; `accord.traces.events.as_game_events` reads a trace's
game events as these models and ``accord trace-schema --game sorting`` describes them. Every
model keeps fields it does not name.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from accord.traces.events import GameEvent


class PhaseStart(GameEvent):
    """A phase begins (a rerun phase starts from the previous phase's submissions)."""

    type: Literal["phase_start"] = "phase_start"
    phase: int
    rerun: bool = False
    prev: list[Any] = Field(default_factory=list)


class Turn(GameEvent):
    """One agent's reply in a round and the commands it ran. ``failed``: the model call
    failed or the reply was the documented fallback (App. F.3 error reply)."""

    type: Literal["turn"] = "turn"
    phase: int
    round: int
    seat: int
    text: str | None = None
    failed: bool = False
    no_command: bool = False
    commands: list[dict[str, Any]] = Field(default_factory=list)
    tokens_est: dict[str, Any] = Field(default_factory=dict)


class RoundEnd(GameEvent):
    """A round ends; ``active`` agents have not submitted yet."""

    type: Literal["round_end"] = "round_end"
    phase: int
    round: int
    active: list[int]


class Submission(GameEvent):
    """An agent submits its final list, kept as ``event["values"]`` (``values`` is the
    mapping method of an event, so the field is not declared)."""

    type: Literal["submission"] = "submission"
    phase: int
    round: int
    seat: int
    correct: bool


class PhaseEnd(GameEvent):
    """A phase ends with every agent's submission and whether it was correct."""

    type: Literal["phase_end"] = "phase_end"
    phase: int
    rounds: int
    submissions: list[Any]
    correct: list[Any]


class GameEnd(GameEvent):
    """The game's end: success rate and success."""

    type: Literal["game_end"] = "game_end"
    sr: int | float
    success: int | float


EVENT_TYPES: tuple[type[GameEvent], ...] = (
    PhaseStart,
    Turn,
    RoundEnd,
    Submission,
    PhaseEnd,
    GameEnd,
)
"""Every event the sorting game emits."""
