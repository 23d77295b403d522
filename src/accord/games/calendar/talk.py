"""CHEAP_TALK bookkeeping: speaker sweeps, message routing and activation (CalBench §3
"Communication protocols", App. A.4 "Message routing", Algorithm 1 lines 4-24).

Each sweep t lets the participants speak in speaker order, then the non-participants queued
during that sweep. A dm or all-agent group chat message reaching a non-participant activates
it and queues it in the same sweep; if it already spoke in this sweep it is queued for the
next one (so a late reply is still read). Participant group chat reaches participants only and
activates nobody. Recipients' inboxes are drained when they next get a request.

`CheapTalk` holds only this bookkeeping; the engine turns its output into requests and events.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from accord.core.rng import make_rng
from accord.games.calendar.record import MessageRecord


class CheapTalk:
    """One round's CHEAP_TALK state."""

    def __init__(
        self, *, round_no: int, meeting_id: int, participants: Sequence[int], order: list[int]
    ) -> None:
        self.round = round_no
        self.meeting_id = meeting_id
        self.participants = tuple(participants)
        self.order = order
        self.activated: set[int] = set()
        self.introduced: set[int] = set()
        """Non-participants already told what this round is about."""
        self.turn = 0
        self.activity = False
        self._carry: list[int] = []
        self._sweep: list[int] = []
        self._pos = 0
        self._spoken: set[int] = set()

    def start_sweep(self, turn: int) -> None:
        """Open sweep `turn`: participants first, then outsiders carried over."""
        self.turn = turn
        self._sweep = [*self.order, *self._carry]
        self._carry, self._pos, self.activity, self._spoken = [], 0, False, set()

    @property
    def speaker(self) -> int:
        """Whose turn it is."""
        return self._sweep[self._pos]

    def mark_spoken(self) -> None:
        """The current speaker has been asked."""
        self._spoken.add(self.speaker)

    def advance(self) -> bool:
        """Move to the next speaker; False when the sweep is over."""
        self._pos += 1
        return self._pos < len(self._sweep)

    def recipients(self, seat: int, call: dict[str, Any], num_agents: int) -> list[int]:
        """Who receives a message call from `seat`."""
        if call["type"] == "dm":
            return [int(call["to"])]
        if call["type"] == "participant_groupchat":
            return [a for a in self.participants if a != seat]
        return [a for a in range(num_agents) if a != seat]

    def message(
        self, seat: int, call: dict[str, Any], recipients: list[int], *, delivered: bool
    ) -> MessageRecord:
        """The record of one message of this sweep."""
        return MessageRecord(
            round=self.round,
            turn=self.turn,
            sender=seat,
            channel=call["type"],
            to=call.get("to"),
            recipients=recipients if delivered else [],
            meeting_id=self.meeting_id,
            content=call["content"],
            delivered=delivered,
        )

    def delivered(self, record: MessageRecord) -> None:
        """Note a delivered message: the sweep had activity and outsiders it reached wake up."""
        self.activity = True
        if record.channel == "participant_groupchat":
            return
        for r in record.recipients:
            if r not in self.participants:
                self._activate(r)

    def _activate(self, seat: int) -> None:
        self.activated.add(seat)
        if seat in self._spoken:
            if seat not in self._carry:
                self._carry.append(seat)
        elif seat not in self._sweep[self._pos + 1 :]:
            self._sweep.append(seat)


def speaker_order(participants: Sequence[int], round_no: int, mode: str, seed: int) -> list[int]:
    """CHEAP_TALK order of a round's participants: ``rotate`` starts round r at participant
    (r-1) mod P, ``ascending`` keeps id order, ``random`` shuffles from the game seed."""
    order = list(participants)
    if mode == "rotate":
        k = (round_no - 1) % len(order)
        order = order[k:] + order[:k]
    elif mode == "random":
        make_rng(seed, "calendar", "speakers", round_no).shuffle(order)
    return order
