"""Reply format of the calendar game: the ``{"thinking", "actions"}`` envelope (CalBench App.
A.5), its JSON schemas, parsers and fallbacks.

A reply is one JSON object with ``thinking`` (private, logged, never forwarded) and
``actions``, a list of tool calls or ``[]`` to pass. Tool calls (App. A.2 "Tools"):

* ``{"type": "dm", "to": <agent>, "content": "..."}``: a private message;
* ``{"type": "participant_groupchat", "content": "..."}``: to the current meeting's participants;
* ``{"type": "all_groupchat", "content": "..."}``: to every agent;
* ``{"type": "schedule", "meeting_id": <id>, "slot": <slot>}``;
* ``{"type": "reschedule", "item_id": <id>, "from_slot": <slot>, "to_slot": <slot>,
  "justification": "..."}``.

Which calls a phase accepts: CHEAP_TALK takes the message types of the game's channel
condition; VOLUNTARY keeps only reschedules and DECISION only schedule and reschedule (other
calls are dropped with a format warning, as App. A.4 filters them). The parser checks shape and
types and raises `ActionError` with a message for the model; slot ranges, item identity and
the rest of App. A.5 are batch rules (`rules.validate_batch`), checked by the engine so that
rejections become ``batch_rejected`` events and game-level retries.

Parsed actions look like ``{"thinking": str, "actions": [normalised call dicts]}``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from accord.core.errors import ActionError
from accord.core.json_reply import extract_json_object
from accord.core.provenance import format_warnings
from accord.core.spec import Action, JSONSchema
from accord.games.calendar.rules import Batch, Move, Place

Phase = Literal["CHEAP_TALK", "VOLUNTARY", "DECISION"]

THINKING_MAX = 1200
"""Length cap of the private reasoning string when parsing (longer text is cut, with a warning)."""
CONTENT_MAX = 400
"""Length cap of one message (parser and schema; the system prompt states it)."""
JUSTIFICATION_MAX = 240
"""Length cap of a reschedule justification."""
MAX_ACTIONS = 24
"""Tool calls read from one reply; more is an error (a runaway reply, not a plan)."""
# The schema bounds what a constrained decoder may emit. The local provider reserves the
# grammar's longest reply in its context window, so these keep that bound under 3,500
# characters: a 5-agent talk turn then fits the bundled model's 8k context beside the prompt.
SCHEMA_THINKING_MAX = 400
SCHEMA_MAX_TALK = 3
SCHEMA_MAX_BATCH = 4
"""Array caps in the schemas: one schedule plus three freeing moves is ample per batch."""

MESSAGE_TYPES = ("dm", "participant_groupchat", "all_groupchat")
BATCH_TYPES = ("schedule", "reschedule")

EMPTY_REPLY = 'the reply was empty; reply with {"thinking": "...", "actions": [...]}'
NOT_ONE_OBJECT = (
    'the reply is not one valid JSON object; reply with exactly {"thinking": "...", '
    '"actions": [...]} and nothing else'
)
_INT_TEXT = re.compile(r"^\s*(?:M|E|#|Errand\s*#|Meeting\s*M)?\s*(\d+)\s*$", re.I)


@dataclass(frozen=True)
class ParseContext:
    """What one request accepts."""

    seat: int
    phase: Phase
    num_agents: int
    num_slots: int
    meeting_id: int
    is_participant: bool
    message_types: tuple[str, ...]

    @property
    def allowed(self) -> tuple[str, ...]:
        """Call types this phase acts on."""
        if self.phase == "CHEAP_TALK":
            return tuple(
                t for t in self.message_types if self.is_participant or t != "participant_groupchat"
            )
        return ("reschedule",) if self.phase == "VOLUNTARY" else BATCH_TYPES


def extract_object(text: str) -> tuple[dict[str, Any], list[str]]:
    """The JSON object in `text` (`accord.core.json_reply`), with the calendar reply's errors."""
    return extract_json_object(text, empty=EMPTY_REPLY, invalid=NOT_ONE_OBJECT)


