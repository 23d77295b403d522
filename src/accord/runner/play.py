"""Play one game: build its seats, drive the state machine, return the trace.

All requests pending at once are answered concurrently (simultaneous moves, DESIGN principle
1). The events agents record while answering are numbered after all of them have answered, in
request order, so a trace does not depend on which model happened to reply first: a replay
from the model cache reproduces it exactly. An action a game rejects (possible only for
reference agents and people: LLM replies are validated while parsing) is recorded and
replaced by the request's fallback. An exception, including a seat that cannot be built (an
unknown agent, a missing API key) and a seat whose model cannot be reached for good
(`ModelUnavailableError`: retries exhausted, a bad key, a missing model), ends the game as
``status: failed`` with its reason, and the seats still thinking are cancelled; the run goes
on. Each seat's model conversation is stored in the trace (``transcripts``), also for a failed
game, so the failure can be read in context.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Literal, cast

from accord.agents.base import Agent, Recorder
from accord.agents.llm import LLMAgent
from accord.agents.reference import make_reference
from accord.core import provenance
from accord.core.errors import AccordError, ActionError, ModelUnavailableError
from accord.core.game import Game
from accord.core.registry import make
from accord.core.rng import derive_seed
from accord.core.spec import Action, Request
from accord.models.cache import ModelCache
from accord.runner.fork import ForkCounts, SwitchAgent, fork_point, fork_seats
from accord.runner.live import EventSink
from accord.runner.otel import UNTRACED
from accord.runner.otel import current as current_tracing
from accord.runner.reply_budget import with_reply_budget
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.schema import SeatInfo, SeatUsage, Trace

_Buffered = list[tuple[str, dict[str, Any]]]


def _step(event: dict[str, Any]) -> int:
    return int(event["t"])


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


@functools.cache  # reading package metadata costs milliseconds, and every game asks
def accord_version() -> str:
    """The installed package version (or 'dev')."""
    try:
        return version("accord")
    except PackageNotFoundError:
        return "dev"


def build_agent(
    spec: AgentSpec,
    game_id: str,
    *,
    seed: int,
    session: str,
    cache: ModelCache | None = None,
    recorded: tuple[Trace, int] | None = None,
) -> Agent:
    """An agent for one seat of one game.

    Its model is answered from `recorded` (a trace and the seat index: the trace's stored
    replies) when given, else from `cache` where possible, else asked.
    """
    if spec.model is not None:
        from accord.agents.tools import resolve_mode
        from accord.models import ChatModel, ModelClient, get_model

        if recorded is not None:
            from accord.models.recorded import RecordedModel

            client: ChatModel = RecordedModel(spec.model, *recorded)
        else:
            client = get_model(spec.model, **spec.options)
            if spec.batch:
                # The cache stays outside: a call it can answer never waits for a batch.
                from accord.models.batched import BatchedModel, batch_api_for

                client = BatchedModel(
                    get_model(spec.model, **spec.options), batch_api_for(spec.model, spec.options)
                )
            if cache is not None:
                from accord.models.cache import CachedModel

                # CachedModel asks only what every client layer has (spec, options, pool).
                client = CachedModel(cast("ModelClient", client), cache)
        return LLMAgent(
            client,
            spec=spec.display,
            temperature=spec.temperature,
            max_tokens=spec.max_tokens,
            seed=seed,
            session=session,
            action_mode=resolve_mode(spec.action_mode, spec.model),
            explicit_tools=spec.action_mode == "tools",
        )
    assert spec.agent is not None
    if spec.remote is not None and spec.remote.is_a2a:
        from accord.agents.a2a import A2AAgent

        return A2AAgent(spec.remote, game_id, session=session, label=spec.label)
    if spec.remote is not None:
        from accord.agents.remote import RemoteAgent

        return RemoteAgent(spec.remote, game_id, session=session, label=spec.label)
    if spec.agent == "human":
        from accord.agents.human import HumanAgent

        return HumanAgent(game_id)
    return make_reference(game_id, spec.agent)


def build_agents(
    spec: GameSpec,
    game: Game,
    cache: ModelCache | None = None,
    recorded: Trace | None = None,
    parent: tuple[Trace, ForkCounts] | None = None,
) -> list[Agent]:
    """One agent per seat, checked against the game's seat count (and a fork's switch).

    With `parent` (a fork's parent trace), model seats answer from its stored replies up to
    the fork point (`accord.runner.fork.fork_seats`)."""
    if len(spec.agents) != game.num_seats:
        raise AccordError(
            f"{spec.game} has {game.num_seats} seats but {len(spec.agents)} agents were given"
        )
    if parent is not None and fork_point(spec) is not None:
        trace, counts = parent

        def seat_of(a: AgentSpec, seat: int | None, live: bool) -> Agent:
            return build_agent(
                a,
                game.game_id,
                seed=spec.seed,
                session=spec.trace_id,
                cache=cache if live else None,
                recorded=None if live or seat is None else (trace, seat),
            )

        return fork_seats(spec, trace, seat_of, counts)

    # Repeats of one scenario (an experiment's `repeats:`) share the game seed; model seats
    # sample with a seed of their own per repeat, so the repeats measure the model's noise.
    replica = spec.labels.get("replica")
    agent_seed = derive_seed(spec.seed, "replica", replica) if replica else spec.seed

    def one(a: AgentSpec, seat: int | None = None) -> Agent:
        return build_agent(
            a,
            game.game_id,
            seed=agent_seed,
            session=spec.trace_id,
            cache=cache,
            recorded=(recorded, seat) if recorded is not None and seat is not None else None,
        )

    seats = [one(a, i) for i, a in enumerate(spec.agents)]
    point = fork_point(spec)
    if point is not None:
        if point.seat >= len(seats):
            raise AccordError(f"fork seat {point.seat} does not exist in {spec.game}")
        seats[point.seat] = SwitchAgent(seats[point.seat], one(point.agent), point)
    return seats


async def play_game(
    spec: GameSpec,
    agents: list[Agent] | None = None,
    *,
    cache: ModelCache | None = None,
    recorded: Trace | None = None,
    sink: EventSink | None = None,
    parent: tuple[Trace, ForkCounts] | None = None,
) -> Trace:
    """Play `spec` to the end and return its trace (never raises for in-game failures).

    Args:
        spec: the game.
        agents: ready-made seats (tests, people); by default they are built from the spec.
        cache: answer model calls from this cache where it has them, and fill it.
        recorded: answer every model seat from this trace's stored replies (replay).
        parent: a fork's parent trace and the counts of calls answered from it and asked
            of models: requests before the fork point are answered from its stored replies.
        sink: told the seats' names, then each batch of new events as soon as a phase has
            recorded them (the live view, `accord.runner.live`); the trace holds the same
            events, in the same order.
    """
    spec = with_reply_budget(spec)  # a served model's max_tokens, stated in the trace
    game = make(spec.game, spec.options)
    started = _now()
    events: list[dict[str, Any]] = []
    sent = 0

    def stream() -> None:
        nonlocal sent
        if sink is not None and len(events) > sent:
            # In step order, as the trace will hold them: a batch's steps all follow the
            # previous batch's, so the stream is the trace's event list, piece by piece.
            batch, sent = sorted(events[sent:], key=_step), len(events)
            sink.events(batch)

    status: Literal["complete", "failed"] = "complete"
    error: str | None = None
    seats: list[Agent] = []
    try:
        seats = agents if agents is not None else build_agents(spec, game, cache, recorded, parent)
        game.bind_models([a.model for a in spec.agents])
        game.reset(spec.seed)
        if sink is not None:
            sink.begin(game.game_id, [game.seat_label(i) for i in range(game.num_seats)])
        for i, a in enumerate(seats):
            await a.start(i, _seat_recorder(game, i, events))
        tracing = current_tracing()
        steps = 0
        while not game.done():
            requests = game.pending()
            if not requests:
                raise AccordError(f"{spec.game} is not done but has no pending request")
            buffers: list[_Buffered] = [[] for _ in requests]
            steps += 1
            try:
                with tracing.step(steps, requests) if tracing is not None else UNTRACED:
                    answers = await _answer_all(seats, requests, buffers)
            finally:
                _flush(game, requests, buffers, events)
            for req, action, buffer in zip(requests, answers, buffers, strict=True):
                _submit(game, req, action, provenance.from_events(buffer), events)
            events.extend(game.drain_events())
            stream()
        result = game.result()
    except ModelUnavailableError as exc:
        status = "failed"
        error = f"seat {game.seat_label(exc.seat)} ({exc.model}) could not reach its model: {exc}"
        events.extend(game.drain_events())
        events.append(
            {"type": "game_failed", "t": game.next_step(), "error": error, "seat": exc.seat}
        )
        result = None
    except Exception as exc:
        status, error = "failed", f"{type(exc).__name__}: {exc}"
        events.extend(game.drain_events())
        events.append({"type": "game_failed", "t": game.next_step(), "error": error})
        result = None
    finally:
        for a in seats:
            await a.close()
    stream()
    events.sort(key=lambda e: e["t"])
    usage = {game.seat_label(i): a.usage for i, a in enumerate(seats)}
    usage["total"] = _total(list(usage.values()))
    trace = Trace(
        **_identity(spec, game),
        scenario=game.scenario() if status == "complete" or _safe(game) else {},
        prompt_templates=game.prompt_templates(),
        seats=_seat_infos(spec, game, seats),
        events=events,
        final_state=result.final_state if result else {},
        metrics=result.metrics if result else {},
        seat_rows=result.seat_rows if result else [],
        usage=usage,
        transcripts={
            game.seat_label(i): t
            for i, a in enumerate(seats)
            if (t := a.transcript_json()) is not None
        },
        status=status,
        error=error,
        started_at=started,
        ended_at=_now(),
    )
    if trace.status == "complete":
        # Usage-dependent metrics (e.g. MAS-Bench TE/CR from reported tokens) need the trace.
        trace.metrics.update(game.trace_metrics(trace))
    return trace


def failed_trace(spec: GameSpec, error: str) -> Trace:
    """The trace of a game that never produced one (its worker died, say): failed, with why."""
    game = make(spec.game, spec.options)
    return Trace(
        **_identity(spec, game),
        seats=_seat_infos(spec, game, []),
        events=[{"type": "game_failed", "t": 1, "error": error}],
        usage={"total": SeatUsage()},
        status="failed",
        error=error,
        started_at=_now(),
        ended_at=_now(),
    )


def _identity(spec: GameSpec, game: Game) -> dict[str, Any]:
    """The trace fields that say which game this was and how it was set up."""
    return {
        "trace_id": spec.trace_id,
        "game_id": game.game_id,
        "game": game.game_id.rsplit("-v", 1)[0],
        "seed": spec.seed,
        "config": game.config.model_dump(mode="json"),
        "run": dict(spec.labels),
        "agents_config": [a.model_dump(mode="json", exclude_none=True) for a in spec.agents],
        "accord_version": accord_version(),
    }


def _seat_infos(spec: GameSpec, game: Game, seats: list[Agent]) -> list[SeatInfo]:
    point = fork_point(spec)
    infos = []
    for i, a in enumerate(spec.agents):
        agent, model, mode = a.display, a.model, None
        if i < len(seats):
            model, mode = seats[i].model, seats[i].played_mode()
            agent = seats[i].table_name(agent)
        if point is not None and point.seat == i:
            agent = f"{point.agent.display} (fork of {a.display} at {point.round}/{point.turn})"
            model = point.agent.model
        infos.append(
            SeatInfo(
                seat=i,
                name=game.seat_label(i),
                agent=agent,
                model=model,
                action_mode=None if model is None else _mode(mode),
            )
        )
    return infos


def _mode(played: str | None) -> Literal["json", "tools"] | None:
    return "tools" if played == "tools" else "json" if played == "json" else None


def _safe(game: Game) -> bool:
    try:
        game.scenario()
    except Exception:
        return False
    return True


async def _answer_all(
    seats: list[Agent], requests: list[Request], buffers: list[_Buffered]
) -> list[Action]:
    """Answer every pending request concurrently; if one fails, cancel the others first."""
    if len(requests) == 1:  # nothing to run beside it: no task, no gather
        return [await _ask(seats[requests[0].seat], requests[0], buffers[0])]
    tasks = [
        asyncio.ensure_future(_ask(seats[r.seat], r, b))
        for r, b in zip(requests, buffers, strict=True)
    ]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def _ask(agent: Agent, req: Request, buffer: _Buffered) -> Action:
    def record(type_: str, **fields: Any) -> None:
        buffer.append((type_, fields))

    return await agent.act(req, record)


def _seat_recorder(game: Game, seat: int, events: list[dict[str, Any]]) -> Recorder:
    """Where an agent records what it did outside any request (`Agent.start`)."""

    def record(type_: str, **fields: Any) -> None:
        events.append({"type": type_, "t": game.next_step(), "seat": seat} | fields)

    return record


def _flush(
    game: Game, requests: list[Request], buffers: list[_Buffered], events: list[dict[str, Any]]
) -> None:
    for req, buffer in zip(requests, buffers, strict=True):
        for type_, fields in buffer:
            events.append(
                {"type": type_, "t": game.next_step(), "seat": req.seat, "round": req.round}
                | fields
            )


def _submit(
    game: Game,
    req: Request,
    action: Action,
    decided: provenance.Provenance,
    events: list[dict[str, Any]],
) -> None:
    try:
        provenance.submit(game, req.seat, action, decided)
    except ActionError as exc:
        if req.spec.fallback is None:
            raise
        events.append(
            {
                "type": "invalid_action",
                "t": game.next_step(),
                "seat": req.seat,
                "round": req.round,
                "error": str(exc),
            }
        )

        def record(type_: str, **fields: Any) -> None:
            events.append(
                {"type": type_, "t": game.next_step(), "seat": req.seat, "round": req.round}
                | fields
            )

        fallback = provenance.use_fallback(req.spec, str(exc), record)
        provenance.submit(game, req.seat, fallback, provenance.fallback(str(exc)))


def _total(usages: list[SeatUsage]) -> SeatUsage:
    from accord.models.base import Usage

    total = SeatUsage(**Usage.total(Usage.of(u) for u in usages).counts())
    for u in usages:
        total.cost_usd += u.cost_usd
        total.cost_known = total.cost_known and u.cost_known
        total.calls += u.calls
        total.attempts += u.attempts
        total.latency_s += u.latency_s
        total.decisions += u.decisions
        total.fallbacks += u.fallbacks
    return total
