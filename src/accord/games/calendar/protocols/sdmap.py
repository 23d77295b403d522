"""SD-MAP, the binary-feasibility reference protocol (CalBench App. D.2, spec ``sd-map``).

Per meeting M1, the lowest-id participant (the initiator) walks its candidate slots in local
calendar order: ascending slot index over the slots its own calendar answers PENDING for. Each
attempt is one ``propose`` to every other participant; each answers one ``reply``:

* PENDING if the slot is free, or holds a movable errand that has a free slot to land on;
* PENDING if the slot holds a prior meeting M2 that the scheduling-difficulty rule lets M1 bump,
  Δ(M2) < Δ(M1) with Δ(M) = Σ σ(a) over M's participants other than the replying seat (the
  bump is recorded as tentative);
* IMPOSSIBLE otherwise.

All PENDING: the initiator sends ``confirm``; otherwise it proposes its next candidate, and after
the last one it sends ``fail``. σ comes from `sd_model` (agent -> weight); the registered spec
uses unit weights, the paper's setting, under which the rule reads "bump iff M2 has strictly
fewer other participants than M1" (never, when all meetings have one size).

Bump repair. Every participant holding a tentatively bumped M2 on the confirmed slot sends
``reschedule_request`` to M2's initiator J (its lowest-id participant). J walks its own slots in
ascending order (free or movable errand, not M2's slot), sends ``propose_reschedule`` to M2's
other participants, who answer ``reschedule_reply`` (same binary rule, without bumping); all
PENDING gives ``confirm_reschedule``, exhausting the slots gives ``fail_reschedule``. Current
participants move M2 in their DECISION batch, contacted non-participants in VOLUNTARY. On
``fail_reschedule`` M2 stays on its pre-bump slot and the bumper withdraws its PENDING with a
``reply`` IMPOSSIBLE, so the initiator resumes its walk.

``sd-map-paper`` (``walk="every"``) reads D.2 word for word: the initiator iterates over every
slot in calendar order and only the responders evaluate a proposal, so a slot the initiator
itself cannot take may be confirmed and its round then fails. This reproduces Table 2's
coordination (about 62 %) and message counts; ``sd-map`` follows the release's client, which
walks only the initiator's own feasible slots (99.6 %). See docs/calendar.md.

Choice forced by the engine: the paper runs the repair in the next round's cheap talk, but a
round only succeeds if every earlier meeting still sits at one common slot, so a bump left for
later would always fail the bumping round. The repair therefore runs in the same round's cheap
talk, right after ``confirm``; the message vocabulary and order are the paper's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from accord.games.calendar.protocols.base import (
    DEADLINE_SWEEPS,
    ProtocolAgent,
    View,
    build_batch,
    plan_cost,
    reachable,
    route,
)
from accord.games.calendar.protocols.messages import (
    Confirm,
    ConfirmReschedule,
    Fail,
    FailReschedule,
    Propose,
    ProposeReschedule,
    Reply,
    RescheduleReply,
    RescheduleRequest,
    Status,
    Typed,
)
from accord.games.calendar.rules import Item

Out = tuple[list[int], Typed]


@dataclass
class Walk:
    """One initiator's walk over candidate slots (for M1, or for an M2 repair)."""

    candidates: list[int]
    members: list[int]
    """Who must answer each proposal."""
    index: int = 0
    proposed: int | None = None
    proposed_at: int = 0
    answers: dict[int, Status] = field(default_factory=dict)
    done: bool = False

    def next_slot(self) -> int | None:
        """The next untried candidate (and mark it proposed), or None when exhausted."""
        if self.index >= len(self.candidates):
            self.proposed = None
            return None
        self.proposed = self.candidates[self.index]
        self.index += 1
        self.answers = {}
        return self.proposed

    def settled(self, turn: int | None) -> bool:
        """Every member answered, or (for a polled seat) the deadline passed."""
        if not set(self.members) - set(self.answers):
            return True
        return turn is not None and turn - self.proposed_at >= DEADLINE_SWEEPS

    def accepted(self) -> bool:
        """No member objected (a member that never answered does not object)."""
        return all(status == "PENDING" for status in self.answers.values())


