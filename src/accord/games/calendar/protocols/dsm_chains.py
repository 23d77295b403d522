"""Displacement chains and plan costs as the CalBench release's DSM client builds them (App. D.3;
issue 24, ``DsmParams.chains="release"``).

D.3 says only that "the initiator can attach a proposed displacement plan to its offer, which
the bumped meeting's participants score as additional responders". The release's client fixes
what such a plan may be, and we follow it:

* A prior meeting M2 on the initiator's calendar moves to a *free* slot, or to a slot holding
  another prior meeting M3 that moves on in turn (up to the cascade depth); never onto an
  errand. Every such chain is listed (not one per target), ordered by the cost of the meetings
  it moves, then its length, then its target slots, and the first `displacement_targets` are
  offered for that slot.
* A scorer prices a plan on its own calendar: the meeting's slot (participants only) costs its
  errand, nothing when free, and needs the plan to move a meeting held there; each move of a
  meeting on its calendar costs that meeting and needs its target free, vacated by another move
  of the plan, or a meeting the plan moves too. A target holding an errand makes the plan
  infeasible for that scorer (level 0). An outside participant none of whose meetings the plan
  moves scores it D-1 (it is not concerned).

The ``-v2`` and ``-v1`` presets keep the earlier rules (``chains="clearable"``, `dsm.py`): a
target may hold a movable errand, which is evicted to a landing slot and charged, and only the
cheapest chain per target is kept.
"""

from __future__ import annotations

from collections.abc import Sequence

from accord.games.calendar.protocols.base import View, reachable
from accord.games.calendar.protocols.messages import Move
from accord.games.calendar.rules import Calendar


def chains(
    view: View, source: int, depth: int, blocked: frozenset[int] = frozenset()
) -> list[list[Move]]:
    """Every chain moving the meeting at `source` (on the seat's own calendar) to a free slot,
    cascading through further meetings up to `depth` moves, ordered as the release orders
    them: (cost of the moved meetings, length, target slots)."""
    cal = view.calendar
    found = _chains(view, source, depth, blocked)
    unique = {tuple(chain): chain for chain in found}
    return sorted(
        unique.values(),
        key=lambda c: (sum(_cost(cal, src) for _, src, _ in c), len(c), [dst for _, _, dst in c]),
    )


def _chains(view: View, source: int, depth: int, blocked: frozenset[int]) -> list[list[Move]]:
    cal = view.calendar
    held = cal[source]
    if depth <= 0 or held is None or held.kind != "meeting":
        return []
    if not reachable(view, held.participants):
        return []
    out: list[list[Move]] = []
    below = blocked | {source}
    for target, there in enumerate(cal):
        if target in below:
            continue
        move: Move = (held.id, source, target)
        if there is None:
            out.append([move])
        elif there.kind == "meeting":
            out += [[move, *tail] for tail in _chains(view, target, depth - 1, below)]
    return out


def _cost(cal: Calendar, slot: int) -> int:
    item = cal[slot]
    return 0 if item is None else item.cost


def plan_cost(cal: Calendar, slot: int | None, moves: Sequence[Move]) -> int | None:
    """What the plan costs on `cal` by the release's rule (module docstring); None when the
    seat cannot do its part. `slot` is None for a seat that is not a participant."""
    mine = [
        (mid, src, dst)
        for mid, src, dst in moves
        if 0 <= src < len(cal) and (held := cal[src]) is not None
        and held.kind == "meeting" and held.id == mid
    ]  # fmt: skip
    cleared = {src for mid, src, _ in moves if (mid, src) not in {(m, s) for m, s, _ in mine}}
    leaving = {src for _, src, _ in mine}
    cost = 0
    counted: set[int] = set()
    if slot is not None:
        if not 0 <= slot < len(cal):
            return None
        item = cal[slot]
        if item is not None and item.kind == "errand":
            if item.blocked:
                return None
            cost += item.cost
            counted.add(slot)
        elif item is not None and slot not in leaving:
            return None
    for _, src, dst in mine:
        if not 0 <= dst < len(cal):
            return None
        there = cal[dst]
        if not (dst in cleared or there is None or (there.kind == "meeting" and dst in leaving)):
            return None
        if src not in counted:
            cost += _cost(cal, src)
            counted.add(src)
    return cost


def concerns(cal: Calendar, moves: Sequence[Move]) -> bool:
    """Whether any move of the plan is of a meeting on `cal`."""
    return any(
        0 <= src < len(cal) and (held := cal[src]) is not None and held.id == mid
        and held.kind == "meeting"
        for mid, src, _ in moves
    )  # fmt: skip