def parse_reply(text: str, ctx: ParseContext) -> Action:
    """Parse model text into ``{"thinking", "actions"}`` for the request described by `ctx`."""
    obj, warnings = extract_object(text)
    if "actions" not in obj:
        raise ActionError(
            'the reply has no "actions" list; reply with {"thinking": "...", "actions": [...]}'
            " (use [] to pass)"
        )
    thinking = obj.get("thinking", "")
    if "thinking" not in obj:
        warnings.append('the reply had no "thinking" field; an empty one was assumed')
    if not isinstance(thinking, str):
        raise ActionError('"thinking" must be a string')
    extra = sorted(set(obj) - {"thinking", "actions"})
    if extra:
        warnings.append(f"ignored extra field(s) {extra}")
    calls = normalize_calls(obj["actions"], ctx, warnings)
    format_warnings(warnings)
    return {"thinking": thinking, "actions": calls}


def normalize_calls(raw: object, ctx: ParseContext, warnings: list[str]) -> list[dict[str, Any]]:
    """Check a list of tool calls for this phase; returns the calls the phase acts on."""
    if not isinstance(raw, list):
        raise ActionError('"actions" must be a list of tool calls, or [] to pass')
    if len(raw) > MAX_ACTIONS:
        raise ActionError(f'"actions" holds {len(raw)} calls; send at most {MAX_ACTIONS}')
    out: list[dict[str, Any]] = []
    for index, call in enumerate(raw):
        where = f"action {index + 1}"
        if not isinstance(call, dict):
            raise ActionError(f'{where} must be an object with a "type", got {json.dumps(call)}')
        kind = call.get("type")
        if kind not in (*MESSAGE_TYPES, *BATCH_TYPES):
            raise ActionError(
                f"{where} has unknown type {json.dumps(kind)}; valid types in {ctx.phase} are "
                f"{list(ctx.allowed)}"
            )
        if kind not in ctx.allowed:
            if ctx.phase != "CHEAP_TALK":
                warnings.append(f"{where} ({kind}) is not used in {ctx.phase} and was dropped")
                continue
            raise ActionError(_not_allowed(kind, ctx, where))
        out.append(_normalize_one(call, kind, ctx, where, warnings))
    return out


def _not_allowed(kind: str, ctx: ParseContext, where: str) -> str:
    if kind in BATCH_TYPES:
        return (
            f"{where}: {kind} is only valid in the DECISION phase (reschedule also in "
            "VOLUNTARY); in CHEAP_TALK send messages or return []"
        )
    if kind == "participant_groupchat" and "participant_groupchat" in ctx.message_types:
        return f"{where}: only the meeting's participants can post to participant_groupchat; use dm"
    return f"{where}: {kind} is not available in this game; use {list(ctx.allowed)}"


def _as_int(value: object, name: str, where: str, warnings: list[str]) -> object:
    """Ints pass; ids written as text ("M2", "#3", "7") are read with a warning; other values
    pass through unchanged so the batch rules can report them (rule 1) where they apply."""
    if isinstance(value, bool):
        raise ActionError(f'{where}: "{name}" must be an integer, got {json.dumps(value)}')
    if isinstance(value, int):
        return value
    if isinstance(value, str) and (m := _INT_TEXT.match(value)):
        warnings.append(f'{where}: "{name}" was text {json.dumps(value)}; read as {m.group(1)}')
        return int(m.group(1))
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise ActionError(f'{where}: "{name}" must be an integer, got {json.dumps(value)}')


def _text(call: dict[str, Any], name: str, cap: int, where: str, warnings: list[str]) -> str:
    value = call.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ActionError(f'{where}: "{name}" must be a non-empty string')
    value = value.strip()
    if len(value) > cap:
        warnings.append(f"{where}: {name} was cut to {cap} characters")
        value = value[:cap]
    return value


def _normalize_one(
    call: dict[str, Any], kind: str, ctx: ParseContext, where: str, warnings: list[str]
) -> dict[str, Any]:
    if kind == "dm":
        to = _as_int(call.get("to"), "to", where, warnings)
        others = [a for a in range(ctx.num_agents) if a != ctx.seat]
        if to not in others:
            raise ActionError(f'{where}: "to" must be another agent, one of {others}; got {to}')
        return {
            "type": "dm",
            "to": to,
            "content": _text(call, "content", CONTENT_MAX, where, warnings),
        }
    if kind in MESSAGE_TYPES:
        return {"type": kind, "content": _text(call, "content", CONTENT_MAX, where, warnings)}
    if kind == "schedule":
        meeting = _as_int(call.get("meeting_id"), "meeting_id", where, warnings)
        slot = _as_int(call.get("slot"), "slot", where, warnings)
        return {"type": "schedule", "meeting_id": meeting, "slot": slot}
    item = _as_int(call.get("item_id"), "item_id", where, warnings)
    frm = _as_int(call.get("from_slot"), "from_slot", where, warnings)
    to_slot = _as_int(call.get("to_slot"), "to_slot", where, warnings)
    justification = call.get("justification")
    if not isinstance(justification, str) or not justification.strip():
        raise ActionError(
            f'{where}: every reschedule needs a short non-empty "justification" saying why '
            "your user's commitment is being moved"
        )
    return {
        "type": "reschedule",
        "item_id": item,
        "from_slot": frm,
        "to_slot": to_slot,
        "justification": _text(call, "justification", JUSTIFICATION_MAX, where, warnings),
    }


