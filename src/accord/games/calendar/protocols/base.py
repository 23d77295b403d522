"""Machinery shared by the calendar reference protocols (CalBench App. D, preamble and D.4).

A protocol seat is an ordinary `Agent`: it reads the request's structured `info` (its own
calendar, its inbox, the meeting, the phase), answers with the same tool calls an LLM seat
would send, and its batches go through the same App. A.5 validation. Only the policy differs.

* `View` is one request's `info`, with the calendar rebuilt as `rules.Item`s and the inbox split
  into typed protocol messages (`messages.decode`) and everything else (natural language).
* `route` turns "send payload P to seats R" into tool calls on the game's channels: one ``dm``
  per recipient when direct messages exist; otherwise one group message naming its recipients.
* `build_batch` turns an agreement (a slot for the meeting, prior meetings to move) into a batch
  that `rules.validate_batch` accepts, or None when the calendar cannot honour it.
* `ProtocolAgent` runs the request loop: per-round state, message intake, phase dispatch. A
  REFLECTION request (the F.3 measurement prompt) gets an abstention: typed seats are measured by
  the protocol-semantic estimator instead.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from accord.agents.base import Agent, Recorder, no_record
from accord.core.spec import Action, Request
from accord.games.calendar import actions, rules
from accord.games.calendar.protocols.messages import Move, Typed, decode, fit
from accord.games.calendar.rules import Calendar, Item

DEADLINE_SWEEPS = 1
"""Sweeps after a request when a polled initiator stops waiting for a seat that never answered
in the protocol (an LLM seat, say). One is enough: participants speak every sweep and a
contacted non-participant speaks in the same sweep, after the participants, so every protocol
seat has answered before the initiator's next turn. Waiting longer would risk a quiet sweep,
which ends cheap talk."""

_SLOT_TEXT = re.compile(r"\bslot\s*#?\s*(\d+)", re.I)


@dataclass(frozen=True)
class Incoming:
    """One inbox message as a protocol seat sees it."""

    sender: int
    message: Typed | None
    """The typed message, or None for natural language."""
    content: str


@dataclass(frozen=True)
class View:
    """One request's facts, typed (see the module docstring)."""

    seat: int
    phase: str
    round: int
    turn: int
    max_turns: int | None
    meeting_id: int
    participants: tuple[int, ...]
    is_participant: bool
    calendar: Calendar
    inbox: tuple[Incoming, ...]
    num_agents: int
    num_slots: int
    channels: tuple[str, ...]
    attempt: int
    cost_display: str = "linear"
    """How the task shows costs to agents (`Scenario.cost_display`)."""

    @classmethod
    def from_request(cls, request: Request) -> View:
        """Build the view of `request` (a calendar-v2 request)."""
        info = request.info
        inbox = tuple(
            Incoming(int(m["sender"]), decode(str(m["content"])), str(m["content"]))
            for m in info.get("inbox", [])
        )
        return cls(
            seat=request.seat,
            phase=str(info["phase"]),
            round=int(info["round"]),
            turn=int(info.get("turn", 0)),
            max_turns=info.get("max_turns"),
            meeting_id=int(info["meeting"]["id"]),
            participants=tuple(int(a) for a in info["meeting"]["participants"]),
            is_participant=bool(info.get("is_participant", False)),
            calendar=calendar_from_info(info.get("calendar", [])),
            inbox=inbox,
            num_agents=int(info["num_agents"]),
            num_slots=int(info["num_slots"]),
            channels=tuple(info.get("message_types", ())),
            attempt=int(info.get("attempt", 1)),
            cost_display=str(info.get("cost_display", "linear")),
        )

    @property
    def initiator(self) -> int:
        """The lowest-id participant, who leads every protocol (App. D.1-D.3)."""
        return min(self.participants)

    @property
    def others(self) -> list[int]:
        """The other participants of this round's meeting."""
        return [a for a in self.participants if a != self.seat]

    def typed(self) -> list[tuple[int, Typed]]:
        """Typed messages addressed to this seat and about this round's meeting."""
        return [
            (m.sender, m.message)
            for m in self.inbox
            if m.message is not None
            and m.message.addressed_to(self.seat)
            and m.message.meeting == self.meeting_id
        ]


