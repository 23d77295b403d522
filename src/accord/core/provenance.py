"""Where a decision came from: the seat's agent, the agent after a retry, or a documented
fallback (DESIGN principles 8 and 10; seed 004 App. B: bounded retries, then a heuristic).

Provenance travels beside an action, never inside it (no in-band keys):

1. **While parsing**, a game's reply parser that accepts a reply not in the exact format calls
   `format_warning` for each problem it let pass; `parse_reply` runs the parser and returns the
   action and those warnings (an agent records each as an ``output_format_warning`` event).
2. **When retries run out** (or a person leaves, or the game rejects a built action), the one
   helper `use_fallback` builds the request's documented fallback action and records the
   ``heuristic_fallback`` event saying why.
3. **The runner** reads what was recorded while one request was answered with `from_events`
   (a ``heuristic_fallback`` event makes the decision a fallback, a ``validation_error`` a
   retry) and hands the action to the game with `submit`, which sets `Game.provenance` for
   the length of the game's ``submit`` call.

A game that keeps fallback metrics reads ``self.provenance.fallback`` in its ``submit`` (and
stores it if it applies the action later): see docs/writing-a-game.md, "Events and provenance".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from accord.core.errors import ModelError
from accord.core.spec import Action, ActionSpec

if TYPE_CHECKING:
    from accord.core.game import Game

Source = Literal["agent", "retry", "fallback"]
"""``agent``: the first answer was used; ``retry``: an answer after a correction was used;
``fallback``: the request's documented fallback action was used instead of any answer."""

FALLBACK_EVENT = "heuristic_fallback"
RETRY_EVENT = "validation_error"
WARNING_EVENT = "output_format_warning"


@dataclass(frozen=True)
class Provenance:
    """Where one decision came from.

    Attributes:
        source: agent, retry or fallback (`Source`).
        reason: why the fallback was used (the last error, a timeout), for fallbacks.
        warnings: format problems the parser let pass.
    """

    source: Source = "agent"
    reason: str | None = None
    warnings: tuple[str, ...] = ()

    @property
    def fallback(self) -> bool:
        """True when the decision is the request's fallback, not the agent's answer."""
        return self.source == "fallback"


AGENT = Provenance()
"""The provenance of an answer used as given (what a game sees when nobody says otherwise)."""


def fallback(reason: str) -> Provenance:
    """The provenance of a documented fallback used because of `reason`."""
    return Provenance(source="fallback", reason=reason)


# -- parsing ----------------------------------------------------------------------------------
_WARNINGS: ContextVar[list[str] | None] = ContextVar("accord_format_warnings", default=None)


def format_warning(message: str) -> None:
    """Note, from inside a reply parser, a format problem the parser let pass.

    Outside `parse_reply` (a parser called directly) the note is dropped.
    """
    collected = _WARNINGS.get()
    if collected is not None:
        collected.append(message)


def format_warnings(messages: Iterable[str]) -> None:
    """`format_warning` for each of `messages`, in order."""
    for message in messages:
        format_warning(message)


@contextmanager
def _collecting() -> Iterator[list[str]]:
    collected: list[str] = []
    token = _WARNINGS.set(collected)
    try:
        yield collected
    finally:
        _WARNINGS.reset(token)


def parse_reply(spec: ActionSpec, text: str) -> tuple[Action, list[str]]:
    """`spec.parse(text)` and the format warnings it noted (raises what the parser raises)."""
    with _collecting() as collected:
        action = spec.parse(text)
    return action, collected


# -- fallbacks --------------------------------------------------------------------------------
Record = Callable[..., None]
"""``record(type, **fields)``: how an agent or the runner appends a trace event."""


def use_fallback(spec: ActionSpec, reason: str, record: Record) -> Action:
    """The request's documented fallback action, recorded as a ``heuristic_fallback`` event
    naming `reason`: the one place a fallback decision is made and written down.

    Raises `ModelError` when the request has no fallback.
    """
    if spec.fallback is None:
        raise ModelError(f"no valid {spec.kind} answer and the request has no fallback: {reason}")
    action = spec.fallback()
    record(FALLBACK_EVENT, kind=spec.kind, error=reason, action=dict(action))
    return action


def from_events(events: Iterable[tuple[str, Mapping[str, Any]]]) -> Provenance:
    """The provenance of a decision from the ``(type, fields)`` events recorded while its
    request was answered (`use_fallback`, validation errors, format warnings)."""
    source: Source = "agent"
    reason: str | None = None
    warnings: list[str] = []
    for kind, fields in events:
        if kind == FALLBACK_EVENT:
            source, reason = "fallback", str(fields.get("error", ""))
        elif kind == RETRY_EVENT and source == "agent":
            source = "retry"
        elif kind == WARNING_EVENT:
            warnings.append(str(fields.get("warning", "")))
    return Provenance(source=source, reason=reason, warnings=tuple(warnings))


# -- handing the decision to the game ---------------------------------------------------------
def submit(game: Game, seat: int, action: Action, provenance: Provenance = AGENT) -> None:
    """`game.submit(seat, action)` with `game.provenance` telling where the action came from."""
    game.provenance = provenance
    try:
        game.submit(seat, action)
    finally:
        game.provenance = AGENT
