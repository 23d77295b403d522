"""Native tool calling: a request's action spec offered as a provider's tools (tools mode).

A model seat in tools mode (``action_mode: tools``) is offered each request's actions as the
provider's tools instead of being asked for one JSON object. Its tool calls are turned back
into the reply text the request's own parser reads (`ActionSpec.parse`), so a tool call is
validated exactly as a JSON reply is: same error texts, same bounded retries, same fallback,
same events. Only the way the action travels changes.

A `ToolSet` says which tools a request offers and how calls become reply text. Most come from
the request's JSON schema (`tools_from_schema`):

* a list of tagged calls (an object with one array property whose items are ``anyOf``
  branches told apart by a ``type`` constant, like the calendar's ``actions`` list, CalBench
  App. A.2): one tool per branch, named by its constant, and several calls in one turn are one
  batch; any text the model writes beside its calls fills the envelope's other string field
  (the calendar's private ``thinking``); no call at all is an empty list (a pass);
* any other object schema: one tool named after the request's kind, whose arguments are the
  reply object; a turn without a call is parsed as text, as in json mode.

A game whose replies do not fit either shape declares its own `ToolSet` on the action spec
(`ActionSpec.tools`), e.g. the negotiation game's talk and decide, or the sorting game's
commands, which it offers only to a seat that asks for tools explicitly (`ToolSet.explicit`).
A request with no schema and no tools of its own offers none and is answered in text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from accord.core.errors import ActionError, InputLimitError
from accord.core.inputs import MAX_TOOL_ARGUMENT_CHARS, parse_json

JSONSchema = dict[str, Any]
ToolSpec = dict[str, Any]
"""One tool in the OpenAI function format (``{"type": "function", "function": {...}}``)."""

CallPair = tuple[str, str]
"""One tool call as the converter sees it: the tool's name and its arguments (JSON text)."""

ReplyBuilder = Callable[[str, Sequence[CallPair]], str]
"""(the reply's text, its tool calls) -> the reply text the request's parser reads."""

_NAME = re.compile(r"[^a-zA-Z0-9_-]+")


@dataclass(frozen=True)
class ToolSet:
    """The tools one request offers and how the model's calls become a reply.

    Attributes:
        tools: the tool definitions sent to the provider.
        to_reply: builds the reply text for `ActionSpec.parse` from the reply's text and
            calls; raises `ActionError` (sent back to the model) for calls it cannot read.
        batch: several calls in one turn are one action (a batch); otherwise one call a turn.
        instruction: one line appended to the request's observation in tools mode, saying how
            to act through the tools.
        explicit: offered only to a seat set to ``action_mode: tools`` explicitly, never under
            ``auto`` (a game whose paper format is text, like the sorting game's commands).
    """

    tools: tuple[ToolSpec, ...]
    to_reply: ReplyBuilder
    batch: bool = False
    instruction: str = ""
    explicit: bool = False

    @property
    def names(self) -> list[str]:
        """The tool names, in order."""
        return [str(t["function"]["name"]) for t in self.tools]


def tool(name: str, description: str, parameters: JSONSchema) -> ToolSpec:
    """One tool definition (OpenAI function format)."""
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


def tool_name(text: str) -> str:
    """`text` as a tool name providers accept (letters, digits, ``_`` and ``-``)."""
    return _NAME.sub("_", text).strip("_")[:64] or "act"


def call_arguments(name: str, arguments: str, where: str) -> dict[str, Any]:
    """The arguments of one call as an object; `ActionError` (for the model) when they are not
    a JSON object."""
    text = arguments.strip() or "{}"
    try:
        value = parse_json(
            text,
            what=f"{where} ({name}): the arguments",
            max_chars=MAX_TOOL_ARGUMENT_CHARS,
            limit="MAX_TOOL_ARGUMENT_CHARS",
        )
    except InputLimitError as exc:
        if exc.limit == "valid JSON":
            value = None
        else:
            raise ActionError(f"{exc}; call the tool again", kind="input_limit") from None
    if not isinstance(value, dict):
        raise ActionError(
            f"{where} ({name}): the arguments are not a JSON object; call the tool again with "
            "its arguments as one JSON object"
        )
    return value


