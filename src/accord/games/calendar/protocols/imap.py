"""IMAP, the incremental full-disclosure reference protocol (CalBench App. D.1, spec ``imap``).

Per meeting, the lowest-id participant (the initiator):

1. sends one ``cost_request`` to every other participant, listing every slot of the calendar;
2. each responder answers with one ``costs`` message: per requested slot its local insertion
   cost, 0 for a free slot, the errand's cost for a movable errand that has a free slot to land
   on, and null otherwise (a blocked errand, or a prior meeting: IMAP never bumps);
3. the initiator adds its own vector to the replies and picks the feasible slot of least total
   cost, the lowest slot on ties, and sends it to every responder in a ``decision`` message;
4. in DECISION every participant moves the errand on that slot (if any) to its lowest free slot
   and schedules the meeting there.

So a meeting costs 2(P-1) + (P-1) messages: for three participants, six (two requests, two
cost vectors, two decisions), 2.00 per seat and meeting in the canonical suite (Table 2).

Costs are the task's own internal units (1/2/3 in generated varied tasks, 1/100/1000 in the
published varied file): the argmin is then exact for the local errand subproblem on the scale
the oracle uses. A responder that never answers in the protocol (an LLM seat) is left out of the
sum once `DEADLINE_SWEEPS` sweeps have passed.
"""

from __future__ import annotations

from typing import Any

from accord.games.calendar.protocols.base import (
    DEADLINE_SWEEPS,
    ProtocolAgent,
    View,
    build_batch,
    plan_cost,
    route,
)
from accord.games.calendar.protocols.messages import CostRequest, Costs, ImapDecision, Typed
from accord.games.calendar.rules import Calendar


def cost_vector(calendar: Calendar, slots: list[int]) -> list[int | None]:
    """Local insertion cost of each slot in `slots` (App. D.1; see the module docstring)."""
    return [plan_cost(calendar, s, ()) if 0 <= s < len(calendar) else None for s in slots]


def pick_slot(vectors: list[list[int | None]]) -> int | None:
    """The slot with the least total cost over `vectors` (all of one length) that is feasible in
    every vector; the lowest slot wins ties; None when no slot is feasible for everyone."""
    best: tuple[int, int] | None = None
    for slot in range(len(vectors[0])):
        column = [v[slot] for v in vectors]
        if any(c is None for c in column):
            continue
        total = sum(c for c in column if c is not None)
        if best is None or total < best[0]:
            best = (total, slot)
    return None if best is None else best[1]


class ImapAgent(ProtocolAgent):
    """One IMAP seat (see the module docstring)."""

    protocol = "imap"

    def __init__(self) -> None:
        super().__init__()
        self.start_round(None)

    def start_round(self, view: View | None) -> None:
        del view
        self._requested_at: int | None = None
        self._replies: dict[int, dict[int, int | None]] = {}
        self._agreed: int | None = None
        self._pending_replies: list[tuple[int, CostRequest]] = []

    def receive(self, view: View, sender: int, message: Typed) -> None:
        if isinstance(message, CostRequest):
            self._pending_replies.append((sender, message))
        elif isinstance(message, Costs) and view.seat == view.initiator:
            part = dict(zip(message.slots, message.costs, strict=False))
            self._replies.setdefault(sender, {}).update(part)
        elif isinstance(message, ImapDecision) and sender == view.initiator:
            self._agreed = message.slot

    def talk(self, view: View) -> list[dict[str, Any]]:
        if not view.is_participant:
            return []
        calls: list[dict[str, Any]] = []
        for sender, req in self._pending_replies:
            costs = cost_vector(view.calendar, req.slots)
            reply = Costs(meeting=view.meeting_id, slots=req.slots, costs=costs)
            calls += route(view, [sender], reply)
        self._pending_replies = []
        if view.seat != view.initiator or self._agreed is not None:
            return calls
        if self._requested_at is None:
            self._requested_at = view.turn
            request = CostRequest(meeting=view.meeting_id, slots=list(range(view.num_slots)))
            return calls + route(view, view.others, request)
        waited = view.turn - self._requested_at
        if set(view.others) - set(self._replies) and waited < DEADLINE_SWEEPS:
            return calls
        slot = self._choose(view)
        if slot is None:
            return calls
        self._agreed = slot
        return calls + route(view, view.others, ImapDecision(meeting=view.meeting_id, slot=slot))

    def _choose(self, view: View) -> int | None:
        slots = list(range(view.num_slots))
        vectors = [cost_vector(view.calendar, slots)]
        vectors += [[reply.get(s) for s in slots] for reply in self._replies.values()]
        return pick_slot(vectors)

    def decide(self, view: View) -> list[dict[str, Any]] | None:
        if self._agreed is None:
            return None
        return build_batch(
            view.calendar, meeting_id=view.meeting_id, slot=self._agreed, protocol=self.protocol
        )

    def status(self) -> dict[str, Any]:
        return super().status() | {"agreed": self._agreed}
