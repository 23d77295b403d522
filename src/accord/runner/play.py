"""Play one game: build its seats, drive the state machine, return the trace.

All requests pending at once are answered concurrently (simultaneous moves, DESIGN principle
1). An action a game rejects (possible only for reference agents and people: LLM replies are
validated while parsing) is recorded and replaced by the request's fallback. An exception
ends the game as ``status: failed`` with its reason; the run goes on.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Literal

from accord.agents.base import Agent
from accord.agents.llm import LLMAgent
from accord.agents.reference import make_reference
from accord.core.errors import AccordError, ActionError
from accord.core.game import Game
from accord.core.registry import make
from accord.core.spec import Action, Request
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.schema import SeatInfo, SeatUsage, Trace


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


def accord_version() -> str:
    """The installed package version (or 'dev')."""
    try:
        return version("accord")
    except PackageNotFoundError:
        return "dev"


def build_agent(spec: AgentSpec, game_id: str, *, seed: int, session: str) -> Agent:
    """An agent for one seat of one game."""
    if spec.model is not None:
        from accord.models import get_model

        client = get_model(spec.model, **spec.options)
        return LLMAgent(
            client,
            spec=spec.display,
            temperature=spec.temperature,
            max_tokens=spec.max_tokens,
            seed=seed,
            session=session,
        )
    assert spec.agent is not None
    if spec.agent == "human":
        from accord.agents.human import HumanAgent

        return HumanAgent(game_id)
    return make_reference(game_id, spec.agent)


def build_agents(spec: GameSpec, game: Game) -> list[Agent]:
    """One agent per seat, checked against the game's seat count."""
    if len(spec.agents) != game.num_seats:
        raise AccordError(
            f"{spec.game} has {game.num_seats} seats but {len(spec.agents)} agents were given"
        )
    return [
        build_agent(a, game.game_id, seed=spec.seed, session=f"{spec.trace_id}")
        for a in spec.agents
    ]


async def play_game(spec: GameSpec, agents: list[Agent] | None = None) -> Trace:
    """Play `spec` to the end and return its trace (never raises for in-game failures)."""
    game = make(spec.game, spec.options)
    started = _now()
    events: list[dict[str, Any]] = []
    status: Literal["complete", "failed"] = "complete"
    error: str | None = None
    seats = agents if agents is not None else build_agents(spec, game)
    try:
        game.reset(spec.seed)
        while not game.done():
            requests = game.pending()
            if not requests:
                raise AccordError(f"{spec.game} is not done but has no pending request")
            answers = await asyncio.gather(
                *(_ask(game, seats[r.seat], r, events) for r in requests)
            )
            for req, action in zip(requests, answers, strict=True):
                _submit(game, req, action, events)
            events.extend(game.drain_events())
        result = game.result()
    except Exception as exc:
        status, error = "failed", f"{type(exc).__name__}: {exc}"
        events.extend(game.drain_events())
        events.append({"type": "game_failed", "t": game.next_step(), "error": error})
        result = None
    finally:
        for a in seats:
            await a.close()
    events.sort(key=lambda e: e["t"])
    usage = {game.seat_label(i): a.usage for i, a in enumerate(seats)}
    usage["total"] = _total(list(usage.values()))
    return Trace(
        trace_id=spec.trace_id,
        game_id=game.game_id,
        game=game.game_id.rsplit("-v", 1)[0],
        seed=spec.seed,
        config=game.config.model_dump(mode="json"),
        run=dict(spec.labels),
        agents_config=[a.model_dump(mode="json", exclude_none=True) for a in spec.agents],
        scenario=game.scenario() if status == "complete" or _safe(game) else {},
        seats=[
            SeatInfo(seat=i, name=game.seat_label(i), agent=spec.agents[i].display, model=a.model)
            for i, a in enumerate(seats)
        ],
        events=events,
        final_state=result.final_state if result else {},
        metrics=result.metrics if result else {},
        seat_rows=result.seat_rows if result else [],
        usage=usage,
        status=status,
        error=error,
        accord_version=accord_version(),
        started_at=started,
        ended_at=_now(),
    )


def _safe(game: Game) -> bool:
    try:
        game.scenario()
    except Exception:
        return False
    return True


async def _ask(game: Game, agent: Agent, req: Request, events: list[dict[str, Any]]) -> Action:
    def record(type_: str, **fields: Any) -> None:
        events.append(
            {"type": type_, "t": game.next_step(), "seat": req.seat, "round": req.round, **fields}
        )

    return await agent.act(req, record)


def _submit(game: Game, req: Request, action: Action, events: list[dict[str, Any]]) -> None:
    try:
        game.submit(req.seat, action)
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
        fallback = req.spec.fallback()
        fallback["_fallback"] = True
        events.append(
            {
                "type": "heuristic_fallback",
                "t": game.next_step(),
                "seat": req.seat,
                "round": req.round,
                "kind": req.spec.kind,
                "error": str(exc),
                "action": fallback,
            }
        )
        game.submit(req.seat, fallback)


def _total(usages: list[SeatUsage]) -> SeatUsage:
    total = SeatUsage()
    for u in usages:
        total.input_tokens += u.input_tokens
        total.output_tokens += u.output_tokens
        total.reasoning_tokens += u.reasoning_tokens
        total.cost_usd += u.cost_usd
        total.cost_known = total.cost_known and u.cost_known
        total.calls += u.calls
        total.attempts += u.attempts
        total.latency_s += u.latency_s
    return total
