"""Play-time calendar rules: batch validation, application and consistency (CalBench App. A.5,
§3 "Round structure", §3 "Costs").

A live calendar is a tuple of slots, each ``None`` (free) or an `Item`: an errand (possibly
blocked) or the agent's copy of a scheduled meeting. Everything here is a pure function over
such frozen tuples; the engine, the reference agents and the tests share them.

Batch validation (App. A.5) checks, in this order, and reports the first conflict found:

1. slot bounds: every ``slot``, ``from_slot`` and ``to_slot`` is an integer in [0, S);
2. item identity: a reschedule's ``item_id`` is the id of the item at ``from_slot``;
3. no blocked moves;
4. no destination conflicts: no two reschedules share a ``to_slot`` (and, our addition, no
   item is moved twice);
5. freeness after the batch: each ``to_slot`` is free or vacated by another reschedule of the
   same batch (so swaps are allowed, a move onto itself is not);
6. exactly one schedule in DECISION (none allowed in VOLUNTARY), naming the current meeting;
7. the schedule slot is free once the reschedules are applied.

Moves are simultaneous: validation and application read the calendar as it was before the
batch. Moving an errand costs its cost; moving an agent's copy of a scheduled meeting costs the
meeting's cost (1 by default) on that calendar (§3 "Costs").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from accord.games.calendar.scenario import Meeting, Scenario

ItemKind = Literal["errand", "meeting"]


@dataclass(frozen=True, slots=True)
class Item:
    """What occupies one slot of a live calendar."""

    kind: ItemKind
    id: int
    cost: int
    blocked: bool = False
    participants: tuple[int, ...] = ()

    def describe(self) -> str:
        """Short name used in conflict strings: ``errand #3`` or ``meeting M2``."""
        if self.kind == "meeting":
            return f"meeting M{self.id}"
        return f"{'blocked ' if self.blocked else ''}errand #{self.id}"

    def matches(self, item_id: int) -> bool:
        """Whether a reschedule naming `item_id` refers to this item."""
        return self.id == item_id


Calendar = tuple[Item | None, ...]


@dataclass(frozen=True, slots=True)
class Place:
    """A ``schedule`` action: write the meeting to `slot`."""

    meeting_id: int
    slot: object


@dataclass(frozen=True, slots=True)
class Move:
    """A ``reschedule`` action: move the item at `from_slot` to `to_slot`."""

    item_id: int
    from_slot: object
    to_slot: object
    justification: str = ""


Batch = Sequence[Place | Move]

CONFLICTS: dict[str, str] = {
    "slot_bounds": "{field}={value} is not a valid slot; slots are integers 0 to {last}",
    "item_free": "reschedule names item {item} at slot {slot}, but slot {slot} is free",
    "item_identity": "reschedule names item {item} at slot {slot}, but slot {slot} holds {held}",
    "blocked_move": "cannot move {held} at slot {slot}: it is blocked",
    "same_destination": "two reschedules target the same to_slot {slot}",
    "moved_twice": "the item at slot {slot} is moved more than once in one batch",
    "not_free_after": "to_slot {slot} is not free after the batch: it holds {held}",
    "schedule_count": "Expected exactly 1 schedule action, got {count}",
    "schedule_in_voluntary": "schedule is not allowed in the VOLUNTARY phase, got {count}",
    "wrong_meeting": "schedule names meeting {given}, but the meeting to schedule is M{meeting}",
    "schedule_not_free": "schedule slot {slot} is not free after the reschedules: it holds {held}",
}
"""Conflict strings by check; the rule-6 count string is the paper's own (App. A.3)."""


def conflict(key: str, **fields: object) -> str:
    """The conflict string `key` filled with `fields`."""
    return CONFLICTS[key].format(**fields)


def initial_calendars(scenario: Scenario) -> tuple[Calendar, ...]:
    """Live calendars at the start of a game: the scenario's errands, no meetings yet."""
    return tuple(
        tuple(
            None if e is None else Item(kind="errand", id=e.id, cost=e.cost, blocked=e.blocked)
            for e in cal
        )
        for cal in scenario.calendars
    )


def meeting_item(meeting: Meeting) -> Item:
    """The calendar copy of `meeting`."""
    return Item(kind="meeting", id=meeting.id, cost=meeting.cost, participants=meeting.participants)


def _is_slot(value: object, num_slots: int) -> bool:
    # bool is an int subclass, but True is not a slot number.
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < num_slots


