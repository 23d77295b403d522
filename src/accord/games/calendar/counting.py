"""Feasible-assignment counting and difficulty buckets (CalBench §3 "Task difficulty",
App. A.1 step 5).

F is the number of injective meeting -> slot assignments that obey the placement rules
(`placement.py`); the difficulty score is d = F / (T! / (T - M)!), the share of all injective
assignments that are feasible. Lower d is harder.

The paper counts F with CP-SAT solution enumeration, which costs time linear in F (up to
T! / (T - M)! = 524,160 for the canonical 16 slots and 5 meetings). We count exactly with a
dynamic programme over slots whose state is the set of meetings already placed: scanning slot t,
each count either leaves t empty or gives it to one unplaced meeting that may use it. That is
O(T * 2^M * M) integer additions, independent of F. The landing rule is a condition on the
meeting set alone (see `placement.py`), so it gates the count rather than entering the state.
`bench/bench_calendar_oracle.py` checks the counts against CP-SAT enumeration.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from math import perm
from typing import Literal

from accord.games.calendar.placement import CostTable, cost_table
from accord.games.calendar.scenario import Scenario

Difficulty = Literal["easy", "medium", "hard"]

EASY_MIN_FRACTION = 0.05
"""d at or above this is ``easy``."""

HARD_MAX_FRACTION = 0.0025
"""d below this is ``hard``; between the two thresholds is ``medium``.

The paper names the buckets but gives no thresholds. Ours sit in the two sparse valleys of d
nearest its tertiles over 6,000 canonical-pool candidates (5 agents, 16 slots, 5 meetings, 3
rotating participants, densities {0.6, 0.8, 1.0}, blocked {2, 4, 6}): 33% of candidates fall
below 0.0025 and 67% below 0.05. See docs/calendar.md.
"""

_MAX_DP_MEETINGS = 22  # 2^22 states of Python ints is already ~100 MB; beyond that, refuse.


def count_feasible_table(table: CostTable) -> int:
    """F for a prepared `CostTable` (see module doc for the method)."""
    m = len(table.meetings)
    if m == 0:
        return 1
    if not table.budget_ok or any(not opts for opts in table.options):
        return 0
    if m > _MAX_DP_MEETINGS:
        raise ValueError(f"counting supports at most {_MAX_DP_MEETINGS} meetings, got {m}")
    # users[t] = bitmask of meetings that may take slot t.
    users = [0] * table.scenario.num_slots
    for j, opts in enumerate(table.options):
        for slot, _, _ in opts:
            users[slot] |= 1 << j
    ways = [0] * (1 << m)
    ways[0] = 1
    for mask_users in users:
        if not mask_users:
            continue
        # Descending masks so each slot is given to at most one meeting (0/1 knapsack order).
        for mask in range((1 << m) - 1, 0, -1):
            placeable = mask & mask_users
            total = 0
            while placeable:
                bit = placeable & -placeable
                total += ways[mask ^ bit]
                placeable ^= bit
            if total:
                ways[mask] += total
    return ways[(1 << m) - 1]


def count_feasible(scenario: Scenario, meeting_ids: Iterable[int] | None = None) -> int:
    """F: feasible injective assignments of the selected meetings (all when None)."""
    return count_feasible_table(cost_table(scenario, meeting_ids))


def total_assignments(num_slots: int, num_meetings: int) -> int:
    """T! / (T - M)!: injective assignments of M meetings to T slots."""
    return perm(num_slots, num_meetings)


def feasible_fraction(scenario: Scenario, meeting_ids: Iterable[int] | None = None) -> float:
    """d = F / (T! / (T - M)!) for the selected meetings."""
    table = cost_table(scenario, meeting_ids)
    return count_feasible_table(table) / total_assignments(scenario.num_slots, len(table.meetings))


def difficulty_bucket(fraction: float) -> Difficulty:
    """Bucket a feasible fraction d: easy, medium or hard (thresholds above)."""
    if fraction >= EASY_MIN_FRACTION:
        return "easy"
    if fraction >= HARD_MAX_FRACTION:
        return "medium"
    return "hard"


def configuration_key(scenario: Scenario) -> tuple[object, ...]:
    """The generation configuration a task belongs to (what the CalBench release's tertiles
    group by): agents, slots, meetings, participants, density, blocked errands, cost setting.
    Per-agent densities or blocked counts (the canonical suite draws them) count as one
    configuration, ``"per-agent"``."""
    p = scenario.params

    def shared(value: object) -> object:
        return "per-agent" if isinstance(value, tuple) else value

    return (
        p.num_agents,
        p.num_slots,
        p.num_meetings,
        p.participants_per_meeting,
        shared(p.density),
        shared(p.num_blocked),
        p.cost_setting,
    )


def tertile_buckets(scenarios: Sequence[Scenario]) -> list[Difficulty]:
    """Per-configuration tertiles of d, the CalBench release's rule: within each configuration
    the lowest third of d (by rank; ties keep suite order) is ``hard``, the highest third
    ``easy``. A bucket then depends on the other tasks of the suite, so it is a suite-level
    label; `difficulty_bucket` is the per-task one (see docs/calendar.md)."""
    groups: dict[tuple[object, ...], list[int]] = {}
    for i, scenario in enumerate(scenarios):
        groups.setdefault(configuration_key(scenario), []).append(i)
    fractions = [feasible_fraction(s) for s in scenarios]
    out: list[Difficulty] = ["medium"] * len(scenarios)
    for members in groups.values():
        ranked = sorted(members, key=lambda i: fractions[i])
        n = len(ranked)
        for rank, i in enumerate(ranked):
            third = rank * 3 // n
            out[i] = "hard" if third == 0 else "medium" if third == 1 else "easy"
    return out
