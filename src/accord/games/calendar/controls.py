"""The calendar game's controls for a person in the browser (`accord serve --play`).

The person sees their own calendar as a table of slots (the costs shown as the prompt shows
them, CalBench §3 "Costs"), and answers with the calls the phase allows (App. A.5): messages
in CHEAP_TALK (to one agent, to the meeting's participants, or to everyone), moves of their own
errands in VOLUNTARY, and in DECISION the slot for the current meeting plus the moves that free
it. After a round with reflection (the measurement-only question of App. F.3) they give a
number from -3 to 3 per slot of each other agent's calendar. The values become the
``{"thinking": "", "actions": [...]}`` reply a model sends and go through the request's own
parser; a person has no private ``thinking`` to fill in.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from accord.core.controls import PlayControls
from accord.core.errors import ActionError
from accord.core.spec import Action, Request
from accord.games.calendar import actions, rules, vps
from accord.games.calendar.scenario import display_cost

CALL_KEYS: dict[str, tuple[str, ...]] = {
    "dm": ("to", "content"),
    "participant_groupchat": ("content",),
    "all_groupchat": ("content",),
    "schedule": ("slot",),
    "reschedule": ("item_id", "from_slot", "to_slot", "justification"),
}
"""The values the page sends for each call type (the meeting id of a schedule is filled in)."""


def _shown_cost(cost: int, cost_display: str) -> int:
    return display_cost(cost) if cost_display == "log10" else cost


def form(request: Request) -> dict[str, Any]:
    """The seat's calendar, the current meeting and the calls this phase accepts."""
    info = request.info
    phase = info["phase"]
    if phase == "REFLECTION":
        return {
            "game": "calendar",
            "phase": phase,
            "round": info["round"],
            "targets": list(info["targets"]),
            "num_slots": info["num_slots"],
            "max": vps.REFLECTION_MAX,
        }
    calls = list(
        actions.ParseContext(
            seat=request.seat,
            phase=phase,
            num_agents=info["num_agents"],
            num_slots=info["num_slots"],
            meeting_id=info["meeting"]["id"],
            is_participant=info["is_participant"],
            message_types=tuple(info["message_types"]),
        ).allowed
    )
    slots = []
    for slot, item in enumerate(info["calendar"]):
        if item is None:
            slots.append({"slot": slot, "free": True})
            continue
        entry = {
            "slot": slot,
            "free": False,
            "kind": item["kind"],
            "id": item["id"],
            "cost": _shown_cost(int(item["cost"]), info["cost_display"]),
            "movable": item["kind"] == "errand" and not item.get("blocked", False),
        }
        slots.append(entry)
    return {
        "game": "calendar",
        "phase": phase,
        "round": info["round"],
        "calls": calls,
        "agents": [a for a in range(info["num_agents"]) if a != request.seat],
        "meeting": info["meeting"],
        "is_participant": info["is_participant"],
        "slots": slots,
        "max_calls": actions.SCHEMA_MAX_TALK if phase == "CHEAP_TALK" else actions.SCHEMA_MAX_BATCH,
        "content_max": actions.CONTENT_MAX,
        "justification_max": actions.JUSTIFICATION_MAX,
    }


def _call(raw: object, meeting_id: int, where: str) -> dict[str, Any]:
    if not isinstance(raw, Mapping) or raw.get("type") not in CALL_KEYS:
        raise ActionError(f"{where}: choose what to do (a message, a slot or a move)")
    kind = str(raw["type"])
    call: dict[str, Any] = {"type": kind}
    for key in CALL_KEYS[kind]:
        if raw.get(key) in (None, ""):
            raise ActionError(f"{where}: fill in {key.replace('_', ' ')}")
        call[key] = raw[key]
    if kind == "schedule":
        call["meeting_id"] = meeting_id
    return call


def build(request: Request, values: Mapping[str, Any]) -> Action:
    """``{"calls": [...]}`` (a reflection: ``{"deltas": {...}}``) from the page -> the seat's
    action, through its parser."""
    if request.info["phase"] == "REFLECTION":
        return request.spec.parse(json.dumps({"thinking": "", "deltas": values.get("deltas")}))
    raw = values.get("calls")
    if not isinstance(raw, list):
        raise ActionError('the answer needs a list of "calls" (empty to pass)')
    meeting_id = int(request.info["meeting"]["id"])
    calls = [_call(c, meeting_id, f"line {i + 1}") for i, c in enumerate(raw)]
    action = request.spec.parse(json.dumps({"thinking": "", "actions": calls}))
    phase = request.info["phase"]
    if phase != "CHEAP_TALK" and action["actions"]:
        # The App. A.5 batch rules on the seat's own calendar, as the engine applies them
        # after the answer: a person is told as they type rather than after sending. An
        # empty batch stays possible (not scheduling is a choice the game records).
        problem = rules.validate_batch(
            _calendar(request.info["calendar"]),
            actions.to_batch(action["actions"]),
            meeting_id=meeting_id,
            require_schedule=phase == "DECISION",
        )
        if problem is not None:
            raise ActionError(problem)
    return action


def _calendar(rendered: list[Mapping[str, Any] | None]) -> rules.Calendar:
    """The seat's calendar back from its `rules.render_fields` form in `Request.info`."""
    return tuple(
        None
        if item is None
        else rules.Item(
            kind=item["kind"],
            id=int(item["id"]),
            cost=int(item["cost"]),
            blocked=bool(item.get("blocked", False)),
            participants=tuple(item.get("participants", ())),
        )
        for item in rendered
    )


CONTROLS = PlayControls(form=form, build=build)
