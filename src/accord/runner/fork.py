"""Forks: replay a game up to a point, then let another model or agent play one seat.

A fork is an ordinary game spec whose ``labels["fork"]`` says where and how to switch
(`ForkPoint`); `play_game` wraps that seat in a `SwitchAgent`. Requests of the seat before the
fork point (compared as ``(round, turn)``, the numbers each `Request` carries) go to the
original agent, which answers from the model cache exactly as in the parent game; from the
fork point on the new agent answers. A new LLM seat takes over the old one's conversation, so
it sees the game so far as if it had played it; a reference agent starts from what the
current request tells it. The other seats keep their agents: they answer from the cache while
the conversation is unchanged and call their model once it diverges.

Because the fork lives in the spec, a forked trace replays like any other (`accord replay`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from accord.agents.base import Agent, Recorder, no_record
from accord.agents.llm import LLMAgent
from accord.core.errors import ConfigError, ModelError
from accord.core.ids import MAX_ID_LEN, is_safe_id, slug
from accord.core.spec import Action, JSONSchema, Request
from accord.models.base import ChatModel, Completion, Message, ToolSpec, Usage
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.schema import SeatUsage, Trace


class ForkPoint(BaseModel):
    """Where a fork leaves its parent game, stored in the forked trace's ``run["fork"]``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    parent: str = Field(description="Trace id of the parent game.")
    round: int = Field(ge=0, description="Round of the first request the new agent answers.")
    turn: int = Field(ge=0, description="Turn (within the round) of that request.")
    seat: int = Field(ge=0, description="The seat that changes hands.")
    agent: AgentSpec = Field(description="Who plays the seat from the fork point on.")

    @property
    def at(self) -> tuple[int, int]:
        """``(round, turn)`` of the fork point."""
        return self.round, self.turn


def parse_at(text: str) -> tuple[int, int]:
    """``"3/2"`` -> ``(3, 2)``; ``"3"`` -> ``(3, 0)`` (the start of round 3)."""
    m = re.fullmatch(r"\s*(\d+)\s*(?:/\s*(\d+)\s*)?", text)
    if m is None:
        raise ConfigError(f"--at expects ROUND/TURN such as 2/1 (or just ROUND), got {text!r}")
    return int(m.group(1)), int(m.group(2) or 0)


def seat_index(trace: Trace, seat: str) -> int:
    """A seat given as its index (``0``) or its name in the trace (``A``)."""
    for info in trace.seats:
        if seat in (str(info.seat), info.name):
            return info.seat
    names = ", ".join(f"{s.seat} ({s.name})" for s in trace.seats)
    raise ConfigError(f"{trace.trace_id} has no seat {seat!r}; seats: {names}")


def fork_spec(
    parent: GameSpec, trace: Trace, at: tuple[int, int], seat: int, agent: AgentSpec
) -> GameSpec:
    """The spec of a fork of `parent` (rebuilt from `trace`) at `at`, `seat` played by `agent`."""
    if parent.labels.get("fork"):
        origin = parent.labels["fork"]["parent"]
        raise ConfigError(f"{trace.trace_id} is itself a fork; fork its parent {origin!r}")
    if agent.is_human:
        raise ConfigError("a fork cannot seat a person; give --model or a reference --agent")
    rounds = [e["round"] for e in trace.events if isinstance(e.get("round"), int)]
    if rounds and at[0] > max(rounds):
        raise ConfigError(
            f"{trace.trace_id} ended in round {max(rounds)}; choose --at within rounds "
            f"{min(rounds)}..{max(rounds)}"
        )
    from accord.runner.reply_budget import budgeted

    agent = budgeted(agent, parent.game)  # a served model's reply cap, stated in run.fork
    point = ForkPoint(parent=trace.trace_id, round=at[0], turn=at[1], seat=seat, agent=agent)
    trace_id = f"{trace.trace_id}.fork-r{at[0]}t{at[1]}-s{seat}-{slug(agent.display, fallback='x')}"
    if not is_safe_id(trace_id):
        raise ConfigError(
            f"the fork's trace id would be {len(trace_id)} characters, over {MAX_ID_LEN}; "
            "give the new player a shorter label"
        )
    return parent.model_copy(
        update={
            "trace_id": trace_id,
            "labels": {**parent.labels, "fork": point.model_dump(mode="json", exclude_none=True)},
        }
    )


def fork_point(spec: GameSpec) -> ForkPoint | None:
    """The fork a spec asks for, if any."""
    data = spec.labels.get("fork")
    return ForkPoint.model_validate(data) if data else None


class SwitchAgent(Agent):
    """`before` answers the seat's requests until the fork point, `after` from then on."""

    def __init__(self, before: Agent, after: Agent, point: ForkPoint) -> None:
        super().__init__()
        self.before = before
        self.after = after
        self.point = point
        self.spec = after.spec
        self.model = after.model
        self._switched = False

    async def act(self, request: Request, record: Recorder = no_record) -> Action:
        if (request.round, request.turn) < self.point.at:
            return await self.before.act(request, record)
        if not self._switched:
            self._switched = True
            record(
                "fork",
                parent=self.point.parent,
                turn=request.turn,
                replaced=self.before.spec,
                by=self.after.spec,
            )
            if isinstance(self.before, LLMAgent) and isinstance(self.after, LLMAgent):
                self.after.take_over(self.before)
        return await self.after.act(request, record)

    async def close(self) -> None:
        await self.before.close()
        await self.after.close()
        # The seat's usage is what both agents spent in it.
        self.usage = _sum(self.before.usage, self.after.usage)

    def transcript_json(self) -> dict[str, Any] | None:
        # After a switch between models the later agent holds the whole conversation.
        after = self.after.transcript_json() if self._switched else None
        return after if after is not None else self.before.transcript_json()

    def played_mode(self) -> str | None:
        return (self.after if self._switched else self.before).played_mode()

    def describe(self) -> dict[str, Any]:
        return {**self.after.describe(), "fork_of": self.before.describe()}


