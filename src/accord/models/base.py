"""The model contract: `ChatModel.complete(messages, ...) -> Completion`.

`ChatModel` is the one protocol every model client and every layer over one speaks. Every
provider (hosted through LiteLLM, an OpenAI-compatible server, the bundled local model, the
mock) implements one attempt, `accord.models.client.ModelClient._complete_once`; retrying, the
per-provider pool, caching, answering from a trace and a fork's trace-first answering are
layers that wrap a `ChatModel` and are one themselves (`accord.models.client` lists them).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, Protocol, TypedDict

from accord.core.spec import JSONSchema
from accord.core.tools import ToolSpec as CoreToolSpec
from accord.models.limits import RateInfo

Role = Literal["system", "user", "assistant", "tool"]

# One tool offered to a model, in the OpenAI function format: ``{"type": "function",
# "function": {"name", "description", "parameters"}}`` (LiteLLM converts it for other APIs).
ToolSpec = CoreToolSpec


class Message(TypedDict):
    """One chat message. In tools mode (`accord.agents.tools`) an assistant message may carry
    the model's ``tool_calls`` (OpenAI format) and a ``tool`` message answers one of them by
    ``tool_call_id``; json mode never sets either key."""

    role: Role
    content: str
    tool_calls: NotRequired[list[dict[str, Any]]]
    tool_call_id: NotRequired[str]


@dataclass(frozen=True)
class ToolCall:
    """One tool call a model returned: its id, the tool's name and the arguments as the
    model wrote them (JSON text, parsed and validated by the agent)."""

    id: str
    name: str
    arguments: str

    def to_message(self) -> dict[str, Any]:
        """The call as it goes back into a conversation (OpenAI format)."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }

    @classmethod
    def from_message(cls, entry: dict[str, Any]) -> ToolCall:
        """The inverse of `to_message`."""
        function = entry.get("function") or {}
        return cls(
            id=str(entry.get("id", "")),
            name=str(function.get("name", "")),
            arguments=str(function.get("arguments", "")),
        )


@dataclass
class Usage:
    """Token counts of one call (or a sum of calls)."""

    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cached_input_tokens: int = 0
    """Input tokens the provider read from its prompt cache (part of ``input_tokens``)."""
    cache_write_tokens: int = 0
    """Input tokens the provider wrote to its prompt cache (part of ``input_tokens``;
    Anthropic charges them above the input price)."""

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
            self.cached_input_tokens + other.cached_input_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )

    @classmethod
    def total(cls, usages: Iterable[Usage]) -> Usage:
        """The sum of `usages` (a zero `Usage` for none)."""
        out = cls()
        for usage in usages:
            out = out + usage
        return out

    @classmethod
    def of(cls, counts: object) -> Usage:
        """The token counts of anything that carries `Usage`'s fields by name (a trace's
        ``SeatUsage``, a run monitor's totals); a missing field counts 0."""
        return cls(**{name: int(getattr(counts, name, 0) or 0) for name in TOKEN_FIELDS})

    def counts(self) -> dict[str, int]:
        """The fields by name (to build or update a record that carries them)."""
        return {name: getattr(self, name) for name in TOKEN_FIELDS}

    def add_to(self, target: object) -> None:
        """Add these counts to the fields of the same names that `target` has (a trace's
        ``SeatUsage`` accumulating its calls, a run monitor counting input and output)."""
        for name, value in (Usage.of(target) + self).counts().items():
            if hasattr(target, name):
                setattr(target, name, value)


TOKEN_FIELDS = (
    "input_tokens",
    "output_tokens",
    "reasoning_tokens",
    "cached_input_tokens",
    "cache_write_tokens",
)
"""The fields of `Usage`, in order."""


@dataclass
class Completion:
    """What a model call returns.

    Attributes:
        text: the reply text (for structured output: the JSON text).
        usage: token counts reported by the provider (or counted locally).
        latency_s: wall time of the successful attempt.
        cost_usd: price of the call where the model's prices are known, else ``None``.
        raw: provider-specific extras safe to store (never credentials).
        model: the ``provider/model`` string that answered.
        attempts: how many attempts the call took (1 = no retry).
        reasoning: hidden reasoning text when the provider returns it separately.
        rate: the server's rate-limit headers, when it sent them.
        tool_calls: the tool calls of the reply (tools mode only; empty otherwise).
    """

    text: str
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    cost_usd: float | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    model: str = ""
    attempts: int = 1
    reasoning: str | None = None
    rate: RateInfo | None = None
    """The server's rate-limit headers on this answer (read by the adaptive limit; not
    stored in traces)."""
    tool_calls: list[ToolCall] = field(default_factory=list)


class ChatModel(Protocol):
    """The one model-call protocol: a client (`accord.models.client.ModelClient`) and every
    layer over one (retrying, pool, cache, recorded replies, a fork's trace-first answers)."""

    @property
    def spec(self) -> str:
        """The ``provider/model`` this model answers for."""
        ...

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        response_schema: JSONSchema | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        session: str | None = None,
        deadline: float | None = None,
        tools: Sequence[ToolSpec] | None = None,
    ) -> Completion:
        """The next message of the conversation `messages` (see
        `accord.models.client.ModelClient.complete` for the arguments)."""
        ...

    async def aclose(self) -> None:
        """Release what the model holds for the running event loop."""
        ...
