"""What a game asks for and what an agent answers.

A game is a state machine (DESIGN principle 1). It publishes `Request`s; each names a seat, the
text that seat observes, and an `ActionSpec` saying what a valid answer is. Several requests may
be pending at once (simultaneous moves); the runner answers them concurrently.

An `Action` is a plain JSON-able dict. LLM agents produce it by parsing model text with
`ActionSpec.parse`; reference agents build it directly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from accord.core.tools import ToolSet

Action = dict[str, Any]
"""A JSON-able answer to a request. Its keys are defined by the request's `ActionSpec`."""

JSONSchema = dict[str, Any]


@dataclass(frozen=True)
class ActionSpec:
    """What a valid answer to one request looks like.

    Attributes:
        kind: a short name of the decision type, e.g. ``"talk"``, ``"decide"``, ``"reflect"``.
        parse: turns model text into an `Action`; raises `ActionError` whose message tells the
            model exactly what was wrong (it is sent back verbatim on retry).
        schema: JSON schema of the reply text, with a length cap on every string, used by
            providers that can constrain output (the local provider compiles it to a grammar).
            ``None`` means free text.
        fallback: the documented heuristic action used when retries are exhausted.
        validate: checks an already-built `Action` (from reference agents or a person);
            raises `ActionError`. Defaults to accepting anything `parse` would produce.
        format_hint: one line reminding the model of the expected format on retry.
        tools: the tools a model seat in tools mode is offered for this request, when the
            game declares them; ``None``: derived from `schema` (`accord.core.tools`).
    """

    kind: str
    parse: Callable[[str], Action]
    schema: JSONSchema | None = None
    fallback: Callable[[], Action] | None = None
    validate: Callable[[Action], Action] | None = None
    format_hint: str = ""
    tools: ToolSet | None = None


@dataclass(frozen=True)
class Request:
    """One decision a seat must make now.

    Attributes:
        seat: 0-based seat index.
        observation: the text the seat sees now (for an LLM seat: the next user message).
        spec: what a valid answer looks like.
        system: the system prompt of the seat's conversation. An LLM agent starts its
            conversation with it and restarts it when `reset_context` is true.
        reset_context: drop the seat's conversation history before this request (the
            "shifting partner" condition: a fresh opponent that remembers nothing).
        ephemeral: a measurement-only prompt; the exchange is not added to the seat's history.
        info: structured facts for non-LLM agents (scenario slice, round, etc.). Never contains
            another seat's private information unless the game's rules reveal it.
        round: the round index (1-based) this request belongs to, for traces.
        turn: the turn index inside the round, for traces.
        tools_system: the system prompt for a model seat acting through native tool calls
            (``action_mode: tools``, `accord.agents.tools`): the same prompt with the reply
            format told as tool calls, never as a JSON envelope. ``None``: `system` serves both.
        tools_observation: `observation` worded for such a seat (no JSON-envelope
            instructions); ``None``: `observation` serves both.
    """

    seat: int
    observation: str
    spec: ActionSpec
    system: str | None = None
    reset_context: bool = False
    ephemeral: bool = False
    info: dict[str, Any] = field(default_factory=dict)
    round: int = 0
    turn: int = 0
    tools_system: str | None = None
    tools_observation: str | None = None