def calendar_from_info(rows: Sequence[Any]) -> Calendar:
    """`info["calendar"]` (``rules.render_fields`` dicts) back as a live calendar."""
    out: list[Item | None] = []
    for row in rows:
        if row is None:
            out.append(None)
        elif row["kind"] == "meeting":
            parts = tuple(int(a) for a in row.get("participants", ()))
            out.append(Item("meeting", int(row["id"]), int(row["cost"]), participants=parts))
        else:
            out.append(Item("errand", int(row["id"]), int(row["cost"]), bool(row["blocked"])))
    return tuple(out)


def reachable(view: View, recipients: Iterable[int]) -> bool:
    """Whether the game's channels can carry a message from this seat to `recipients`."""
    targets = set(recipients) - {view.seat}
    if "dm" in view.channels or "all_groupchat" in view.channels:
        return True
    return (
        "participant_groupchat" in view.channels
        and view.is_participant
        and targets <= set(view.participants)
    )


def route(view: View, recipients: Sequence[int], payload: Typed) -> list[dict[str, Any]]:
    """Tool calls delivering `payload` to `recipients` (empty when no channel reaches them)."""
    targets = [a for a in dict.fromkeys(recipients) if a != view.seat]
    if not targets:
        return []
    limit = actions.CONTENT_MAX
    if "dm" in view.channels:
        parts = fit(payload, limit)
        return [{"type": "dm", "to": a, "content": p.encode()} for a in targets for p in parts]
    named = fit(payload.model_copy(update={"to": sorted(targets)}), limit)
    group = "participant_groupchat" in view.channels and view.is_participant
    if group and set(targets) <= set(view.participants):
        kind = "participant_groupchat"
    elif "all_groupchat" in view.channels:
        kind = "all_groupchat"
    else:
        return []
    return [{"type": kind, "content": p.encode()} for p in named]


def satisfaction_cost(cost: int) -> int:
    """Severity of a displacement cost on a small integer scale: 0 for no cost, else
    1 + ceil(log2 cost). Keeps 1/2/3 and 1/100/1000 costs distinct and ordered (App. D.3
    levels need a cost scale that works for every task file)."""
    return 0 if cost <= 0 else 1 + math.ceil(math.log2(cost))


def landing_slots(calendar: Calendar, exclude: Iterable[int]) -> list[int]:
    """Free slots, lowest first, minus `exclude`: where displaced errands go."""
    banned = set(exclude)
    return [s for s, item in enumerate(calendar) if item is None and s not in banned]


def plan_cost(
    calendar: Calendar, slot: int | None, moves: Sequence[Move], reserved: Iterable[int] = ()
) -> int | None:
    """Cost on `calendar` of writing a meeting to `slot` (None: no new meeting) after moving the
    prior meetings in `moves` that sit on this calendar; None when it cannot be done."""
    plan = _plan_moves(calendar, slot, moves, reserved)
    return None if plan is None else sum(item.cost for item, _, _ in plan)


def build_batch(
    calendar: Calendar,
    *,
    meeting_id: int | None,
    slot: int | None,
    moves: Sequence[Move] = (),
    protocol: str,
) -> list[dict[str, Any]] | None:
    """The batch that moves the listed prior meetings (those on this calendar), clears `slot`
    and schedules `meeting_id` there (no schedule when `slot` is None); None when invalid."""
    plan = _plan_moves(calendar, slot, moves, ())
    if plan is None:
        return None
    calls: list[dict[str, Any]] = [
        {
            "type": "reschedule",
            "item_id": item.id,
            "from_slot": src,
            "to_slot": dst,
            "justification": f"protocol={protocol};frees-slot-for=M{meeting_id}",
        }
        for item, src, dst in plan
    ]
    if slot is not None:
        calls.append({"type": "schedule", "meeting_id": meeting_id, "slot": slot})
    batch = [
        rules.Place(meeting_id=c["meeting_id"], slot=c["slot"])
        if c["type"] == "schedule"
        else rules.Move(c["item_id"], c["from_slot"], c["to_slot"], c["justification"])
        for c in calls
    ]
    problem = rules.validate_batch(
        calendar, batch, meeting_id=meeting_id, require_schedule=slot is not None
    )
    return None if problem is not None else calls


