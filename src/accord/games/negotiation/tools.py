"""The negotiation game's tools for a model seat in tools mode (`accord.core.tools`).

Seed 004's turn is talk or decide: a cheap-talk turn may talk or decide, the decision turn
must decide (App. D.1.3-D.1.4). In tools mode these are two tools, ``talk`` (a message to the
other party) and ``decide`` (the purchase, optionally the runs per project, and in the
thinking format a last message), one call per turn. A call is written back as the reply the
game's parser reads in json mode: the ``{"thinking", "speech", "action"}`` envelope, with the
reply's free text as the private ``thinking``, or in the no-thinking format (App. D.6) the
message as plain text and a decision as a bare JSON object. Validation, error texts, retries
and fallbacks are therefore those of json mode.

What such a seat reads is worded for tools too (`tools_system`, `tools_wording`): the reply
format and the decision example name the tools and their arguments, and no message asks for
JSON. The templates keep json mode's wording (seed 004's method); tools mode is an extension.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from accord.core.errors import ActionError
from accord.core.spec import JSONSchema
from accord.core.tools import CallPair, ToolSet, call_arguments, tool

_PROJECTS: JSONSchema = {
    "type": "object",
    "description": "Optional: runs per project name; left out, the engine assigns them.",
    "additionalProperties": {"type": "integer", "minimum": 0},
}


def turn_tools(
    decision: JSONSchema, *, thinking: bool, must_decide: bool, speech_max: int
) -> ToolSet:
    """The tools of one turn; `decision` is the purchase schema of `actions.purchase_schema`,
    `speech_max` the length cap of a message."""
    speech: JSONSchema = {"type": "string", "minLength": 1, "maxLength": speech_max}
    decide_props: dict[str, JSONSchema] = {}
    if thinking:
        decide_props["speech"] = speech
    decide_props |= {"purchase": decision, "projects": _PROJECTS}
    decide = tool(
        "decide",
        "Make your final decision: how many units of each resource to buy.",
        {
            "type": "object",
            "properties": decide_props,
            "required": [k for k in decide_props if k != "projects"],
            "additionalProperties": False,
        },
    )
    talk = tool(
        "talk",
        "Send a message to the other party.",
        {
            "type": "object",
            "properties": {"speech": speech},
            "required": ["speech"],
            "additionalProperties": False,
        },
    )
    tools = (decide,) if must_decide else (talk, decide)
    names = [t["function"]["name"] for t in tools]

    def to_reply(text: str, calls: Sequence[CallPair]) -> str:
        if not calls:
            return text  # read as in json mode (plain text talks in the no-thinking format)
        if len(calls) > 1:
            raise ActionError(f"call exactly one tool per turn ({' or '.join(names)})")
        name, arguments = calls[0]
        if name not in names:
            raise ActionError(f"unknown tool {json.dumps(name)}; call {' or '.join(names)}")
        args = call_arguments(name, arguments, "tool call 1")
        action: Any = None
        if name == "decide":
            purchase = args.get("purchase")
            action = dict(purchase) if isinstance(purchase, dict) else purchase
            if isinstance(action, dict) and args.get("projects") is not None:
                action["projects"] = args["projects"]
        if not thinking:
            if name == "talk":
                return str(args.get("speech", ""))
            return json.dumps(action, ensure_ascii=False)
        envelope = {"thinking": text.strip(), "speech": args.get("speech", ""), "action": action}
        return json.dumps(envelope, ensure_ascii=False)

    return ToolSet(
        tools=tools,
        to_reply=to_reply,
        instruction=(
            "Act by calling one tool: "
            + (
                "decide (your decision now)."
                if must_decide
                else "talk (a message) or decide (your final decision)."
            )
            + (
                " Text you write beside the call is kept as your private thinking."
                if thinking
                else ""
            )
        ),
    )


# -- what a tools seat is told (json mode, seed 004 App. D, keeps the templates' wording) -------
_REPLY_SECTION = re.compile(
    r"## How to reply\n.*?I will tell you what each phase needs as we go\.(?:\nIMPORTANT: [^\n]*)?",
    re.S,
)
_DECISION_EXAMPLE = re.compile(
    r"A decision is a JSON object giving the units you buy of each resource and how many times "
    r"to run each project, for example:\n(\{[^\n]*\})"
)
_REPLY_THINKING = "\n".join(
    [
        "## How to reply",
        "Act by calling one tool per turn:",
        "- talk(speech): a message to the other party, while you want to keep talking.",
        "- decide(speech, purchase, projects): your decision when you are ready to buy, with a "
        "last message; it ends your talking for the round.",
        "A message may never be blank. Text you write beside your call is your private notes, "
        "which the other party never sees.",
        "I will tell you what each phase needs as we go.",
    ]
)
_REPLY_PLAIN = "\n".join(
    [
        "## How to reply",
        "You have NO private channel: the other party reads every message you send, word for "
        "word. Choose carefully what you reveal.",
        "Act by calling one tool per turn: talk(speech) to send a message, decide(purchase, "
        "projects) to make your decision.",
        "I will tell you what each phase needs as we go.",
    ]
)

REWORDING = (
    ('Reply with JSON: keep "action" null to go on talking, or put your decision in it to finish.',
     "Call talk to go on talking, or decide to finish."),
    ("Write your message in plain language, or end the round early by replying with ONLY your "
     "JSON decision.", "Call talk with your message, or end the round early by calling decide."),
    ('Reply with JSON, and this time "action" MUST hold your decision object (add "projects" to '
     'say how many runs of each project).',
     "Call decide now (its projects argument says how many runs of each project)."),
    ("Reply with ONLY your JSON decision object.", "Call decide now."),
    ("Reply with your message, or your JSON decision.", "Call talk with your message, or decide."),
    ('Reply with JSON: {"reflection": "..."}.', "Give it as the reflection argument of the tool "
     "reflect."),
    ("Reply with JSON.", "Call talk or decide."),
    ('The "projects" field says', "The projects argument says"),
    ('If you leave out "projects",', "If you leave out projects,"),
)  # fmt: skip
"""(json-mode wording, tools-mode wording) of the default templates' reply instructions, longest
first; the tool set's own line (`ToolSet.instruction`) follows each message."""


def tools_wording(text: str) -> str:
    """A user message for a seat acting through tool calls (`REWORDING`); a message from
    overridden templates keeps the wording it has."""
    for old, new in REWORDING:
        text = text.replace(old, new)
    return text


@lru_cache(maxsize=64)
def tools_system(system: str, *, thinking: bool) -> str:
    """The system prompt for a seat acting through tool calls: the reply format (App. D.1.4 /
    D.6) told as the talk and decide tools, the decision example (D.1.3) as decide's arguments,
    no JSON envelope; json mode's prompt is the paper's and is unchanged."""
    section = _REPLY_THINKING if thinking else _REPLY_PLAIN
    text = _REPLY_SECTION.sub(lambda _: section, system, count=1)
    text = _DECISION_EXAMPLE.sub(_decide_example, text, count=1)
    return tools_wording(text)


def _decide_example(match: re.Match[str]) -> str:
    example = json.loads(match.group(1))
    projects = example.pop("projects", None)
    arguments = {"purchase": example, **({"projects": projects} if projects else {})}
    return (
        "A decision is a call of decide giving the units you buy of each resource (purchase) "
        "and how many times to run each project (projects), for example these arguments:\n"
        + json.dumps(arguments, ensure_ascii=False)
    )
