"""Reading the tool calls of a reply (tools mode), the same for every OpenAI-shaped answer:
LiteLLM's response objects (which it builds for Anthropic and the other APIs it translates)
and the JSON of an OpenAI-compatible server.

A reply's calls are bounded as they are read (`accord.core.inputs`): at most
`MAX_TOOL_CALLS` are kept and each call's arguments are cut at `MAX_TOOL_ARGUMENT_CHARS`
(with a note saying how much), so a reply of 1,000 calls or 30 MB of arguments costs neither
memory nor time downstream; the broken limit is kept in the completion's ``raw`` under
``input_limit`` and the agent refuses the reply as an invalid action (`bound_calls`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from accord.core.inputs import MAX_TOOL_ARGUMENT_CHARS, MAX_TOOL_CALLS
from accord.models.base import ToolCall

_MAX_NAME = 200
"""Characters of a call's id or tool name kept (providers allow 64)."""

_TOO_DEEP = "[arguments nested too deeply to write out]"


def _getter(obj: Any) -> Any:
    """``obj.get`` for a dict, attribute access for an object."""
    if isinstance(obj, dict):
        return obj.get
    return lambda key: getattr(obj, key, None)


def read_tool_calls(calls: Any) -> tuple[list[ToolCall], str | None]:
    """The tool calls of a reply message (OpenAI shape: objects or dicts with ``id`` and
    ``function.name`` / ``function.arguments``), bounded (`bound_calls`), and the limit the
    reply broke, if any. Arguments given as an object are written back as JSON text. A call
    without an id gets one from its position."""
    items = list(calls or [])
    out: list[ToolCall] = []
    deep: str | None = None
    for index, call in enumerate(items[:MAX_TOOL_CALLS]):
        get = _getter(call)
        fget = _getter(get("function"))
        arguments = fget("arguments")
        if not isinstance(arguments, str):
            try:
                arguments = json.dumps(
                    arguments if arguments is not None else {}, ensure_ascii=False
                )
            except (RecursionError, ValueError, TypeError):
                arguments = _TOO_DEEP
                deep = deep or f"tool call {index + 1}'s arguments nest too deeply (MAX_DEPTH)"
        out.append(
            ToolCall(
                id=str(get("id") or f"call_{index + 1}")[:_MAX_NAME],
                name=str(fget("name") or "")[:_MAX_NAME],
                arguments=arguments,
            )
        )
    kept, problem = bound_calls(out, total=len(items))
    return kept, problem or deep


def bound_calls(
    calls: Sequence[ToolCall], *, total: int | None = None
) -> tuple[list[ToolCall], str | None]:
    """`calls` within bounds: the first `MAX_TOOL_CALLS`, each with its arguments cut at
    `MAX_TOOL_ARGUMENT_CHARS` (a note at the end says how many characters there were); and the
    first limit broken, in words naming it, or None. `total` is how many calls the reply made
    when `calls` was already cut."""
    count = len(calls) if total is None else total
    problem: str | None = None
    if count > MAX_TOOL_CALLS:
        problem = (
            f"the reply makes {count:,} tool calls; at most {MAX_TOOL_CALLS} are read per reply "
            "(MAX_TOOL_CALLS)"
        )
    kept: list[ToolCall] = []
    for index, call in enumerate(calls[:MAX_TOOL_CALLS]):
        size = len(call.arguments)
        if size > MAX_TOOL_ARGUMENT_CHARS:
            if problem is None:
                problem = (
                    f"tool call {index + 1}'s arguments are {size:,} characters; at most "
                    f"{MAX_TOOL_ARGUMENT_CHARS:,} are read (MAX_TOOL_ARGUMENT_CHARS)"
                )
            call = ToolCall(
                id=call.id[:_MAX_NAME],
                name=call.name[:_MAX_NAME],
                arguments=call.arguments[:MAX_TOOL_ARGUMENT_CHARS]
                + f"…[cut by Accord: {size:,} characters]",
            )
        kept.append(call)
    return kept, problem
