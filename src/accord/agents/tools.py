"""A model seat's action mode: json (one JSON reply, parsed) or tools (native tool calls).

``action_mode`` on a model seat (`accord.runner.specs.AgentSpec`):

* ``json`` (the default): the request's schema is sent as the response format and the reply
  text is parsed;
* ``tools``: each request's actions are offered as the provider's tools
  (`accord.core.tools`), and the tool calls become the reply the parser reads;
* ``auto``: tools where the provider supports function calling (LiteLLM's model map says so;
  the mock always does), else json. An OpenAI-compatible server's support cannot be known
  in advance, so ``auto`` keeps json there; ask for ``tools`` explicitly.

The bundled local model always answers in json mode, constrained by its grammar.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Literal

from accord.core.errors import ConfigError
from accord.core.spec import ActionSpec
from accord.core.tools import ToolSet, tools_from_schema
from accord.models.base import Completion, Message
from accord.models.tool_calls import bound_calls

ActionMode = Literal["json", "tools", "auto"]
ACTION_MODES: tuple[str, ...] = ("json", "tools", "auto")

DONE = "done"
"""The tool result sent back for each call of an accepted action."""
NOT_RUN = "not carried out: see the error on the first call of this turn"
"""The tool result of the other calls of a turn that was rejected."""


def mode_problem(mode: str | None, model: str) -> str | None:
    """Why `mode` cannot be used with `model` (``provider/model``), or ``None``."""
    if mode is None:
        return None
    if mode not in ACTION_MODES:
        return f"action_mode must be one of {', '.join(ACTION_MODES)}, got {mode!r}"
    if mode == "tools" and model.startswith("local/"):
        return (
            "the bundled local model answers in json mode (its grammar constrains the reply): "
            "drop action_mode: tools for it, or use action_mode: auto"
        )
    return None


def resolve_mode(mode: str | None, model: str) -> Literal["json", "tools"]:
    """The mode a seat of `model` plays in (``auto`` resolved, see the module docstring)."""
    problem = mode_problem(mode, model)
    if problem is not None:
        raise ConfigError(f"{model}: {problem}")
    if mode == "tools":
        return "tools"
    if mode == "auto" and supports_tools(model):
        return "tools"
    return "json"


def supports_tools(model: str) -> bool:
    """Whether `model` takes native tools, as far as Accord can tell without calling it."""
    provider, _, name = model.partition("/")
    if provider == "mock":
        return True
    if provider in ("local", "openai-compatible"):
        return False
    from accord.models.litellm_provider import load_litellm

    litellm = load_litellm()
    try:
        return bool(
            litellm.supports_function_calling(model=name if provider == "litellm" else model)
        )
    except Exception:  # an unknown model: LiteLLM cannot say, so json
        return False


def tool_set(spec: ActionSpec, *, explicit: bool = True) -> ToolSet | None:
    """The tools a request offers: the game's own, else derived from its schema; ``None`` when
    it offers none (the request is then answered in text, as in json mode). A game's tools
    marked `ToolSet.explicit` are offered only when the seat asked for tools (`explicit`),
    not when ``auto`` chose them."""
    found = spec.tools if spec.tools is not None else tools_from_schema(spec.kind, spec.schema)
    if found is not None and found.explicit and not explicit:
        return None
    return found if found is not None and found.tools else None


def reply_message(completion: Completion) -> Message:
    """The assistant message of a reply, with its tool calls when it made any."""
    reply: Message = {"role": "assistant", "content": completion.text}
    if completion.tool_calls:
        reply["tool_calls"] = [c.to_message() for c in completion.tool_calls]
    return reply


def tool_results(completion: Completion, first: str, rest: str) -> list[Message]:
    """One ``tool`` message per call of `completion`: `first` for the first, `rest` after."""
    return [
        {"role": "tool", "tool_call_id": call.id, "content": first if i == 0 else rest}
        for i, call in enumerate(completion.tool_calls)
    ]


def calls_of(completion: Completion) -> list[tuple[str, str]]:
    """The reply's calls as (name, arguments) pairs."""
    return [(c.name, c.arguments) for c in completion.tool_calls]


def raw_reply(completion: Completion) -> str:
    """The reply as kept in a ``validation_error`` event: its text and its calls."""
    calls: list[dict[str, Any]] = [
        {"name": c.name, "arguments": c.arguments} for c in completion.tool_calls
    ]
    return json.dumps({"text": completion.text, "tool_calls": calls}, ensure_ascii=False)


def bounded(completion: Completion) -> Completion:
    """`completion` with its tool calls within `accord.core.inputs`' bounds (a provider has
    cut them already; a mock's or a recording's are cut here), the broken limit, if any, in
    ``raw["input_limit"]`` (see `input_limit`)."""
    if completion.raw.get("input_limit"):
        return completion
    calls, problem = bound_calls(completion.tool_calls)
    if problem is None:
        return completion
    raw = {**completion.raw, "input_limit": problem}
    return dataclasses.replace(completion, tool_calls=calls, raw=raw)


def input_limit(completion: Completion) -> str | None:
    """The bound of `accord.core.inputs` the reply broke (in words naming it), or None."""
    found = completion.raw.get("input_limit")
    return str(found) if found else None
