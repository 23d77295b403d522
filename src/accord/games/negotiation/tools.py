"""The negotiation game's tools for a model seat in tools mode (`accord.core.tools`).

Seed 004's turn is talk or decide: a cheap-talk turn may talk or decide, the decision turn
must decide (App. D.1.3-D.1.4). In tools mode these are two tools, ``talk`` (a message to the
other party) and ``decide`` (the purchase, optionally the runs per project, and in the
thinking format a last message), one call per turn. A call is written back as the reply the
game's parser reads in json mode: the ``{"thinking", "speech", "action"}`` envelope, with the
reply's free text as the private ``thinking``, or in the no-thinking format (App. D.6) the
message as plain text and a decision as a bare JSON object. Validation, error texts, retries
and fallbacks are therefore those of json mode.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
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
