"""Reading the tool calls of a reply (tools mode), the same for every OpenAI-shaped answer:
LiteLLM's response objects (which it builds for Anthropic and the other APIs it translates)
and the JSON of an OpenAI-compatible server."""

from __future__ import annotations

import json
from typing import Any

from accord.models.base import ToolCall


def _getter(obj: Any) -> Any:
    """``obj.get`` for a dict, attribute access for an object."""
    if isinstance(obj, dict):
        return obj.get
    return lambda key: getattr(obj, key, None)


def read_tool_calls(calls: Any) -> list[ToolCall]:
    """The tool calls of a reply message (OpenAI shape: objects or dicts with ``id`` and
    ``function.name`` / ``function.arguments``); arguments given as an object are written
    back as JSON text. A call without an id gets one from its position."""
    out: list[ToolCall] = []
    for index, call in enumerate(calls or []):
        get = _getter(call)
        fget = _getter(get("function"))
        arguments = fget("arguments")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)
        out.append(
            ToolCall(
                id=str(get("id") or f"call_{index + 1}"),
                name=str(fget("name") or ""),
                arguments=arguments,
            )
        )
    return out