def tools_from_schema(
    kind: str, schema: JSONSchema | None, descriptions: Mapping[str, str] | None = None
) -> ToolSet | None:
    """The tools of a request whose reply follows `schema` (see the module docstring), or
    ``None`` when it has none (free text). `descriptions` (tool name -> what it does, from
    the game's action spec) describe the tools; each argument without a description of its
    own is described from its schema (type, allowed values, bounds)."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return None
    tagged = _tagged_list(schema, descriptions or {})
    if tagged is not None:
        return tagged
    return _single_tool(tool_name(kind), schema, (descriptions or {}).get(tool_name(kind)))


def argument_doc(schema: Any) -> str:
    """One argument's schema in words: ``integer, one of 1, 2``, ``text of at most 400
    characters``."""
    if not isinstance(schema, dict):
        return "any value"
    if "const" in schema:
        return f"always {json.dumps(schema['const'])}"
    kind = schema.get("type")
    words = {"integer": "integer", "number": "number", "string": "text", "boolean": "true or false"}
    text = words.get(str(kind), str(kind or "any value"))
    if "enum" in schema:
        text += ", one of " + ", ".join(json.dumps(v) for v in schema["enum"])
    if "minimum" in schema and "maximum" in schema:
        text += f" from {schema['minimum']} to {schema['maximum']}"
    elif "minimum" in schema:
        text += f", at least {schema['minimum']}"
    elif "maximum" in schema:
        text += f", at most {schema['maximum']}"
    if "maxLength" in schema:
        text += f" of at most {schema['maxLength']} characters"
    if schema.get("minLength"):
        text += ", not empty"
    return text


def _documented(params: Mapping[str, Any]) -> dict[str, Any]:
    """`params` with a description on each argument that has none (copies, never edits)."""
    return {
        k: v
        if not isinstance(v, dict) or "description" in v
        else {**v, "description": argument_doc(v)}
        for k, v in params.items()
    }


def _tagged_list(schema: JSONSchema, descriptions: Mapping[str, str]) -> ToolSet | None:
    props: dict[str, Any] = schema.get("properties") or {}
    lists = [k for k, v in props.items() if isinstance(v, dict) and v.get("type") == "array"]
    if len(lists) != 1:
        return None
    field = lists[0]
    items = props[field].get("items")
    branches = items.get("anyOf") if isinstance(items, dict) else None
    max_items = props[field].get("maxItems")
    if branches is None and max_items == 0:
        branches = []  # a request that accepts no call this turn
    if not isinstance(branches, list):
        return None
    tools: list[ToolSpec] = []
    for branch in branches:
        tag = (branch.get("properties") or {}).get("type") if isinstance(branch, dict) else None
        if not isinstance(tag, dict) or not isinstance(tag.get("const"), str):
            return None
        params = {k: v for k, v in branch["properties"].items() if k != "type"}
        required = [k for k in branch.get("required", []) if k != "type"]
        parameters = {
            "type": "object",
            "properties": _documented(params),
            "required": required,
            "additionalProperties": False,
        }
        name = tag["const"]
        described = descriptions.get(name) or f"The {name} action."
        tools.append(tool(name, described, parameters))
    text_fields = [
        k
        for k, v in props.items()
        if k != field and isinstance(v, dict) and v.get("type") == "string"
    ]
    text_field = text_fields[0] if len(text_fields) == 1 else None

    def to_reply(text: str, calls: Sequence[CallPair]) -> str:
        out: list[dict[str, Any]] = []
        for index, (name, arguments) in enumerate(calls):
            args = call_arguments(name, arguments, f"tool call {index + 1}")
            out.append({"type": name, **{k: v for k, v in args.items() if k != "type"}})
        reply: dict[str, Any] = {text_field: text.strip()} if text_field else {}
        reply[field] = out
        return json.dumps(reply, ensure_ascii=False)

    return ToolSet(
        tools=tuple(tools),
        to_reply=to_reply,
        batch=True,
        instruction=(
            "Act by calling the tools offered (several calls in one turn are allowed; no call "
            "passes). Text you write beside the calls is kept as your private "
            f"{text_field or 'notes'}."
        ),
    )


def _single_tool(name: str, schema: JSONSchema, description: str | None = None) -> ToolSet:
    def to_reply(text: str, calls: Sequence[CallPair]) -> str:
        if not calls:
            return text  # parsed as in json mode: a JSON reply in text is still read
        if len(calls) > 1:
            raise ActionError(f"call the tool {name} exactly once per turn, not {len(calls)} times")
        called, arguments = calls[0]
        if called != name:
            raise ActionError(f"unknown tool {json.dumps(called)}; call {name}")
        return json.dumps(call_arguments(called, arguments, "tool call 1"), ensure_ascii=False)

    return ToolSet(
        tools=(
            tool(
                name,
                description or f"Give your {name} reply: its fields are this tool's arguments.",
                {**schema, "properties": _documented(schema["properties"])}
                if isinstance(schema.get("properties"), dict)
                else schema,
            ),
        ),
        to_reply=to_reply,
        instruction=f"Answer by calling the tool {name} once.",
    )