class SdMapAgent(ProtocolAgent):
    """One SD-MAP seat (see the module docstring).

    Args:
        sd_model: per-agent difficulty weight σ; agents not listed weigh 1.0.
        walk: the initiator's candidates. ``"own"`` (the release, spec ``sd-map``): the
            slots its own calendar answers PENDING for. ``"every"`` (spec ``sd-map-paper``):
            D.2 read word for word, every slot in calendar order, with only the responders
            evaluating it, so the initiator may confirm a slot it cannot take itself.
    """

    protocol = "sd-map"

    def __init__(
        self, sd_model: Mapping[int, float] | None = None, walk: Literal["own", "every"] = "own"
    ) -> None:
        super().__init__()
        self.sigma = dict(sd_model or {})
        self.walk = walk
        self.start_round(None)

    def start_round(self, view: View | None) -> None:
        self._walk: Walk | None = None
        self._agreed: int | None = None
        self._bumps: dict[int, Item] = {}
        """Slot -> prior meeting this seat tentatively bumped there."""
        self._requested: set[int] = set()
        self._repairs: dict[int, Walk] = {}
        """Bumped meeting -> repair walk, on the seat that coordinates it."""
        self._repair_from: dict[int, int] = {}
        self._moves: dict[int, tuple[int, int]] = {}
        """Bumped meeting -> (from, to), once its repair is confirmed."""
        self._out: list[Out] = []

    # -- the rule ----------------------------------------------------------------------------
    def difficulty(self, participants: tuple[int, ...], seat: int) -> float:
        """Δ(M) for the seat `seat` (App. D.2)."""
        return sum(self.sigma.get(a, 1.0) for a in participants if a != seat)

    def evaluate(self, view: View, slot: int) -> Status:
        """This seat's binary answer for `slot` (recording a tentative bump)."""
        if not 0 <= slot < view.num_slots:
            return "IMPOSSIBLE"
        item = view.calendar[slot]
        if item is not None and item.kind == "meeting":
            new = self.difficulty(view.participants, view.seat)
            if self.difficulty(item.participants, view.seat) < new and reachable(
                view, item.participants
            ):
                self._bumps[slot] = item
                return "PENDING"
            return "IMPOSSIBLE"
        return "PENDING" if plan_cost(view.calendar, slot, ()) is not None else "IMPOSSIBLE"

    def _repair_status(self, view: View, msg: ProposeReschedule) -> Status:
        if msg.slot == msg.from_slot or msg.slot == self._agreed or msg.slot >= view.num_slots:
            return "IMPOSSIBLE"
        return "PENDING" if plan_cost(view.calendar, msg.slot, ()) is not None else "IMPOSSIBLE"

    # -- messages ----------------------------------------------------------------------------
    def receive(self, view: View, sender: int, message: Typed) -> None:
        m = message
        if isinstance(m, Propose):
            self._agreed = None
            self._out.append(([sender], self._reply(view, m.slot)))
        elif isinstance(m, Reply):
            walk = self._walk
            if walk is not None and m.slot == walk.proposed:
                walk.answers[sender] = m.status
            elif m.slot == self._agreed and m.status == "IMPOSSIBLE":
                self._agreed = None  # a bump could not be repaired: resume the walk
        elif isinstance(m, Confirm):
            self._agreed = m.slot
        elif isinstance(m, Fail):
            self._agreed = None
        elif isinstance(m, RescheduleRequest):
            self._start_repair(view, m.target, m.slot)
        elif isinstance(m, ProposeReschedule):
            status = self._repair_status(view, m)
            self._out.append(
                (
                    [sender],
                    RescheduleReply(meeting=m.meeting, target=m.target, slot=m.slot, status=status),
                )
            )
        elif isinstance(m, RescheduleReply):
            repair = self._repairs.get(m.target)
            if repair is not None and m.slot == repair.proposed:
                repair.answers[sender] = m.status
        elif isinstance(m, ConfirmReschedule):
            self._moves[m.target] = (m.from_slot, m.slot)
        elif isinstance(m, FailReschedule):
            self._repair_failed(view, m.target)

    def _reply(self, view: View, slot: int) -> Reply:
        return Reply(meeting=view.meeting_id, slot=slot, status=self.evaluate(view, slot))

    def _repair_failed(self, view: View, target: int) -> None:
        """M2 stays put; a bumper withdraws the slot it can no longer free."""
        bumped = self._agreed is not None and self._bumps.get(self._agreed)
        if not bumped or bumped.id != target or self._agreed is None:
            return
        slot, self._agreed = self._agreed, None
        if view.seat != view.initiator:
            self._out.append(
                ([view.initiator], Reply(meeting=view.meeting_id, slot=slot, status="IMPOSSIBLE"))
            )

    def _start_repair(self, view: View, target: int, slot: int) -> None:
        item = view.calendar[slot] if 0 <= slot < view.num_slots else None
        if target in self._repairs or item is None or item.id != target or item.kind != "meeting":
            return
        candidates = [
            s
            for s in range(view.num_slots)
            if s != slot and plan_cost(view.calendar, s, ()) is not None
        ]
        members = [a for a in item.participants if a != view.seat]
        self._repairs[target] = Walk(candidates=candidates, members=members)
        self._repair_from[target] = slot

    # -- phases ------------------------------------------------------------------------------
    def talk(self, view: View) -> list[dict[str, Any]]:
        out, self._out = self._out, []
        if view.is_participant:
            out += self._lead(view)
            out += self._request_repairs(view)
        out += self._run_repairs(view)
        calls: list[dict[str, Any]] = []
        for recipients, payload in out:
            calls += route(view, recipients, payload)
        return calls

    def _lead(self, view: View) -> list[Out]:
        """The initiator's walk over its own candidate slots."""
        if view.seat != view.initiator or self._agreed is not None:
            return []
        walk = self._walk
        if walk is None:
            self._bumps = {}
            if self.walk == "every":  # D.2: "each responder evaluates the slot"
                mine = list(range(view.num_slots))
            else:
                mine = [s for s in range(view.num_slots) if self.evaluate(view, s) == "PENDING"]
            walk = self._walk = Walk(candidates=mine, members=view.others)
        elif walk.done:
            return []
        elif walk.proposed is not None:
            if not walk.settled(view.turn):
                return []
            if walk.accepted():
                self._agreed = walk.proposed
                walk.proposed = None
                return [(view.others, Confirm(meeting=view.meeting_id, slot=self._agreed))]
        slot = walk.next_slot()
        if slot is None:
            walk.done = True
            return [(view.others, Fail(meeting=view.meeting_id))]
        walk.proposed_at = view.turn
        return [(view.others, Propose(meeting=view.meeting_id, slot=slot))]

    def _request_repairs(self, view: View) -> list[Out]:
        """After a confirm: ask the initiator of a bumped meeting for a repair."""
        if self._agreed is None:
            return []
        item = self._bumps.get(self._agreed)
        if item is None or item.id in self._requested:
            return []
        self._requested.add(item.id)
        owner = min(item.participants)
        if owner == view.seat:
            self._start_repair(view, item.id, self._agreed)
            return []
        request = RescheduleRequest(meeting=view.meeting_id, target=item.id, slot=self._agreed)
        return [([owner], request)]

    def _run_repairs(self, view: View) -> list[Out]:
        """Advance every repair this seat coordinates."""
        out: list[Out] = []
        polled = view.turn if view.is_participant else None
        for target, walk in self._repairs.items():
            if walk.done:
                continue
            origin = self._repair_from[target]
            if walk.proposed is not None:
                if not walk.settled(polled):
                    continue
                if walk.accepted():
                    walk.done = True
                    self._moves[target] = (origin, walk.proposed)
                    done = ConfirmReschedule(
                        meeting=view.meeting_id, target=target, from_slot=origin, slot=walk.proposed
                    )
                    out.append((walk.members, done))
                    continue
            slot = walk.next_slot()
            if slot is None:
                walk.done = True
                out.append((walk.members, FailReschedule(meeting=view.meeting_id, target=target)))
                self._repair_failed(view, target)
                continue
            walk.proposed_at = view.turn
            propose = ProposeReschedule(
                meeting=view.meeting_id, target=target, from_slot=origin, slot=slot
            )
            out.append((walk.members, propose))
        return out

    def _agreed_moves(self) -> list[tuple[int, int, int]]:
        return [(mid, src, dst) for mid, (src, dst) in self._moves.items()]

    def voluntary(self, view: View) -> list[dict[str, Any]] | None:
        if not self._moves:
            return None
        return build_batch(
            view.calendar,
            meeting_id=view.meeting_id,
            slot=None,
            moves=self._agreed_moves(),
            protocol=self.protocol,
        )

    def decide(self, view: View) -> list[dict[str, Any]] | None:
        if self._agreed is None:
            return None
        return build_batch(
            view.calendar,
            meeting_id=view.meeting_id,
            slot=self._agreed,
            moves=self._agreed_moves(),
            protocol=self.protocol,
        )

    def status(self) -> dict[str, Any]:
        return super().status() | {
            "agreed": self._agreed,
            "bumps": {str(s): i.id for s, i in self._bumps.items()},
            "repairs": {str(m): list(v) for m, v in self._moves.items()},
        }
