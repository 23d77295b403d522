"""The fake batch servers' replies (`accord.testing.batch_server`): pure functions of the
request, so a game played live and the same game played in batch mode get the same replies."""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

from accord.models.mock import sample_valid

_SENTENCE = "I have nothing to add."


def mock_reply(
    body: dict[str, Any], *, served: str | None = None, fingerprint: str = "fp_fake"
) -> dict[str, Any]:
    """The chat-completions response to `body`: a pure function of its messages, schema,
    tools and seed (the fake's one way of answering, live or batched); the reply names the
    model asked for (or `served`) and `fingerprint`."""
    messages = body.get("messages") or []
    schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema")
    tools = body.get("tools")
    key = json.dumps([messages, schema, tools, body.get("seed")], sort_keys=True)
    digest = hashlib.sha256(key.encode()).hexdigest()
    rng = random.Random(digest)
    message: dict[str, Any] = {"role": "assistant", "content": _SENTENCE}
    if tools:
        function = rng.choice(list(tools)).get("function", {})
        params = function.get("parameters") or {"type": "object", "properties": {}}
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{digest[:8]}",
                    "type": "function",
                    "function": {
                        "name": function.get("name", ""),
                        "arguments": json.dumps(sample_valid(params, rng)),
                    },
                }
            ],
        }
    elif schema is not None:
        message["content"] = json.dumps(sample_valid(schema, rng), ensure_ascii=False)
    prompt = sum(len(str(m.get("content") or "")) // 4 + 4 for m in messages)
    completion = len(json.dumps(message)) // 4
    return {
        "id": f"chatcmpl-{digest[:12]}",
        "object": "chat.completion",
        "created": 1700000000,
        "model": served or str(body.get("model", "fake")),
        "system_fingerprint": fingerprint,
        "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(b.get("text") or b.get("content") or json.dumps(b.get("input") or {}))
            for b in content
            if isinstance(b, dict)
        )
    return ""


def mock_anthropic_reply(params: dict[str, Any]) -> dict[str, Any]:
    """The Messages API reply to `params`: a pure function of its system prompt, turns (text
    only: cache marks do not change a reply) and tools; a forced tool gets a schema-valid
    input, offered tools one call of one of them, else a sentence."""
    system = _text(params.get("system"))
    turns = [(m.get("role"), _text(m.get("content"))) for m in params.get("messages") or []]
    # A tool's ``type: custom`` is Anthropic's default (LiteLLM spells it out): the same tool.
    tools = [
        {k: v for k, v in t.items() if not (k == "type" and v == "custom")}
        for t in params.get("tools") or []
        if isinstance(t, dict)
    ]
    choice = params.get("tool_choice") or {}
    key = json.dumps([system, turns, tools, choice], sort_keys=True)
    digest = hashlib.sha256(key.encode()).hexdigest()
    rng = random.Random(digest)
    block: dict[str, Any] = {"type": "text", "text": _SENTENCE}
    if tools:
        forced = [t for t in tools if t.get("name") == choice.get("name")]
        tool = forced[0] if forced else rng.choice(list(tools))
        schema = tool.get("input_schema") or {"type": "object", "properties": {}}
        block = {
            "type": "tool_use",
            "id": f"toolu_{digest[:8]}",
            "name": tool.get("name", ""),
            "input": sample_valid(schema, rng),
        }
    prompt = len(system) // 4 + sum(len(t) // 4 + 4 for _, t in turns)
    return {
        "id": f"msg_{digest[:12]}",
        "type": "message",
        "role": "assistant",
        "model": str(params.get("model", "fake")),
        "content": [block],
        "stop_reason": "tool_use" if block["type"] == "tool_use" else "end_turn",
        "usage": {"input_tokens": prompt, "output_tokens": len(json.dumps(block)) // 4},
    }
