"""The seat switch behind forks: who answers when, and what the new model remembers."""

from __future__ import annotations

import json
from typing import Any

import pytest

from accord.agents.llm import LLMAgent
from accord.core.errors import ActionError, ConfigError
from accord.core.spec import Action, ActionSpec, Request
from accord.models.mock import MockModel
from accord.runner.fork import ForkPoint, SwitchAgent, parse_at
from accord.runner.specs import AgentSpec


def _parse(text: str) -> Action:
    try:
        return {"x": json.loads(text)["x"]}
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ActionError("send {x}") from exc


SPEC = ActionSpec(kind="move", parse=_parse, fallback=lambda: {"x": 0})


def _req(round_: int, turn: int) -> Request:
    return Request(
        seat=0, observation=f"r{round_}t{turn}", spec=SPEC, system="sys", round=round_, turn=turn
    )


async def test_the_new_model_continues_the_seats_conversation() -> None:
    old, new = MockModel(replies=['{"x": 1}', '{"x": 2}']), MockModel(replies=['{"x": 9}'])
    point = ForkPoint(parent="p", round=2, turn=1, seat=0, agent=AgentSpec(model="mock/echo"))
    seat = SwitchAgent(LLMAgent(old, seed=3), LLMAgent(new, seed=3), point)
    events: list[tuple[str, dict[str, Any]]] = []

    def record(type_: str, **fields: Any) -> None:
        events.append((type_, fields))

    assert await seat.act(_req(1, 1), record) == {"x": 1}
    assert await seat.act(_req(1, 2), record) == {"x": 2}
    assert [t for t, _ in events] == ["model_call", "model_call"]
    assert await seat.act(_req(2, 1), record) == {"x": 9}
    assert [t for t, _ in events][2:] == ["fork", "model_call"]
    assert events[2][1]["replaced"] == "mock/scripted"
    assert len(old.calls) == 2
    (convo,) = new.calls
    assert [m["content"] for m in convo] == ["sys", "r1t1", '{"x": 1}', "r1t2", '{"x": 2}', "r2t1"]
    await seat.close()
    assert seat.usage.calls == 3 and seat.model == "mock/scripted"


def test_fork_points_parse() -> None:
    assert parse_at("2/1") == (2, 1)
    assert parse_at(" 3 ") == (3, 0)
    with pytest.raises(ConfigError, match="ROUND/TURN"):
        parse_at("2/x")