def validate_batch(
    calendar: Calendar, batch: Batch, *, meeting_id: int | None, require_schedule: bool
) -> str | None:
    """The first App. A.5 conflict of `batch` on `calendar`, or None when it is valid.

    `require_schedule` selects the DECISION rule (exactly one schedule of `meeting_id`);
    without it (VOLUNTARY) the batch may hold reschedules only.
    """
    last = len(calendar) - 1
    moves = [a for a in batch if isinstance(a, Move)]
    places = [a for a in batch if isinstance(a, Place)]
    # Rule 1: slot bounds.
    for action in batch:
        fields = (
            (("slot", action.slot),)
            if isinstance(action, Place)
            else (("from_slot", action.from_slot), ("to_slot", action.to_slot))
        )
        for name, value in fields:
            if not _is_slot(value, len(calendar)):
                return conflict("slot_bounds", field=name, value=value, last=last)
    # Rules 2 and 3: item identity, no blocked moves.
    for m in moves:
        assert isinstance(m.from_slot, int)
        held = calendar[m.from_slot]
        if held is None:
            return conflict("item_free", item=m.item_id, slot=m.from_slot)
        if not held.matches(m.item_id):
            return conflict("item_identity", item=m.item_id, slot=m.from_slot, held=held.describe())
        if held.blocked:
            return conflict("blocked_move", held=held.describe(), slot=m.from_slot)
    # Rule 4: no destination conflicts (and no item moved twice).
    seen_to: set[object] = set()
    seen_from: set[object] = set()
    for m in moves:
        if m.to_slot in seen_to:
            return conflict("same_destination", slot=m.to_slot)
        if m.from_slot in seen_from:
            return conflict("moved_twice", slot=m.from_slot)
        seen_to.add(m.to_slot)
        seen_from.add(m.from_slot)
    # Rule 5: each destination is free or vacated by *another* move of the batch.
    for m in moves:
        assert isinstance(m.to_slot, int)
        held = calendar[m.to_slot]
        vacated = any(o.from_slot == m.to_slot for o in moves if o is not m)
        if held is not None and not vacated:
            return conflict("not_free_after", slot=m.to_slot, held=held.describe())
    # Rule 6: exactly one schedule of the current meeting (none in VOLUNTARY).
    if not require_schedule:
        if places:
            return conflict("schedule_in_voluntary", count=len(places))
        return None
    if len(places) != 1:
        return conflict("schedule_count", count=len(places))
    place = places[0]
    if place.meeting_id != meeting_id:
        return conflict("wrong_meeting", given=place.meeting_id, meeting=meeting_id)
    # Rule 7: the schedule slot is free once every move is applied.
    after = apply_moves(calendar, moves)
    assert isinstance(place.slot, int)
    held = after[place.slot]
    if held is not None:
        return conflict("schedule_not_free", slot=place.slot, held=held.describe())
    return None


def apply_moves(calendar: Calendar, moves: Iterable[Move]) -> Calendar:
    """`calendar` with every move applied at once (the moves must have been validated)."""
    moves = list(moves)
    out = list(calendar)
    picked = [(m, calendar[m.from_slot]) for m in moves if isinstance(m.from_slot, int)]
    for m, _ in picked:
        assert isinstance(m.from_slot, int)
        out[m.from_slot] = None
    for m, item in picked:
        assert isinstance(m.to_slot, int)
        out[m.to_slot] = item
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Applied:
    """The result of applying a valid batch to one calendar."""

    calendar: Calendar
    moved: tuple[Item, ...]
    """Items moved, in batch order; each costs its `cost` on this calendar."""
    slot: int | None
    """Where the meeting was written (None in VOLUNTARY)."""

    @property
    def cost(self) -> int:
        """Displacement cost of the batch on this calendar."""
        return sum(item.cost for item in self.moved)


def apply_batch(calendar: Calendar, batch: Batch, meeting: Meeting | None) -> Applied:
    """Apply a batch that `validate_batch` accepted: moves first, then the schedule."""
    moves = [a for a in batch if isinstance(a, Move)]
    moved = tuple(item for m in moves if (item := _at(calendar, m.from_slot)) is not None)
    after = list(apply_moves(calendar, moves))
    slot: int | None = None
    for action in batch:
        if isinstance(action, Place):
            assert meeting is not None and isinstance(action.slot, int)
            after[action.slot] = meeting_item(meeting)
            slot = action.slot
    return Applied(calendar=tuple(after), moved=moved, slot=slot)


