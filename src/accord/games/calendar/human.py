"""A person's seat in the calendar game (`accord play calendar`).

Short commands instead of JSON, separated by ``;``. They are turned into the same
``{"thinking", "actions"}`` reply an LLM seat sends and go through the same parser, so a
person meets exactly the rules a model meets:

- ``dm <agent> <text>``: a private message;
- ``group <text>``: to the current meeting's participants;
- ``all <text>``: to every agent;
- ``schedule <meeting> <slot>`` (the meeting as a number or as the briefing writes it: ``M1``);
- ``move <item> <from_slot> <to_slot> <why>``: a reschedule with its justification;
- ``pass``: do nothing this turn.
"""

from __future__ import annotations

import json
from typing import Any

from accord.core.errors import ActionError
from accord.core.spec import Action, Request

HELP = (
    "Commands (separate several with ';'): dm <agent> <text> | group <text> | all <text> | "
    "schedule <meeting> <slot> | move <item> <from> <to> <why> | pass"
)


def human_help(request: Request) -> str:
    """One line explaining what to type."""
    del request
    return HELP


def _int(word: str, what: str, prefix: str = "") -> int:
    """A whole number; for meetings and calendar items also as the briefing writes them
    (``M1``), so a person can copy what they read."""
    if prefix and word[:1].upper() == prefix and word[1:].isdigit():
        word = word[1:]
    try:
        return int(word)
    except ValueError as exc:
        raise ActionError(f"{what} must be a number, got {word!r}. {HELP}") from exc


def _call(command: str) -> dict[str, Any] | None:
    verb, _, rest = command.strip().partition(" ")
    verb = verb.lower()
    rest = rest.strip()
    if verb == "pass":
        return None
    if verb == "dm":
        to, _, text = rest.partition(" ")
        if not text.strip():
            raise ActionError(f"dm needs an agent and a message. {HELP}")
        return {"type": "dm", "to": _int(to, "the agent"), "content": text.strip()}
    if verb in {"group", "all"}:
        if not rest:
            raise ActionError(f"{verb} needs a message. {HELP}")
        kind = "participant_groupchat" if verb == "group" else "all_groupchat"
        return {"type": kind, "content": rest}
    if verb == "schedule":
        words = rest.split()
        if len(words) != 2:
            raise ActionError(f"schedule needs a meeting and a slot. {HELP}")
        return {
            "type": "schedule",
            "meeting_id": _int(words[0], "the meeting", prefix="M"),
            "slot": _int(words[1], "the slot"),
        }
    if verb == "move":
        words = rest.split(maxsplit=3)
        if len(words) < 4:
            raise ActionError(f"move needs an item, two slots and a reason. {HELP}")
        return {
            "type": "reschedule",
            "item_id": _int(words[0], "the item", prefix="M"),
            "from_slot": _int(words[1], "the from slot"),
            "to_slot": _int(words[2], "the to slot"),
            "justification": words[3],
        }
    raise ActionError(f"unknown command {verb!r}. {HELP}")


def human_adapter(request: Request, line: str) -> Action:
    """A typed line -> the seat's action, through the request's own parser."""
    if not line.strip():
        raise ActionError(f"type a command, or 'pass'. {HELP}")
    calls = [c for part in line.split(";") if (c := _call(part)) is not None]
    return request.spec.parse(json.dumps({"thinking": "", "actions": calls}))
