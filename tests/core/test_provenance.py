"""Decision provenance (`accord.core.provenance`): recorded by one helper, handed to the game
beside the action, and every game's fallback metrics count exactly the recorded fallbacks."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from accord.agents.base import Agent, Recorder, _no_record
from accord.core import provenance
from accord.core.errors import ActionError, ModelError
from accord.core.game import Game
from accord.core.registry import make
from accord.core.spec import Action, ActionSpec, Request
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.schema import Trace


def _spec(fallback: bool = True) -> ActionSpec:
    return ActionSpec(
        kind="move", parse=lambda t: {"x": t}, fallback=(lambda: {"x": 0}) if fallback else None
    )


def test_use_fallback_records_why_and_returns_a_plain_action() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    action = provenance.use_fallback(
        _spec(), "three bad replies", lambda t, **f: seen.append((t, f))
    )
    assert action == {"x": 0}
    assert seen == [
        ("heuristic_fallback", {"kind": "move", "error": "three bad replies", "action": {"x": 0}})
    ]
    decided = provenance.from_events(seen)
    assert decided == provenance.Provenance("fallback", reason="three bad replies")
    assert decided.fallback
    with pytest.raises(ModelError, match="no fallback"):
        provenance.use_fallback(_spec(fallback=False), "why", lambda t, **f: None)


def test_provenance_of_recorded_events() -> None:
    assert provenance.from_events([]) == provenance.AGENT
    retried = provenance.from_events(
        [("validation_error", {"error": "bad"}), ("output_format_warning", {"warning": "w"})]
    )
    assert retried.source == "retry" and retried.warnings == ("w",) and not retried.fallback


def test_format_warnings_are_collected_only_while_parsing_a_reply() -> None:
    def parse(text: str) -> Action:
        provenance.format_warning(f"odd: {text}")
        return {"text": text}

    spec = ActionSpec(kind="say", parse=parse)
    assert provenance.parse_reply(spec, "hi") == ({"text": "hi"}, ["odd: hi"])
    assert spec.parse("direct") == {"text": "direct"}  # no collector: the note is dropped


class _Spy(Game):
    """Records the provenance it is told at each submit."""

    game_id = "spy-v1"

    def __init__(self) -> None:
        self.seen: list[provenance.Provenance] = []

    @property
    def num_seats(self) -> int:
        return 1

    def reset(self, seed: int) -> None:
        del seed

    def pending(self) -> list[Request]:
        return []

    def submit(self, seat: int, action: Action) -> None:
        self.seen.append(self.provenance)
        if action.get("bad"):
            raise ActionError("bad")

    def done(self) -> bool:
        return True

    def result(self) -> Any:
        return None


def test_submit_tells_the_game_for_the_length_of_the_call_only() -> None:
    game = _Spy()
    told = provenance.fallback("timeout")
    provenance.submit(game, 0, {}, told)
    with pytest.raises(ActionError):
        provenance.submit(game, 0, {"bad": True}, told)
    game.submit(0, {})
    assert game.seen == [told, told, provenance.AGENT]
    assert game.provenance is provenance.AGENT


def _play(game: str, seed: int, agents: list[AgentSpec], **options: Any) -> Trace:
    spec = GameSpec(trace_id=f"{game}-{seed}", game=game, seed=seed, agents=agents, options=options)
    return asyncio.run(play_game(spec))


def _fallbacks(trace: Trace, *, skip: tuple[str, ...] = ()) -> list[tuple[Any, Any]]:
    return sorted(
        (e["round"], e["seat"])
        for e in trace.events
        if e.type == "heuristic_fallback" and e.get("kind") not in skip
    )


def test_negotiation_leaves_out_exactly_the_rounds_with_a_fallback() -> None:
    trace = _play("negotiation", 3, [AgentSpec(model="mock/echo"), AgentSpec(model="mock/schema")])
    recorded = _fallbacks(trace, skip=("reflect",))
    assert recorded, "mock/echo never answers in the JSON envelope: every decision falls back"
    marked = sorted(
        (e["round"], e["seat"])
        for e in trace.events
        if e.type in ("message", "decision") and e.get("fallback")
    )
    assert marked == recorded
    decided = {e["round"] for e in trace.events if e.type == "decision" and e.get("fallback")}
    assert trace.metrics["fallback_rounds"] == len(decided) > 0
    assert trace.usage["A"].fallbacks == sum(1 for r in _fallbacks(trace) if r[1] == 0)


def test_calendar_marks_exactly_the_recorded_fallback_turns_and_decisions() -> None:
    trace = _play(
        "calendar",
        6,
        [AgentSpec(model="mock/echo"), AgentSpec(model="mock/schema")],
        num_agents=2,
        num_meetings=1,
        num_slots=4,
        max_turns_per_round=1,
    )
    recorded = _fallbacks(trace)
    assert recorded
    marked = sorted(
        (e["round"], e["agent"])
        for e in trace.events
        if e.type in ("turn_end", "decide_end", "reflection") and e.get("fallback")
    )
    assert marked == recorded


class _Invalid(Agent):
    """Answers every request with an action the game rejects."""

    async def act(self, request: Request, record: Recorder = _no_record) -> Action:
        del request, record
        return {}


def test_a_rejected_action_falls_back_and_sorting_counts_the_failed_call() -> None:
    spec = GameSpec(
        trace_id="s",
        game="sorting",
        seed=1,
        options={"n": 2, "k": 2, "max_rounds": 2},
        agents=[AgentSpec(agent="share-all")] * 2,
    )
    agents: list[Agent] = [_Invalid(), make_reference_agent("sorting", "share-all")]
    trace = asyncio.run(play_game(spec, agents))
    invalid = [e for e in trace.events if e.type == "invalid_action"]
    fallbacks = [e for e in trace.events if e.type == "heuristic_fallback"]
    assert invalid and len(fallbacks) == len(invalid)
    assert all("_fallback" not in e["action"] for e in fallbacks)
    failed_turns = [e for e in trace.events if e.type == "turn" and e["seat"] == 0]
    assert failed_turns and all(e["failed"] for e in failed_turns)


def make_reference_agent(game: str, name: str) -> Agent:
    from accord.agents.reference import make_reference

    return make_reference(make(game).game_id, name)
