"""§4.2 / Table 1 metrics on a hand-computed game, the 1/2/3 cost mapping and `table1`."""

from __future__ import annotations

import pytest

from accord.games.calendar import game_metrics, load_suite, optimal_schedule, table1, worst_schedule
from accord.games.calendar.layout import scenario_from_layout
from accord.games.calendar.metrics import cost_level, level_scenario
from accord.games.calendar.record import MessageRecord, MoveRecord

# Errands: agent 0 #1@1 #2@2; agent 1 #3@0 #4@2; agent 2 #5@0 #6@1. M1 = {0, 1}, M2 = {1, 2}.
SC = scenario_from_layout([". 1 1 .", "1 . 1 .", "1 1 . ."], [[0, 1], [1, 2]])


def move(agent: int, item: int, frm: int, to: int, cost: int = 1) -> MoveRecord:
    return MoveRecord(round=1, phase="DECISION", agent=agent, kind="errand", item_id=item,
                      from_slot=frm, to_slot=to, cost=cost)  # fmt: skip


def msg(sender: int, delivered: bool = True) -> MessageRecord:
    return MessageRecord(round=1, turn=0, sender=sender, channel="dm", to=(sender + 1) % 3,
                         recipients=[(sender + 1) % 3], meeting_id=1, content="hi",
                         delivered=delivered)  # fmt: skip


def test_oracles_of_the_hand_made_task() -> None:
    best, worst = optimal_schedule(SC), worst_schedule(SC)
    assert best is not None and worst is not None
    assert (best.slots, best.agent_costs) == ({1: 0, 2: 3}, (0, 1, 0))
    assert (worst.slots, worst.agent_costs) == ({1: 2, 2: 0}, (1, 2, 1))


def test_table1_quantities_by_hand() -> None:
    # M1 was scheduled at slot 2 (both owners moved an errand); M2 failed.
    moves = [move(0, 2, 2, 3), move(1, 4, 2, 1)]
    messages = [msg(0), msg(0), msg(1), msg(2, delivered=False)]
    gm = game_metrics(SC, {1: 2}, moves, messages)
    rows = {r["seat"]: r for r in gm.seat_rows}
    # Oracle over the scheduled subset {M1}: slot 3, free for both, so 0 for everyone.
    assert [rows[i]["oracle_cost"] for i in range(3)] == [0, 0, 0]
    assert [rows[i]["real_cost"] for i in range(3)] == [1, 1, 0]
    assert [rows[i]["success"] for i in range(3)] == [1.0, 0.5, 0.0]
    assert [rows[i]["excess_cost"] for i in range(3)] == [1, 1, 0]
    # Δw = worst - best share = 1 for everyone; C_adj = (Δc + m_miss Δw) / M_i.
    assert [rows[i]["adjusted_excess"] for i in range(3)] == [1.0, 1.0, 1.0]
    assert [rows[i]["messages_per_meeting"] for i in range(3)] == [2.0, 1.0, 0.0]
    # e = (1, 1, 0), mean 2/3: F = |e - mean|.
    assert [rows[i]["fairness"] for i in range(3)] == pytest.approx([1 / 3, 1 / 3, 2 / 3])
    m = gm.metrics
    assert m["success_rate"] == pytest.approx(0.5)
    assert m["excess_cost"] == pytest.approx(2 / 3)
    assert m["adjusted_excess"] == pytest.approx(1.0)
    assert m["messages_per_meeting"] == pytest.approx(1.0)
    assert m["fairness"] == pytest.approx(4 / 9)
    assert (m["meetings_scheduled"], m["messages"], m["total_cost"]) == (1, 3, 2)
    assert (m["oracle_cost_scheduled"], m["oracle_cost"], m["worst_cost"]) == (0, 1, 4)


def test_seats_without_meetings_have_no_success_or_adjusted_excess() -> None:
    sc = scenario_from_layout([". .", ". .", ". ."], [[0, 1]])
    rows = game_metrics(sc, {1: 0}, [], []).seat_rows
    assert rows[2]["success"] is None and rows[2]["adjusted_excess"] is None
    assert rows[0]["success"] == 1.0 and rows[2]["messages_per_meeting"] == 0.0


def test_calbench_varied_costs_map_back_to_levels() -> None:
    sc = load_suite("calbench-varied")[0]
    assert sc.params.errand_cost_values == (1, 100, 1000)
    assert [cost_level(sc, c) for c in (1, 100, 1000)] == [1, 2, 3]
    level = level_scenario(sc)
    assert {e.cost for cal in level.calendars for e in cal if e} <= {1, 2, 3}
    agent, slot, errand = next(
        (a, s, e) for a, cal in enumerate(sc.calendars) for s, e in enumerate(cal)
        if e is not None and e.cost == 1000
    )  # fmt: skip
    free = sc.calendars[agent].index(None)
    gm = game_metrics(sc, {}, [move(agent, errand.id, slot, free, cost=1000)], [])
    assert gm.seat_rows[agent]["real_cost"] == 3  # Table 1 scale
    assert gm.metrics["total_cost"] == 1000  # the task's own units, for the oracle gap
    assert gm.metrics["oracle_cost"] == sc.published.optimal_cost  # type: ignore[union-attr]


def test_uniform_tasks_are_their_own_level_scenario() -> None:
    sc = load_suite("calbench-uniform")[0]
    assert level_scenario(sc) is sc


def test_table1_groups_seats_by_setting_and_agent() -> None:
    rows = [
        {
            "agent": "a",
            "cost_setting": "uniform",
            "success": 1.0,
            "excess_cost": 0,
            "fairness": 0.5,
        },
        {
            "agent": "a",
            "cost_setting": "uniform",
            "success": 0.5,
            "excess_cost": 2,
            "fairness": 1.5,
        },
        {"agent": "b", "cost_setting": "uniform", "success": None, "excess_cost": 1, "fairness": 0},
    ]
    table = {(t["cost_setting"], t["agent"]): t for t in table1(rows)}
    a = table[("uniform", "a")]
    assert a["n"] == 2 and a["success"]["mean"] == pytest.approx(0.75)
    assert a["excess_cost"]["mean"] == 1.0 and a["fairness"]["n"] == 2
    assert table[("uniform", "b")]["success"]["n"] == 0
