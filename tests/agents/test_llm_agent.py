"""LLMAgent: conversation keeping, retries with the exact error, fallback, events."""

from __future__ import annotations

import json
from typing import Any

from accord.agents.llm import LLMAgent
from accord.core.errors import ActionError, TransientModelError
from accord.core.spec import Action, ActionSpec, Request
from accord.models.mock import MockModel
from accord.models.options import ModelOptions


def _parse(text: str) -> Action:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ActionError("not JSON") from exc
    if "x" not in obj:
        raise ActionError('missing "x"')
    return {"x": obj["x"]}


SPEC = ActionSpec(kind="move", parse=_parse, fallback=lambda: {"x": 0}, format_hint="Use {x}.")


def _req(obs: str = "go", **kw: Any) -> Request:
    return Request(seat=0, observation=obs, spec=SPEC, system="sys", **kw)


class Rec:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, type_: str, **fields: Any) -> None:
        self.events.append((type_, fields))


async def test_retry_sends_exact_error_then_succeeds() -> None:
    model = MockModel(replies=["oops", '{"y": 1}', '{"x": 5}'])
    agent = LLMAgent(model)
    rec = Rec()
    assert await agent.act(_req(), rec) == {"x": 5}
    assert [t for t, _ in rec.events] == [
        "model_call",
        "validation_error",
        "model_call",
        "validation_error",
        "model_call",
    ]
    assert rec.events[3][1]["error"] == 'missing "x"'
    third_call = model.calls[2]
    assert third_call[-1]["role"] == "user" and 'missing "x"' in third_call[-1]["content"]
    # Only the valid exchange stays in the conversation.
    assert [m["role"] for m in agent.history] == ["system", "user", "assistant"]
    assert agent.usage.calls == 3


async def test_fallback_after_three_retries() -> None:
    model = MockModel(replies=["a", "b", "c", "d"])
    agent = LLMAgent(model)
    rec = Rec()
    action = await agent.act(_req(), rec)
    assert action == {"x": 0, "_fallback": True}
    assert [t for t, _ in rec.events].count("validation_error") == 4
    assert rec.events[-1][0] == "heuristic_fallback"


async def test_model_failure_counts_as_attempt() -> None:
    opts = ModelOptions(max_retries=1)
    model = MockModel(
        replies=[TransientModelError("429"), TransientModelError("429"), '{"x": 1}'],
        options=opts,
        sleep=_no_sleep,
    )
    agent = LLMAgent(model)
    rec = Rec()
    assert await agent.act(_req(), rec) == {"x": 1}
    assert [t for t, _ in rec.events] == ["model_error", "model_call"]


async def _no_sleep(_: float) -> None:
    return None


async def test_reset_context_and_ephemeral() -> None:
    model = MockModel(replies=['{"x": 1}', '{"x": 2}', '{"x": 3}'])
    agent = LLMAgent(model)
    await agent.act(_req("one"))
    await agent.act(_req("probe", ephemeral=True))
    assert len(agent.history) == 3  # the ephemeral exchange was not kept
    await agent.act(_req("two", reset_context=True))
    assert [m["content"] for m in agent.history] == ["sys", "two", '{"x": 3}']
