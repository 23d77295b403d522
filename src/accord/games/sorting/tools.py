"""The sorting game's commands as native tools, for a model seat that asks for them
(``action_mode: tools``; `accord.core.tools`).

MAS-Bench's agents write commands in fenced blocks (App. F.3), and that stays the game's
format: in json mode and under ``action_mode: auto`` a sorting seat answers in text. A seat
set to ``action_mode: tools`` explicitly is offered one tool per command of its backend
(Table 5), and each call is written back as the fenced block the game's parser reads, in call
order, so what a command does, and every error text, is the game's own. Several calls in one
turn are one batch, as several blocks are. Such a seat is told so (`tools_wording`): its
system prompt and messages ask for tool calls, never for fenced blocks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from accord.core.errors import ActionError
from accord.core.spec import JSONSchema
from accord.core.tools import CallPair, ToolSet, ToolSpec, call_arguments, tool
from accord.games.sorting.actions import NO_COMMAND, render_blocks
from accord.games.sorting.commands import VERBS
from accord.games.sorting.controls import ARGS, HELP

_TEXT: JSONSchema = {"type": "string", "description": "The message."}
_KEY: JSONSchema = {"type": "string", "description": "The key: one word, no spaces."}

_PARAMETERS: dict[str, tuple[dict[str, JSONSchema], list[str]]] = {
    "none": ({}, []),
    "text": ({"text": _TEXT}, ["text"]),
    "to_text": ({"to": {"type": "integer", "description": "The agent's id."}, "text": _TEXT},
                ["to", "text"]),
    "prefix": ({"prefix": {"type": "string", "description": "Only keys starting with it."}}, []),
    "key": ({"key": _KEY}, ["key"]),
    "key_value": ({"key": _KEY, "value": {"type": "string", "description": "The value."}},
                  ["key", "value"]),
    "list": ({"values": {"type": "array", "items": {"type": "integer"}, "minItems": 1,
                         "description": "Your final list of integers, in order."}}, ["values"]),
}  # fmt: skip
"""Each argument shape of `controls.ARGS`: its tool parameters and the required ones."""


def _tool(verb: str) -> ToolSpec:
    properties, required = _PARAMETERS[ARGS[verb]]
    parameters = {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    return tool(verb, HELP[verb].capitalize() + ".", parameters)


def _command(verb: str, args: dict[str, Any], where: str) -> str:
    """One call written as the command text a model puts in a fenced block."""
    kind = ARGS[verb]

    def text(name: str) -> str:
        value = args.get(name)
        if not isinstance(value, str) or not value.strip():
            raise ActionError(f"{where} ({verb}): give {name!r} as a non-empty string")
        return value.strip()

    if kind == "none":
        return verb
    if kind == "text":
        return f"{verb} {text('text')}"
    if kind == "to_text":
        to = args.get("to")
        if isinstance(to, bool) or not isinstance(to, int):
            raise ActionError(f"{where} ({verb}): give 'to' as an agent id (an integer)")
        return f"{verb} {to} {text('text')}"
    if kind == "prefix":
        prefix = args.get("prefix") or ""
        return f"{verb} {prefix}".rstrip() if isinstance(prefix, str) else verb
    if kind == "key":
        return f"{verb} {text('key')}"
    if kind == "key_value":
        return f"{verb} {text('key')}\n{text('value')}"
    values = args.get("values")
    if (
        not isinstance(values, list)
        or not values
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in values)
    ):
        raise ActionError(f"{where} ({verb}): give 'values' as a non-empty list of integers")
    return f"{verb} [{', '.join(str(v) for v in values)}]"


def command_tools(backend: str) -> ToolSet:
    """The tools of a seat on `backend`: one per command, offered only on explicit request."""
    verbs = VERBS[backend]  # type: ignore[index]

    def to_reply(text: str, calls: Sequence[CallPair]) -> str:
        if not calls:
            return text  # no call: the text is read as a reply with fenced blocks
        commands = []
        for index, (name, arguments) in enumerate(calls):
            where = f"tool call {index + 1}"
            if name not in verbs:
                raise ActionError(f"{where}: unknown tool {name!r}; call one of {', '.join(verbs)}")
            command = _command(name, call_arguments(name, arguments, where), where)
            if "```" in command:
                raise ActionError(f"{where} ({name}): a command may not contain ```")
            commands.append(command)
        return render_blocks(commands)

    return ToolSet(
        tools=tuple(_tool(v) for v in verbs),
        to_reply=to_reply,
        batch=True,
        instruction=(
            "Act by calling the tools offered, one call per command (several calls in one "
            "turn run in order)."
        ),
        explicit=True,
    )


# -- what a tools seat is told (json mode, MAS-Bench's fenced commands, keeps the templates') ---
_EXAMPLE = re.compile(r"\n\nExample of one command:\n```\n.*?\n```", re.S)

REWORDING = (
    ("You act only by writing commands; do not use any built-in tool-calling feature. Put each "
     "command in its own fenced code block (three backticks): exactly one command per block and "
     "nothing else inside it. You may write your reasoning in plain text outside the blocks. "
     "Every block in your reply is run, in order, and the results come back to you as the next "
     "message.",
     "You act only by calling the tools you are offered: one call per command, each tool named "
     "after its command below and taking the command's arguments. You may write your reasoning "
     "in plain text beside the calls. Every call in your reply is run, in order, and the "
     "results come back to you as the next message."),
    ("- write_file <key> - store the lines that follow the command line (inside the same block) "
     "as the value of <key>, replacing any previous value.",
     "- write_file <key> <value> - store <value> under <key>, replacing any previous value."),
    ("Write your first commands.", "Make your first tool calls."),
    (NO_COMMAND, "No tool call found in your last reply, so nothing was run. Call the tools "
     "offered, one call per command."),
)  # fmt: skip
"""(json-mode wording, tools-mode wording) of the default templates' reply instructions; the
tool set's own line (`ToolSet.instruction`) follows each message."""


def tools_wording(text: str) -> str:
    """A message (or the system prompt) for a seat acting through tool calls: commands told as
    tools, no fenced blocks (`REWORDING`, and the fenced example dropped); text from
    overridden templates keeps the wording it has."""
    for old, new in REWORDING:
        text = text.replace(old, new)
    return _EXAMPLE.sub("", text, count=1)
