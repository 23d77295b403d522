"""A batch's result file is as untrusted as a live reply: the same bounds on usage numbers and
tool calls apply to both batch readers."""

from __future__ import annotations

import json

import pytest

from accord.core.errors import TransientModelError
from accord.core.inputs import MAX_TOOL_CALLS
from accord.models.batch_anthropic import completion_from_message
from accord.models.batch_openai import completion_from_body


def _openai(usage: dict[str, object], calls: int = 0) -> dict[str, object]:
    tool_calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": "talk", "arguments": "{}"}}
        for i in range(calls)
    ]
    message: dict[str, object] = {"role": "assistant", "content": "{}"}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {"choices": [{"message": message, "finish_reason": "stop"}], "usage": usage}


@pytest.mark.parametrize("bad", [1e309, float("inf"), -1, True, "12"])
def test_openai_batch_usage_out_of_bounds_is_a_failed_attempt(bad: object) -> None:
    with pytest.raises(TransientModelError, match="usage"):
        completion_from_body(_openai({"prompt_tokens": bad, "completion_tokens": 1}))


def test_openai_batch_tool_calls_are_cut_at_the_limit_and_named() -> None:
    got = completion_from_body(_openai({"prompt_tokens": 3}, calls=MAX_TOOL_CALLS + 5))
    assert len(got.tool_calls) == MAX_TOOL_CALLS
    assert "MAX_TOOL_CALLS" in got.raw["input_limit"]
    assert got.usage.input_tokens == 3


def _anthropic(usage: dict[str, object], calls: int = 0) -> dict[str, object]:
    content: list[dict[str, object]] = [{"type": "text", "text": "hi"}]
    content += [
        {"type": "tool_use", "id": f"t{i}", "name": "talk", "input": {"speech": "x"}}
        for i in range(calls)
    ]
    return {"content": content, "usage": usage, "stop_reason": "end_turn"}


@pytest.mark.parametrize("bad", [1e309, -5, False])
def test_anthropic_batch_usage_out_of_bounds_is_a_failed_attempt(bad: object) -> None:
    with pytest.raises(TransientModelError, match="usage"):
        completion_from_message(_anthropic({"input_tokens": bad, "output_tokens": 1}))


def test_anthropic_batch_tool_calls_are_cut_at_the_limit() -> None:
    got = completion_from_message(
        _anthropic({"input_tokens": 2, "cache_read_input_tokens": 1}, calls=MAX_TOOL_CALLS + 1)
    )
    assert len(got.tool_calls) == MAX_TOOL_CALLS and "MAX_TOOL_CALLS" in got.raw["input_limit"]
    assert got.usage.input_tokens == 3 and got.usage.cached_input_tokens == 1
    assert json.loads(got.tool_calls[0].arguments) == {"speech": "x"}