def _sum(a: SeatUsage, b: SeatUsage) -> SeatUsage:
    return SeatUsage(
        **(Usage.of(a) + Usage.of(b)).counts(),
        cost_usd=a.cost_usd + b.cost_usd,
        cost_known=a.cost_known and b.cost_known,
        calls=a.calls + b.calls,
        attempts=a.attempts + b.attempts,
        latency_s=a.latency_s + b.latency_s,
        decisions=a.decisions + b.decisions,
        fallbacks=a.fallbacks + b.fallbacks,
    )


class ForkCounts:
    """Model calls of a fork so far: answered from the parent trace, or asked of a model."""

    def __init__(self) -> None:
        self.from_trace = 0
        self.asked = 0


class TraceFirstModel:
    """A seat's model in a fork, a layer over two `accord.models.base.ChatModel`s: the parent
    trace's stored replies while the game asks what the parent was asked, the seat's live
    model (built on first use) once it asks something new. Before the fork point
    (`live_allowed` False) a question the trace cannot answer is an error, so no model is
    called there."""

    def __init__(
        self, recorded: ChatModel, live: Callable[[], ChatModel], counts: ForkCounts
    ) -> None:
        self.spec = recorded.spec
        self.recorded = recorded
        self._make_live = live
        self._live: ChatModel | None = None
        self.counts = counts
        self.live_allowed = False
        self.diverged = False

    def __repr__(self) -> str:
        return f"TraceFirstModel({self.spec!r})"

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
        from accord.models.recorded import ReplayDivergedError

        kwargs: dict[str, Any] = {
            "response_schema": response_schema,
            "temperature": temperature,
            "max_tokens": max_tokens,
            "seed": seed,
            "session": session,
            "deadline": deadline,
        }
        if tools is not None:  # json mode calls stay as they were
            kwargs["tools"] = tools

        if not self.diverged:
            try:
                completion = await self.recorded.complete(messages, **kwargs)
            except ReplayDivergedError as exc:
                if not self.live_allowed:
                    raise ForkUnanswerableError(
                        f"{exc} A fork answers every request before its point from the parent "
                        "trace; replay the trace (accord replay) to see where it changed."
                    ) from exc
                self.diverged = True  # from here on the conversation is the fork's own
            else:
                self.counts.from_trace += 1
                return completion
        if self._live is None:
            self._live = self._make_live()
        self.counts.asked += 1
        return await self._live.complete(messages, **kwargs)

    async def aclose(self) -> None:
        if self._live is not None:
            await self._live.aclose()


class ForkUnanswerableError(ModelError):
    """A request before the fork point that the parent trace does not hold."""


class ForkGate(Agent):
    """Lets a seat's `TraceFirstModel` call its live model only from the fork point on."""

    def __init__(self, inner: LLMAgent, client: TraceFirstModel, point: ForkPoint) -> None:
        super().__init__()
        self.inner = inner
        self.client = client
        self.point = point
        self.spec = inner.spec
        self.model = inner.model
        self.usage = inner.usage

    async def act(self, request: Request, record: Recorder = no_record) -> Action:
        self.client.live_allowed = (request.round, request.turn) >= self.point.at
        return await self.inner.act(request, record)

    async def close(self) -> None:
        await self.inner.close()
        await self.client.aclose()
        self.usage = self.inner.usage

    def transcript_json(self) -> dict[str, Any] | None:
        return self.inner.transcript_json()

    def played_mode(self) -> str | None:
        return self.inner.played_mode()

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()


def fork_seats(
    spec: GameSpec,
    parent: Trace,
    build: Callable[[AgentSpec, int | None, bool], Agent],
    counts: ForkCounts,
) -> list[Agent]:
    """The seats of a fork of `parent`: every model seat answers from the parent's stored
    replies up to the fork point, the forked seat's new player from the point on, and the
    other seats' models once the game has left the parent's path.

    Args:
        build: ``(agent spec, seat or None, live)`` -> an agent; with ``live`` False its model
            answers from the parent trace only (`accord.models.recorded.RecordedModel`).
    """
    point = fork_point(spec)
    assert point is not None
    seats: list[Agent] = []
    for i, agent in enumerate(spec.agents):
        if agent.model is None:
            seats.append(build(agent, i, True))
            continue
        recorded = build(agent, i, False)
        assert isinstance(recorded, LLMAgent)
        if i == point.seat:
            recorded.client = TraceFirstModel(recorded.client, _never_live, counts)
            after = build(point.agent, None, True)
            if isinstance(after, LLMAgent):  # counted as asked, like every later call
                counted = TraceFirstModel(after.client, _lazy(after.client), counts)
                counted.diverged = True
                after.client = counted
            seats.append(SwitchAgent(recorded, after, point))
            continue
        live_agent = build(agent, i, True)
        assert isinstance(live_agent, LLMAgent)
        client = TraceFirstModel(recorded.client, _lazy(live_agent.client), counts)
        recorded.client = client
        seats.append(ForkGate(recorded, client, point))
    return seats


def _never_live() -> ChatModel:
    raise AssertionError("the forked seat's old player never answers after the fork point")


def _lazy(client: ChatModel) -> Callable[[], ChatModel]:
    return lambda: client
