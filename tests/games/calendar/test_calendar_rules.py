"""Batch validation (CalBench App. A.5), application and resolution: every rule with its
conflict string, simultaneous moves, and the round judgement."""

from __future__ import annotations

import pytest

from accord.games.calendar import rules
from accord.games.calendar.layout import scenario_from_layout
from accord.games.calendar.rules import Item, Move, Place
from accord.games.calendar.scenario import Meeting

E1 = Item(kind="errand", id=1, cost=2)
B2 = Item(kind="errand", id=2, cost=1, blocked=True)
E3 = Item(kind="errand", id=3, cost=3)
M9 = Item(kind="meeting", id=9, cost=1, participants=(0, 1))
# slot:  0     1   2   3     4   5
CAL = (None, E1, B2, None, E3, M9)


def check(batch: list[Place | Move], *, decision: bool = True, meeting: int = 7) -> str | None:
    return rules.validate_batch(CAL, batch, meeting_id=meeting, require_schedule=decision)


def mv(item: int, frm: object, to: object) -> Move:
    return Move(item, frm, to, "needed")


def test_valid_batches_pass() -> None:
    assert check([Place(7, 0)]) is None
    assert check([mv(1, 1, 3), Place(7, 1)]) is None
    assert check([mv(9, 5, 0)], decision=False) is None
    assert check([], decision=False) is None


@pytest.mark.parametrize(
    ("batch", "expected"),
    [
        # Rule 1: slot bounds, for every slot field, including non-integers.
        ([Place(7, 6)], "slot=6 is not a valid slot; slots are integers 0 to 5"),
        ([Place(7, -1)], "slot=-1 is not a valid slot; slots are integers 0 to 5"),
        ([mv(1, 9, 0), Place(7, 1)], "from_slot=9 is not a valid slot; slots are integers 0 to 5"),
        ([mv(1, 1, 6), Place(7, 1)], "to_slot=6 is not a valid slot; slots are integers 0 to 5"),
        ([Place(7, "2")], "slot=2 is not a valid slot; slots are integers 0 to 5"),
        ([Place(7, True)], "slot=True is not a valid slot; slots are integers 0 to 5"),
        # Rule 2: item identity.
        (
            [mv(3, 1, 0), Place(7, 1)],
            "reschedule names item 3 at slot 1, but slot 1 holds errand #1",
        ),
        ([mv(1, 0, 3), Place(7, 1)], "reschedule names item 1 at slot 0, but slot 0 is free"),
        # Rule 3: no blocked moves.
        ([mv(2, 2, 0), Place(7, 2)], "cannot move blocked errand #2 at slot 2: it is blocked"),
        # Rule 4: no destination conflicts; no item moved twice.
        ([mv(1, 1, 0), mv(3, 4, 0), Place(7, 1)], "two reschedules target the same to_slot 0"),
        (
            [mv(1, 1, 0), mv(1, 1, 3), Place(7, 1)],
            "the item at slot 1 is moved more than once in one batch",
        ),
        # Rule 5: freeness after the batch (a move onto itself does not vacate its slot).
        ([mv(1, 1, 4), Place(7, 0)], "to_slot 4 is not free after the batch: it holds errand #3"),
        ([mv(1, 1, 1), Place(7, 0)], "to_slot 1 is not free after the batch: it holds errand #1"),
        # Rule 6: exactly one schedule, of the current meeting (the paper's own string).
        ([mv(1, 1, 3)], "Expected exactly 1 schedule action, got 0"),
        ([Place(7, 0), Place(7, 3)], "Expected exactly 1 schedule action, got 2"),
        ([Place(8, 0)], "schedule names meeting 8, but the meeting to schedule is M7"),
        # Rule 7: the schedule slot is free after the reschedules.
        ([Place(7, 1)], "schedule slot 1 is not free after the reschedules: it holds errand #1"),
        (
            [mv(1, 1, 0), Place(7, 0)],
            "schedule slot 0 is not free after the reschedules: it holds errand #1",
        ),
        ([Place(7, 5)], "schedule slot 5 is not free after the reschedules: it holds meeting M9"),
    ],
)
def test_each_rule_reports_its_conflict(batch: list[Place | Move], expected: str) -> None:
    assert check(batch) == expected


def test_rules_are_checked_in_paper_order() -> None:
    # Out-of-range slot (rule 1) wins over a missing schedule (rule 6).
    assert check([mv(1, 1, 99)]) == rules.conflict("slot_bounds", field="to_slot", value=99, last=5)
    # Item identity (rule 2) wins over a destination conflict (rule 4).
    assert str(check([mv(5, 1, 0), mv(3, 4, 0)])).startswith("reschedule names item 5")


def test_voluntary_batches_may_not_schedule() -> None:
    assert check([Place(7, 0)], decision=False) == (
        "schedule is not allowed in the VOLUNTARY phase, got 1"
    )


def test_moves_are_simultaneous_so_swaps_are_valid() -> None:
    batch = [mv(1, 1, 4), mv(3, 4, 1), Place(7, 0)]
    assert check(batch) is None
    scenario = scenario_from_layout([". . . . . ."], [[0]])
    applied = rules.apply_batch(CAL, batch, scenario.meetings[0])
    assert applied.calendar[1] == E3 and applied.calendar[4] == E1
    assert applied.calendar[0] is not None and applied.calendar[0].kind == "meeting"
    assert applied.slot == 0 and applied.cost == 2 + 3


def test_moving_a_meeting_copy_costs_the_meeting_cost() -> None:
    applied = rules.apply_batch(CAL, [mv(9, 5, 3)], None)
    assert applied.cost == 1 and applied.calendar[3] == M9 and applied.calendar[5] is None


def _two_meeting_world() -> tuple[list[rules.Calendar], list[Meeting]]:
    sc = scenario_from_layout([". 1 .", ". . 1", ". . ."], [[0, 1], [1, 2]])
    return list(rules.initial_calendars(sc)), list(sc.meetings)


def test_resolution_needs_one_common_slot() -> None:
    cals, (m1, _) = _two_meeting_world()
    ok = rules.resolve_round(cals, {0: [Place(1, 0)], 1: [Place(1, 0)]}, m1, [])
    assert ok.success and ok.chosen == (0, 0)
    split = rules.resolve_round(cals, {0: [Place(1, 0)], 1: [Place(1, 1)]}, m1, [])
    assert not split.success and split.reason == "the participants scheduled it in different slots"
    missing = rules.resolve_round(cals, {0: [Place(1, 0)], 1: None}, m1, [])
    assert missing.reason == "agent(s) [1] submitted no valid batch"


def test_resolution_checks_earlier_meetings_stay_consistent() -> None:
    cals, (m1, m2) = _two_meeting_world()
    first = rules.resolve_round(cals, {0: [Place(1, 0)], 1: [Place(1, 0)]}, m1, [])
    after = list(first.calendars)
    # Agent 1 moves its copy of M1 to slot 1 alone: M2 lands, but M1 is split.
    batch = [Move(1, 0, 1, "make room"), Place(2, 0)]
    res = rules.resolve_round(after, {1: batch, 2: [Place(2, 0)]}, m2, [m1])
    assert not res.success
    assert res.broken == {1: {0: [0], 1: [1]}}
    assert res.reason == "earlier meeting(s) ['M1'] lost their common slot"
    assert rules.consistent_slot(after, m1) == 0
