"""LLMAgent: conversation keeping, retries with the exact error, fallback, events."""

from __future__ import annotations

import json
from typing import Any

import pytest

from accord.agents.llm import LLMAgent
from accord.core import provenance
from accord.core.errors import ActionError, ModelUnavailableError, TransientModelError
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
    assert action == {"x": 0}  # provenance travels beside the action, never inside it
    assert [t for t, _ in rec.events].count("validation_error") == 4
    assert rec.events[-1][0] == "heuristic_fallback"
    assert rec.events[-1][1]["error"] == "not JSON"
    decided = provenance.from_events(rec.events)
    assert decided.fallback and decided.reason == rec.events[-1][1]["error"]
    assert agent.usage.fallbacks == 1


async def test_format_warnings_of_the_parser_are_recorded_not_kept_in_the_action() -> None:
    def lenient(text: str) -> Action:
        if not text.startswith("{"):
            provenance.format_warning("text before the JSON")
        return {"x": json.loads(text[text.index("{") :])["x"]}

    spec = ActionSpec(kind="move", parse=lenient, fallback=lambda: {"x": 0})
    agent = LLMAgent(MockModel(replies=['sure: {"x": 3}']))
    rec = Rec()
    action = await agent.act(Request(seat=0, observation="go", spec=spec), rec)
    assert action == {"x": 3}
    assert ("output_format_warning", {"kind": "move", "warning": "text before the JSON"}) in (
        rec.events
    )
    decided = provenance.from_events(rec.events)
    assert decided.source == "agent" and decided.warnings == ("text before the JSON",)


async def test_an_answer_after_a_correction_is_a_retry() -> None:
    agent = LLMAgent(MockModel(replies=["oops", '{"x": 5}']))
    rec = Rec()
    assert await agent.act(_req(), rec) == {"x": 5}
    assert provenance.from_events(rec.events).source == "retry"


async def test_a_model_that_cannot_be_reached_ends_the_decision_with_its_reason() -> None:
    opts = ModelOptions(max_retries=1)
    model = MockModel(
        replies=[TransientModelError("HTTP 503", status=503)] * 2,
        options=opts,
        sleep=_no_sleep,
    )
    agent = LLMAgent(model)
    rec = Rec()
    with pytest.raises(ModelUnavailableError, match="HTTP 503") as info:
        await agent.act(_req(), rec)
    # No fallback: an unreachable model is not bad output, so nothing may pass for a result.
    assert info.value.seat == 0 and info.value.status == 503
    assert [t for t, _ in rec.events] == ["model_error"]
    event = rec.events[0][1]
    assert event["call"] == 1 and event["sent"] == [[0, 1]] and event["attempts"] == 2
    assert event["retries"][0]["error"] == "HTTP 503"
    assert agent.usage.fallbacks == 0 and agent.usage.decisions == 1


async def test_transient_failures_within_the_retry_budget_are_only_retries() -> None:
    model = MockModel(
        replies=[TransientModelError("429"), '{"x": 1}'],
        options=ModelOptions(max_retries=1),
        sleep=_no_sleep,
    )
    agent = LLMAgent(model)
    rec = Rec()
    assert await agent.act(_req(), rec) == {"x": 1}
    assert [t for t, _ in rec.events] == ["model_call"]
    assert rec.events[0][1]["attempts"] == 2
    assert rec.events[0][1]["retries"][0]["error"] == "429"


async def test_transcript_stores_each_message_once_and_events_point_at_them() -> None:
    model = MockModel(replies=["oops", '{"x": 5}', '{"x": 6}'])
    agent = LLMAgent(model)
    rec = Rec()
    await agent.act(_req("first"), rec)
    await agent.act(_req("second"), rec)
    messages = agent.transcript.messages
    assert [(m["role"], m["content"]) for m in messages] == [
        ("system", "sys"),
        ("user", "first"),
        ("assistant", "oops"),
        ("user", messages[3]["content"]),
        ("assistant", '{"x": 5}'),
        ("user", "second"),
        ("assistant", '{"x": 6}'),
    ]
    assert "not JSON" in messages[3]["content"]
    calls = [f for t, f in rec.events if t == "model_call"]
    assert [c["call"] for c in calls] == [1, 2, 3]
    assert [c["sent"] for c in calls] == [[[0, 1]], [[0, 3]], [[0, 1], [4, 5]]]
    assert [c["reply"] for c in calls] == [2, 4, 6]
    # What each call was sent, rebuilt from the transcript, is exactly what the model got.
    for call, sent in zip(calls, model.calls, strict=True):
        rebuilt = [messages[i] for first, last in call["sent"] for i in range(first, last + 1)]
        assert [(m["role"], m["content"]) for m in rebuilt] == [
            (m["role"], m["content"]) for m in sent
        ]
    assert agent.transcript.calls == 3


async def test_long_replies_are_capped_in_the_transcript() -> None:
    long = '{"x": 1, "pad": "' + "y" * 70_000 + '"}'
    agent = LLMAgent(MockModel(replies=[long]))
    await agent.act(_req())
    reply = agent.transcript.messages[-1]
    assert len(reply["content"]) == 64 * 1024 and reply["truncated"] == len(long)


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
