"""Blame by fork sweep: where a finished game was lost, and what each message was worth.

For a finished game, `blame_game` first re-plays it from its trace with every seat's actions
tapped, which lists its *decision points* (each request a seat answered, in order). Then, for
each decision point, it plays two forks to the end:

- **seat fork**: from that decision on, the seat that decided there is played by the game's
  counterfactual seat (`accord.core.blame.Blame.counterfactual`: its oracle-follower or best
  reference agent) or an agent the caller names; every other seat keeps its agent;
- **withheld message** (decisions that send one): the same game, with that one decision's
  message taken out (`Blame.silence`).

Before the fork point every model seat answers from the trace's stored replies, so no model is
called there (`accord.runner.fork.TraceFirstModel`); after it a model seat answers from the
trace while its conversation is unchanged and calls its model once it diverges.

A game's *blame step* is the last decision from which a seat fork still reaches the game's
recovered outcome (`Blame.recovered`): the decision that lost the game. Every later fork
fails. A message's *value* is the outcome (`Blame.outcome`) with it minus the outcome without
it. `accord.analysis.blame_run` sweeps a run and summarises both across games.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from accord.agents.base import Agent, Recorder, no_record
from accord.agents.llm import LLMAgent
from accord.analysis.blame_models import Fork, GameBlame, MessageValue
from accord.core.blame import Blame
from accord.core.errors import ConfigError
from accord.core.gameinfo import info_or_none
from accord.core.registry import make
from accord.core.spec import Action, Request
from accord.runner.fork import ForkCounts, TraceFirstModel
from accord.runner.play import build_agent, build_agents, play_game
from accord.runner.replay import spec_from_trace
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.schema import Trace


@dataclass(frozen=True)
class Decision:
    """One request a seat answered, in the order the game asked."""

    index: int
    seat: int
    nth: int
    """How many requests this seat had answered before this one."""
    round: int
    turn: int
    message: bool
    """The action sent a message that `Blame.silence` can take out."""
    event: int = 0
    """Index of the first trace event of the step this decision belongs to (the replay
    page's scrubber position)."""


def declaration(trace: Trace) -> Blame:
    """The blame declaration of a trace's game (ConfigError when it has none)."""
    info = info_or_none(trace.game_id)
    if info is None or info.blame is None:
        raise ConfigError(
            f"{trace.trace_id}: {trace.game_id} declares no blame (GameInfo.blame); blame "
            "games of a game that does"
        )
    return info.blame


class _Wrap(Agent):
    """A seat answered by `inner` (subclasses change some of its answers)."""

    def __init__(self, inner: Agent) -> None:
        super().__init__()
        self.inner = inner
        self.spec, self.model, self.usage = inner.spec, inner.model, inner.usage
        self.nth = 0
        """Requests this seat has answered so far."""

    async def act(self, request: Request, record: Recorder = no_record) -> Action:
        self.nth += 1
        return await self.inner.act(request, record)

    async def start(self, seat: int, record: Recorder = no_record) -> None:
        await self.inner.start(seat, record)

    async def close(self) -> None:
        await self.inner.close()
        self.usage = self.inner.usage

    def transcript_json(self) -> dict[str, Any] | None:
        return self.inner.transcript_json()

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()


class _Count:
    """Counts the events a game has streamed so far (an `accord.runner.live.EventSink`): a
    step's events are streamed once all its requests are answered, so at a decision the
    count is the index of its step's first event."""

    def __init__(self) -> None:
        self.events = 0


class _Sink:
    """The `accord.runner.live.EventSink` that feeds a `_Count`."""

    def __init__(self, count: _Count) -> None:
        self.count = count

    def begin(self, game_id: str, seat_names: list[str]) -> None:
        """Nothing to note."""

    def events(self, batch: list[dict[str, Any]]) -> None:
        self.count.events += len(batch)


class _Tap(_Wrap):
    """Answers as `inner` and notes each decision (seat, round, turn, whether it spoke)."""

    def __init__(
        self, inner: Agent, seat: int, out: list[Decision], blame: Blame, seen: _Count
    ) -> None:
        super().__init__(inner)
        self.seat, self.out, self.blame, self.seen = seat, out, blame, seen

    async def act(self, request: Request, record: Recorder = no_record) -> Action:
        action = await self.inner.act(request, record)
        silent = self.blame.silence(dict(action))
        self.out.append(
            Decision(
                len(self.out), self.seat, self.nth, request.round, request.turn,
                silent is not None and silent != action, self.seen.events,
            )
        )  # fmt: skip
        self.nth += 1
        return action


class _Switch(_Wrap):
    """`inner` answers the seat's first `at` requests, `after` every later one."""

    def __init__(self, inner: Agent, after: Agent, at: int) -> None:
        super().__init__(inner)
        self.after, self.at = after, at

    async def act(self, request: Request, record: Recorder = no_record) -> Action:
        self.nth += 1
        if self.nth - 1 < self.at:
            return await self.inner.act(request, record)
        first = self.nth - 1 == self.at
        if first and isinstance(self.inner, LLMAgent) and isinstance(self.after, LLMAgent):
            self.after.take_over(self.inner)  # the new model sees the game so far
        return await self.after.act(request, record)

    async def close(self) -> None:
        await self.inner.close()
        await self.after.close()
        self.usage = self.inner.usage

    def transcript_json(self) -> dict[str, Any] | None:
        after = self.after.transcript_json() if self.nth > self.at else None
        return after if after is not None else self.inner.transcript_json()


class _Withhold(_Wrap):
    """`inner` with the message of its answer to request number `at` taken out."""

    def __init__(self, inner: Agent, at: int, silence: Callable[[Action], Action | None]) -> None:
        super().__init__(inner)
        self.at, self.silence = at, silence

    async def act(self, request: Request, record: Recorder = no_record) -> Action:
        action = await self.inner.act(request, record)
        self.nth += 1
        if self.nth - 1 == self.at:
            return self.silence(dict(action)) or action
        return action


def _seats(spec: GameSpec, trace: Trace, counts: ForkCounts) -> list[Agent]:
    """The game's own seats, each model answering from the stored replies while its
    conversation is the recorded one and from its live model once it diverges."""
    game = make(spec.game, spec.options)
    recorded = build_agents(spec, game, recorded=trace)
    if not any(a.model for a in spec.agents):
        return recorded
    live = build_agents(spec, game)
    seats: list[Agent] = []
    for rec, fresh in zip(recorded, live, strict=True):
        if isinstance(rec, LLMAgent) and isinstance(fresh, LLMAgent):
            client = TraceFirstModel(rec.client, _lazy(fresh), counts)
            client.live_allowed = True
            rec.client = client
        seats.append(rec)
    return seats


def _lazy(agent: LLMAgent) -> Callable[[], Any]:
    return lambda: agent.client


async def decisions(trace: Trace) -> tuple[list[Decision], Trace]:
    """The decision points of a game and its re-play (which must equal the trace's outcome)."""
    blame = declaration(trace)
    spec = spec_from_trace(trace)
    out: list[Decision] = []
    seen = _Count()
    seats: list[Agent] = [
        _Tap(a, i, out, blame, seen) for i, a in enumerate(_seats(spec, trace, ForkCounts()))
    ]
    replayed = await play_game(spec, agents=seats, sink=_Sink(seen))
    if replayed.metrics != trace.metrics:
        raise ConfigError(
            f"{trace.trace_id}: the game re-played from its trace ends differently; run "
            "accord verify on the run to see where"
        )
    return out, replayed


async def play_fork(
    trace: Trace,
    at: Decision,
    *,
    kind: str,
    agent: AgentSpec | None = None,
) -> tuple[Trace, ForkCounts]:
    """One fork of `trace` at decision `at`: ``kind`` "seat" (the seat played by `agent`, the
    game's counterfactual seat by default, from `at` on) or "withhold" (its message out)."""
    blame = declaration(trace)
    spec = spec_from_trace(trace)
    counts = ForkCounts()
    seats = _seats(spec, trace, counts)
    if kind == "seat":
        new = agent or AgentSpec(agent=blame.counterfactual)
        after = build_agent(new, trace.game_id, seed=spec.seed, session=spec.trace_id)
        if isinstance(after, LLMAgent):
            counted = TraceFirstModel(after.client, _lazy(after), counts)
            counted.diverged = True  # every call of the new player is asked of its model
            after.client = counted
        seats[at.seat] = _Switch(seats[at.seat], after, at.nth)
    else:
        seats[at.seat] = _Withhold(seats[at.seat], at.nth, blame.silence)
    fork = spec.model_copy(update={"trace_id": f"{trace.trace_id}.blame-{kind}-{at.index}"})
    return await play_game(fork, agents=seats), counts


def estimate_cost(trace: Trace, points: Sequence[Decision]) -> float:
    """A fork's model calls after its point, priced at the trace's mean cost per call
    (seat forks and withheld messages alike), summed over the sweep."""
    total = trace.usage.get("total")
    if total is None or total.calls == 0 or not points:
        return 0.0
    per_call = total.cost_usd / total.calls
    n = len(points)
    after = [total.calls * (n - p.index) / n for p in points]
    share = sum(after) + sum(a for a, p in zip(after, points, strict=True) if p.message)
    return per_call * share


async def blame_game(
    trace: Trace,
    *,
    agent: AgentSpec | None = None,
    on_fork: Callable[[], None] | None = None,
) -> GameBlame:
    """Fork `trace` at every decision point (see the module docstring)."""
    blame = declaration(trace)
    points, _ = await decisions(trace)
    forks: list[Fork] = []
    messages: list[MessageValue] = []
    base = blame.outcome(trace)
    for point in points:
        kinds = ["seat", "withhold"] if point.message else ["seat"]
        for kind in kinds:
            played, counts = await play_fork(trace, point, kind=kind, agent=agent)
            ok = played.status == "complete"
            forks.append(
                Fork(
                    decision=point.index, seat=point.seat, round=point.round, turn=point.turn,
                    kind=kind, status=played.status,
                    recovered=ok and blame.recovered(played),
                    outcome=blame.outcome(played) if ok else None,
                    calls_asked=counts.asked,
                )
            )  # fmt: skip
            if kind == "withhold" and ok:
                messages.append(
                    MessageValue(
                        decision=point.index, seat=point.seat, round=point.round,
                        turn=point.turn, value=base - blame.outcome(played),
                    )
                )  # fmt: skip
            if on_fork is not None:
                on_fork()
    saved = [f.decision for f in forks if f.kind == "seat" and f.recovered]
    step = max(saved) if saved else None
    at = points[step] if step is not None else None
    return GameBlame(
        trace_id=trace.trace_id,
        game_id=trace.game_id,
        players=" vs ".join(s.agent for s in trace.seats),
        condition=str(trace.run.get("batch") or trace.run.get("pairing") or ""),
        outcome=base,
        recovered=blame.recovered(trace),
        decisions=len(points),
        blame_step=step,
        blame_seat=at.seat if at else None,
        blame_round=at.round if at else None,
        blame_turn=at.turn if at else None,
        blame_event=at.event if at else None,
        messages=messages,
        forks=forks,
    )
