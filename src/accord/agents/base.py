"""The agent contract: answer a game's `Request` with an `Action`.

Agents live outside games (DESIGN principle 1). An LLM agent turns requests into model calls;
a reference agent computes its answer; a human agent asks a person. All of them report what
happened (retries, fallbacks) through a `Recorder`, which the runner puts in the trace.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from accord.core.spec import Action, Request
from accord.traces.schema import SeatUsage

Recorder = Callable[..., None]
"""``record(type, **fields)``: append an agent event (seat is added by the runner)."""


def no_record(type_: str, **fields: Any) -> None:
    """The `Recorder` that keeps nothing: the default of `Agent.act` outside a runner."""
    del type_, fields


_no_record = no_record  # the older private name, still used inside this package


class Agent(ABC):
    """One seat's decision maker for one game.

    Attributes:
        spec: the string the agent was built from (model string or reference name).
        model: ``provider/model`` for LLM agents, else ``None``.
    """

    spec: str = "agent"
    model: str | None = None

    def __init__(self) -> None:
        self.usage = SeatUsage()

    @abstractmethod
    async def act(self, request: Request, record: Recorder = _no_record) -> Action:
        """Answer `request` with a valid action (or the spec's documented fallback)."""

    async def start(self, seat: int, record: Recorder = _no_record) -> None:  # noqa: B027
        """The game has started and this agent holds `seat` (called once, before the first
        request to any seat; default: nothing). A remote seat registers here, says how to
        join and starts its agent process, so the agent is ready when its turn comes."""

    async def close(self) -> None:  # noqa: B027  (optional hook; most agents hold nothing)
        """Release resources at the end of a game (default: nothing)."""

    def transcript_json(self) -> dict[str, Any] | None:
        """The seat's model conversation for the trace (`accord.agents.transcript`), if any."""
        return None

    def table_name(self, configured: str) -> str:
        """The seat's name in tables, given its configured name (default: that name; a remote
        seat adds what its agent says it is)."""
        return configured

    def played_mode(self) -> str | None:
        """How this seat's model acted (``json`` or ``tools``, `accord.agents.tools`), or
        ``None`` for a seat that calls no model; recorded on the trace's seat."""
        return None

    def describe(self) -> dict[str, Any]:
        """JSON-able description of this agent for the trace (never secrets)."""
        return {"agent": self.spec, "model": self.model}
