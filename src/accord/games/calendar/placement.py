"""Pure placement rules shared by the oracle, the greedy baseline and the feasibility counter.

The static model (CalBench §3 "Task difficulty", §4.2, App. A.1 step 5), over initial calendars:

* every incoming meeting takes one slot, and no two incoming meetings share a slot;
* on each participant's calendar that slot is free or holds a movable (non-blocked) errand;
* a displaced errand costs its cost once and needs a landing slot: for each agent, the number of
  displaced errands is at most the number of its initially free slots not taken by its own
  meetings.

The last rule is stated literally in `within_budget` and in the CP-SAT model. It is equivalent to
a condition on the meeting set alone: if agent i attends k_i meetings, d_i of them on errand
slots, its meetings take k_i - d_i free slots, so d_i <= F_i - (k_i - d_i) holds iff k_i <= F_i
(F_i = initially free slots). `budget_precondition` uses this; the brute-force tests check that
both forms agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from accord.core.errors import ConfigError
from accord.games.calendar.scenario import Meeting, Scenario


def select_meetings(scenario: Scenario, meeting_ids: Iterable[int] | None) -> tuple[Meeting, ...]:
    """The meetings named by `meeting_ids` in arrival order; all meetings when None."""
    if meeting_ids is None:
        return scenario.meetings
    wanted = set(meeting_ids)
    known = {m.id for m in scenario.meetings}
    unknown = sorted(wanted - known)
    if unknown:
        raise ConfigError(f"unknown meeting ids {unknown}; this scenario has {sorted(known)}")
    return tuple(m for m in scenario.meetings if m.id in wanted)


def agent_slot_cost(scenario: Scenario, agent: int, slot: int) -> int | None:
    """Cost of clearing `slot` on `agent`'s calendar: 0 if free, the errand's cost if movable,
    None if a blocked errand makes the slot unusable."""
    item = scenario.calendars[agent][slot]
    if item is None:
        return 0
    return None if item.blocked else item.cost


def slot_clearable(scenario: Scenario, meeting: Meeting, slot: int) -> bool:
    """Whether `meeting` may take `slot`: no participant has a blocked errand there."""
    return all(agent_slot_cost(scenario, a, slot) is not None for a in meeting.participants)


def slot_cost(scenario: Scenario, meeting: Meeting, slot: int) -> int:
    """Total displacement cost of putting `meeting` on `slot` (which must be clearable)."""
    total = 0
    for a in meeting.participants:
        cost = agent_slot_cost(scenario, a, slot)
        if cost is None:
            raise ValueError(f"slot {slot} is blocked for agent {a}; check slot_clearable first")
        total += cost
    return total


def free_slot_count(scenario: Scenario, agent: int) -> int:
    """F_i: the number of initially free slots on `agent`'s calendar."""
    return sum(item is None for item in scenario.calendars[agent])


def displacement_budget(scenario: Scenario, agent: int, own_slots: Iterable[int]) -> int:
    """Landing slots left to `agent` when its own meetings take `own_slots`: its initially free
    slots minus those the meetings occupy."""
    taken = set(own_slots)
    cal = scenario.calendars[agent]
    return sum(1 for slot, item in enumerate(cal) if item is None and slot not in taken)


def displaced_count(scenario: Scenario, agent: int, own_slots: Iterable[int]) -> int:
    """How many of `agent`'s errands its meetings on `own_slots` displace."""
    cal = scenario.calendars[agent]
    return sum(1 for slot in set(own_slots) if cal[slot] is not None)


def within_budget(scenario: Scenario, assignment: Mapping[int, int]) -> bool:
    """The landing rule, literally: every agent's displaced errands fit its remaining free slots."""
    for agent in range(scenario.num_agents):
        own = [
            slot for mid, slot in assignment.items() if agent in scenario.meeting(mid).participants
        ]
        if displaced_count(scenario, agent, own) > displacement_budget(scenario, agent, own):
            return False
    return True


def budget_precondition(scenario: Scenario, meetings: Sequence[Meeting]) -> bool:
    """The landing rule in its assignment-free form: k_i <= F_i for every agent (module doc)."""
    for agent in range(scenario.num_agents):
        attends = sum(agent in m.participants for m in meetings)
        if attends > free_slot_count(scenario, agent):
            return False
    return True


def assignment_costs(
    scenario: Scenario, assignment: Mapping[int, int]
) -> tuple[int, tuple[int, ...]]:
    """Total displacement cost of `assignment` (meeting id -> slot) and each agent's share."""
    per_agent = [0] * scenario.num_agents
    for mid, slot in assignment.items():
        for a in scenario.meeting(mid).participants:
            cost = agent_slot_cost(scenario, a, slot)
            if cost is None:
                raise ValueError(f"meeting {mid} on slot {slot} hits a blocked errand of agent {a}")
            per_agent[a] += cost
    return sum(per_agent), tuple(per_agent)


def is_feasible(scenario: Scenario, assignment: Mapping[int, int]) -> bool:
    """Whether `assignment` obeys every rule of the static model (module doc)."""
    slots = list(assignment.values())
    if len(set(slots)) != len(slots):
        return False
    if any(not 0 <= s < scenario.num_slots for s in slots):
        return False
    for mid, slot in assignment.items():
        if not slot_clearable(scenario, scenario.meeting(mid), slot):
            return False
    return within_budget(scenario, assignment)


@dataclass(frozen=True, slots=True)
class CostTable:
    """Clearable slots and costs per selected meeting, precomputed once for the solvers.

    `options[j]` lists `(slot, total_cost, per_agent)` for meeting `meetings[j]`, where
    `per_agent` pairs each participant with its cost on that slot; slots are ascending.
    """

    scenario: Scenario
    meetings: tuple[Meeting, ...]
    options: tuple[tuple[tuple[int, int, tuple[tuple[int, int], ...]], ...], ...]

    @property
    def budget_ok(self) -> bool:
        """Whether the landing rule can hold at all for this meeting set."""
        return budget_precondition(self.scenario, self.meetings)


def cost_table(scenario: Scenario, meeting_ids: Iterable[int] | None = None) -> CostTable:
    """Build the `CostTable` for the selected meetings (all when `meeting_ids` is None)."""
    meetings = select_meetings(scenario, meeting_ids)
    options = []
    for m in meetings:
        row = []
        for slot in range(scenario.num_slots):
            # One pass of agent_slot_cost per participant: a None share is exactly the case
            # slot_clearable rejects, so the two rules cannot drift apart.
            costs = [(a, agent_slot_cost(scenario, a, slot)) for a in m.participants]
            shares = tuple((a, c) for a, c in costs if c is not None)
            if len(shares) == len(costs):
                row.append((slot, sum(c for _, c in shares), shares))
        options.append(tuple(row))
    return CostTable(scenario=scenario, meetings=meetings, options=tuple(options))
