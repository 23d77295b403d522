"""The ``oracle-follower`` reference team of the calendar game.

``oracle-follower`` is a test driver, not a protocol from the paper (CalBench's IMAP, SD-MAP
and DSM live in the sibling modules of this package). Every seat reads the oracle's slot for its
meeting from the request's documented ``oracle_slots`` hint and:

* CHEAP_TALK: the first speaker proposes that slot once (participant group chat if the game has
  it, else direct messages to the other participants, else the all-agent group chat); everyone
  else passes, so talk ends after the second sweep;
* VOLUNTARY: moves nothing;
* DECISION: if the slot holds one of its errands, moves it to its lowest free slot that none of
  its own oracle meetings uses, then schedules the meeting there.

Each displaced errand therefore moves exactly once, onto a slot no later meeting needs (the
landing rule guarantees there are enough: an agent with k meetings has at least k free slots),
so a team of followers schedules every meeting at exactly the oracle's cost.
"""

from __future__ import annotations

from typing import Any

from accord.agents.base import Agent, Recorder, no_record
from accord.core.spec import Action, Request


def _proposal(info: dict[str, Any], slot: int) -> list[dict[str, Any]]:
    meeting = info["meeting"]
    text = f"Proposal for meeting M{meeting['id']}: slot {slot}. Please schedule it there."
    types = info["message_types"]
    others = [a for a in meeting["participants"] if a != info["seat"]]
    if "participant_groupchat" in types:
        return [{"type": "participant_groupchat", "content": text}]
    if "dm" in types:
        return [{"type": "dm", "to": a, "content": text} for a in others]
    return [{"type": "all_groupchat", "content": text}]


def _target(info: dict[str, Any]) -> int | None:
    """The oracle's slot for this meeting, else the lowest free or movable slot."""
    slot = info["oracle_slots"].get(info["meeting"]["id"])
    if slot is not None:
        return int(slot)
    calendar = info["calendar"]
    for s, item in enumerate(calendar):
        if item is None or (item["kind"] == "errand" and not item["blocked"]):
            return s
    return None


def follow_oracle(info: dict[str, Any]) -> list[dict[str, Any]]:
    """The DECISION batch that puts the meeting on the oracle's slot (see module docstring)."""
    target = _target(info)
    if target is None:
        return []
    calendar: list[dict[str, Any] | None] = info["calendar"]
    batch: list[dict[str, Any]] = []
    held = calendar[target]
    if held is not None:
        reserved = set(info["oracle_slots"].values()) | {target}
        landing = next(
            (s for s, item in enumerate(calendar) if item is None and s not in reserved), None
        )
        if landing is None:
            return []
        batch.append(
            {
                "type": "reschedule",
                "item_id": held["id"],
                "from_slot": target,
                "to_slot": landing,
                "justification": "Frees the slot the team agreed on for the new meeting.",
            }
        )
    batch.append({"type": "schedule", "meeting_id": info["meeting"]["id"], "slot": target})
    return batch


class OracleFollower(Agent):
    """Schedules every meeting where the oracle puts it (a test driver; see module docstring)."""

    spec = "oracle-follower"

    async def act(self, request: Request, record: Recorder = no_record) -> Action:
        info = {**request.info, "seat": request.seat}
        phase = info["phase"]
        if phase == "DECISION":
            return {"thinking": "Following the oracle's slot.", "actions": follow_oracle(info)}
        first = info["speaker_order"][0] == request.seat
        if phase == "CHEAP_TALK" and info["turn"] == 0 and first and info["is_participant"]:
            slot = _target(info)
            if slot is not None:
                return {"thinking": "Propose the oracle's slot.", "actions": _proposal(info, slot)}
        return {"thinking": "", "actions": []}