def _at(calendar: Calendar, slot: object) -> Item | None:
    return calendar[slot] if isinstance(slot, int) else None


def meeting_slots(calendars: Sequence[Calendar], meeting: Meeting) -> dict[int, list[int]]:
    """For each participant of `meeting`, the slots holding its copy (normally one or none)."""
    return {
        a: [
            s
            for s, item in enumerate(calendars[a])
            if item is not None and item.kind == "meeting" and item.id == meeting.id
        ]
        for a in meeting.participants
    }


def consistent_slot(calendars: Sequence[Calendar], meeting: Meeting) -> int | None:
    """The slot `meeting` occupies on every participant's calendar, or None if it does not
    occupy one common slot exactly once on each (§3 "Round structure")."""
    per_agent = meeting_slots(calendars, meeting)
    slots = {tuple(v) for v in per_agent.values()}
    if len(slots) != 1:
        return None
    (only,) = slots
    return only[0] if len(only) == 1 else None


def inconsistent_meetings(
    calendars: Sequence[Calendar], meetings: Iterable[Meeting]
) -> dict[int, dict[int, list[int]]]:
    """Among `meetings`, those not at one common slot: meeting id -> per-agent slots."""
    out: dict[int, dict[int, list[int]]] = {}
    for m in meetings:
        if consistent_slot(calendars, m) is None:
            out[m.id] = meeting_slots(calendars, m)
    return out


def render_fields(item: Item | None) -> Mapping[str, object] | None:
    """An item as a JSON-able dict (for reference agents' `info` and trace events)."""
    if item is None:
        return None
    out: dict[str, object] = {"kind": item.kind, "id": item.id, "cost": item.cost}
    if item.kind == "errand":
        out["blocked"] = item.blocked
    else:
        out["participants"] = list(item.participants)
    return out


@dataclass(frozen=True)
class Resolution:
    """The RESOLUTION phase of one round (§3 "Round structure", Algorithm 1 lines 49-54)."""

    calendars: tuple[Calendar, ...]
    """Every calendar with the staged batches committed (kept only when `success`)."""
    applied: dict[int, Applied]
    """Each participant's committed batch."""
    chosen: tuple[int | None, ...]
    """Slot each participant scheduled, in participant order; None without a valid batch."""
    broken: dict[int, dict[int, list[int]]]
    """Earlier meetings no longer at one common slot after the commit."""
    reason: str
    """Why the round failed; empty on success."""

    @property
    def success(self) -> bool:
        """Every participant chose one slot and every earlier meeting stayed consistent."""
        return not self.reason


def resolve_round(
    calendars: Sequence[Calendar],
    staged: Mapping[int, Batch | None],
    meeting: Meeting,
    earlier: Iterable[Meeting],
) -> Resolution:
    """Commit the participants' staged batches together and judge the round."""
    trial = list(calendars)
    applied: dict[int, Applied] = {}
    chosen: list[int | None] = []
    for seat in meeting.participants:
        batch = staged.get(seat)
        if batch is None:
            chosen.append(None)
            continue
        applied[seat] = apply_batch(trial[seat], batch, meeting)
        trial[seat] = applied[seat].calendar
        chosen.append(applied[seat].slot)
    broken = inconsistent_meetings(trial, earlier)
    missing = [a for a, s in zip(meeting.participants, chosen, strict=True) if s is None]
    if missing:
        reason = f"agent(s) {missing} submitted no valid batch"
    elif len(set(chosen)) > 1:
        reason = "the participants scheduled it in different slots"
    elif broken:
        reason = f"earlier meeting(s) {[f'M{m}' for m in broken]} lost their common slot"
    else:
        reason = ""
    return Resolution(tuple(trial), applied, tuple(chosen), broken, reason)


def keeps_failed_round(res: Resolution, meeting: Meeting, policy: str) -> bool:
    """Whether a failed round's DECISION batches stay committed (and charged).

    ``keep`` is the CalBench release's RESOLUTION (its game loop commits the staged batches
    whenever every participant passed validation, then judges coordination; only a participant
    without a valid batch rolls the others back), which is what the paper's Table 2 measured:
    excess there includes what uncoordinated rounds displaced. ``rollback`` undoes every
    DECISION move of a failed round, so an unscheduled meeting costs nothing (§4.2, read
    literally)."""
    if res.success or policy != "keep":
        return False
    return len(res.applied) == len(meeting.participants)