def check_action(action: Action, ctx: ParseContext) -> list[dict[str, Any]]:
    """Validate an already-built action (reference agents, people): its calls, normalised."""
    if not isinstance(action.get("thinking", ""), str):
        raise ActionError('"thinking" must be a string')
    return normalize_calls(action.get("actions", []), ctx, [])


def to_batch(calls: Sequence[dict[str, Any]]) -> Batch:
    """The schedule/reschedule calls as typed batch actions (messages are not part of it)."""
    out: list[Place | Move] = []
    for c in calls:
        if c["type"] == "schedule":
            out.append(Place(meeting_id=c["meeting_id"], slot=c["slot"]))
        elif c["type"] == "reschedule":
            out.append(Move(c["item_id"], c["from_slot"], c["to_slot"], c["justification"]))
    return out


# -- schemas ---------------------------------------------------------------------------------
def _string(cap: int, *, min_length: int = 1) -> JSONSchema:
    return {"type": "string", "minLength": min_length, "maxLength": cap}


def call_schemas(ctx: ParseContext, item_ids: Sequence[int] = ()) -> list[JSONSchema]:
    """One JSON schema per call type this request accepts."""
    slot: JSONSchema = {"type": "integer", "minimum": 0, "maximum": ctx.num_slots - 1}
    out: list[JSONSchema] = []
    for kind in ctx.allowed:
        props: dict[str, JSONSchema] = {"type": {"const": kind}}
        if kind == "dm":
            others = [a for a in range(ctx.num_agents) if a != ctx.seat]
            props |= {"to": {"type": "integer", "enum": others}, "content": _string(CONTENT_MAX)}
        elif kind in MESSAGE_TYPES:
            props["content"] = _string(CONTENT_MAX)
        elif kind == "schedule":
            props |= {"meeting_id": {"const": ctx.meeting_id}, "slot": slot}
        else:
            item: JSONSchema = (
                {"type": "integer", "enum": sorted(set(item_ids))}
                if item_ids
                else {"type": "integer", "minimum": 0}
            )
            props |= {
                "item_id": item,
                "from_slot": slot,
                "to_slot": slot,
                "justification": _string(JUSTIFICATION_MAX),
            }
        out.append(
            {
                "type": "object",
                "properties": props,
                "required": list(props),
                "additionalProperties": False,
            }
        )
    return out


def envelope_schema(ctx: ParseContext, item_ids: Sequence[int] = ()) -> JSONSchema:
    """Schema of a whole reply for this request (with a length cap on every string)."""
    cap = SCHEMA_MAX_TALK if ctx.phase == "CHEAP_TALK" else SCHEMA_MAX_BATCH
    calls = call_schemas(ctx, item_ids)
    actions: JSONSchema = {"type": "array", "maxItems": cap if calls else 0}
    if calls:
        actions["items"] = {"anyOf": calls}
    return {
        "type": "object",
        "properties": {
            "thinking": _string(SCHEMA_THINKING_MAX, min_length=0),
            "actions": actions,
        },
        "required": ["thinking", "actions"],
        "additionalProperties": False,
    }


FORMAT_HINT = 'Reply with one JSON object: {"thinking": "...", "actions": [...]} ([] to pass).'


def pass_turn() -> Action:
    """The documented fallback of every request: no tool calls. In CHEAP_TALK it sends nothing;
    in VOLUNTARY it moves nothing; in DECISION the seat has no valid batch, so the meeting
    fails this round (App. A.5: a seat whose retries all fail schedules nothing)."""
    return {"thinking": "", "actions": []}