def _plan_moves(
    calendar: Calendar, slot: int | None, moves: Sequence[Move], reserved: Iterable[int]
) -> list[tuple[Item, int, int]] | None:
    """(item, from, to) for every item that must move; None when impossible."""
    named = [s for move in moves for s in move[1:]] + ([slot] if slot is not None else [])
    if any(not 0 <= s < len(calendar) for s in named):
        return None  # a typed message may name any integer; only real slots can be planned
    mine = [
        (mid, src, dst)
        for mid, src, dst in moves
        if (held := calendar[src]) is not None and held.kind == "meeting" and held.id == mid
    ]
    leaving = {src for _, src, _ in mine}
    out: list[tuple[Item, int, int]] = []
    for _, src, dst in mine:
        item = calendar[src]
        assert item is not None
        out.append((item, src, dst))
    targets = [dst for _, _, dst in mine] + ([slot] if slot is not None else [])
    if len(set(targets)) != len(targets):
        return None
    evicted: list[tuple[Item, int]] = []
    for target in targets:
        held = calendar[target]
        if held is None or target in leaving:
            continue
        if held.kind != "errand" or held.blocked:
            return None
        evicted.append((held, target))
    # A slot a moving meeting leaves is as good a landing as a free one (moves are simultaneous).
    banned = {*targets, *reserved}
    free = landing_slots(calendar, banned) + sorted(leaving - banned)
    if len(free) < len(evicted):
        return None
    out += [(item, src, dst) for (item, src), dst in zip(evicted, free, strict=False)]
    return out


def slot_named_in_text(view: View) -> int | None:
    """The last slot number a participant named in natural language this round, if any.

    Used only by a protocol seat that reaches DECISION without a typed agreement (a game mixed
    with LLM seats): it follows the slot the LLM participants talked about."""
    found: int | None = None
    for m in view.inbox:
        if m.message is None and m.sender in view.participants:
            hits = _SLOT_TEXT.findall(m.content)
            if hits and 0 <= int(hits[-1]) < view.num_slots:
                found = int(hits[-1])
    return found


class ProtocolAgent(Agent):
    """Request loop of a protocol seat; subclasses implement the policy hooks."""

    protocol: str = "protocol"
    """Name used in logged status and move justifications."""

    def __init__(self) -> None:
        super().__init__()
        self._round = 0
        self._text_slot: int | None = None

    async def act(self, request: Request, record: Recorder = no_record) -> Action:
        del record
        phase = str(request.info.get("phase", ""))
        if phase not in ("CHEAP_TALK", "VOLUNTARY", "DECISION"):
            return {"thinking": "", "deltas": {}}
        view = View.from_request(request)
        if view.round != self._round:
            self._round = view.round
            self._text_slot = None
            self.start_round(view)
        named = slot_named_in_text(view)
        if named is not None:
            self._text_slot = named
        for sender, message in view.typed():
            self.receive(view, sender, message)
        if phase == "CHEAP_TALK":
            calls = self.talk(view)
        elif phase == "VOLUNTARY":
            calls = self.voluntary(view) or []
        else:
            calls = self.decide(view) or self._follow_text(view)
        return {"thinking": json.dumps(self.status(), separators=(",", ":")), "actions": calls}

    def _follow_text(self, view: View) -> list[dict[str, Any]]:
        """DECISION without a typed agreement: the slot named in plain text, else nothing."""
        if self._text_slot is None or not view.is_participant:
            return []
        batch = build_batch(
            view.calendar, meeting_id=view.meeting_id, slot=self._text_slot, protocol=self.protocol
        )
        return batch or []

    # -- hooks -------------------------------------------------------------------------------
    def start_round(self, view: View | None) -> None:
        """Reset per-round state (the first request of a round; None before the game)."""

    def receive(self, view: View, sender: int, message: Typed) -> None:
        """Take in one typed message addressed to this seat."""

    def talk(self, view: View) -> list[dict[str, Any]]:
        """CHEAP_TALK: the messages to send now."""
        return []

    def voluntary(self, view: View) -> list[dict[str, Any]] | None:
        """VOLUNTARY (a contacted non-participant): moves agreed in cheap talk."""
        return None

    def decide(self, view: View) -> list[dict[str, Any]] | None:
        """DECISION: the batch for the agreed slot; None when nothing was agreed."""
        return None

    def status(self) -> dict[str, Any]:
        """A typed summary of the seat's state, logged as the reply's private ``thinking``."""
        return {"protocol": self.protocol, "round": self._round}
