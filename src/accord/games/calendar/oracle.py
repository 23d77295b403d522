"""Exact oracles for a calendar task (CalBench §3 "Task difficulty", §3.1, §4.2, App. A.1 step 5).

All of them work on the static model of `placement.py` and on any subset of the meetings (a
partially successful game is scored against the oracle over the meetings it did schedule, §4.2):

* `optimal_schedule`: minimum total displacement cost, with one optimal assignment and each
  agent's share of it (CP-SAT);
* `worst_schedule`: maximum total cost over complete feasible schedules, the "worst complete"
  schedule of the coordination-adjusted regret (§4.2) (CP-SAT);
* `greedy_schedule`: meetings in arrival order, each on the lowest clearable slot not yet taken;
* `compute_oracle`: all of the above plus the feasible count F, d and the difficulty bucket.

Ties: many assignments can share the optimal (or worst) cost and give different per-agent
shares. We return the lexicographically smallest slot vector (meetings in arrival order) among
them, so results never depend on solver internals. It is folded into one CP-SAT objective,
cost * T^M ± key, when that fits in 62 bits, and solved in stages otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from accord.games.calendar.counting import (
    Difficulty,
    count_feasible_table,
    difficulty_bucket,
    total_assignments,
)
from accord.games.calendar.placement import CostTable, cost_table, within_budget
from accord.games.calendar.scenario import Scenario

if TYPE_CHECKING:
    from ortools.sat.python import cp_model

_OBJECTIVE_LIMIT = 2**62
"""Largest objective magnitude we fold costs and the tie-break key into."""


class Schedule(BaseModel):
    """A feasible assignment of the selected meetings and what it costs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    total_cost: int = Field(description="Total internal displacement cost.")
    slots: dict[int, int] = Field(description="Meeting id -> slot.")
    agent_costs: tuple[int, ...] = Field(description="Each agent's share of the total, by agent.")


class GreedyResult(BaseModel):
    """The greedy baseline: what it placed and what it could not."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schedule: Schedule = Field(description="The meetings it placed and their cost.")
    unscheduled: tuple[int, ...] = Field(description="Meeting ids left without a usable slot.")


class OracleReport(BaseModel):
    """Everything App. A.1 step 5 stores about a task, for the selected meetings."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    meeting_ids: tuple[int, ...] = Field(description="The meetings the numbers refer to.")
    optimal: Schedule | None = Field(description="Minimum-cost schedule; None if infeasible.")
    worst: Schedule | None = Field(
        description="Maximum-cost complete schedule; None if infeasible."
    )
    greedy: GreedyResult = Field(description="First-clearable-slot greedy baseline.")
    feasible_count: int | None = Field(
        description="F: feasible injective assignments; None when not counted (more than "
        "`COUNT_MAX_MEETINGS` meetings)."
    )
    total_assignments: int = Field(description="T! / (T - M)!.")
    feasible_fraction: float | None = Field(description="d = F / (T! / (T - M)!); None if F is.")
    difficulty: Difficulty | None = Field(
        description="Bucket of d (see counting.py); None if F is."
    )


def _build(table: CostTable) -> tuple[cp_model.CpModel, list[dict[int, cp_model.IntVar]]]:
    """The CP-SAT feasibility model: one literal per (meeting, clearable slot)."""
    # Imported here, not at the top: OR-Tools (and the pandas it loads) takes seconds to import,
    # and every run discovers the calendar game, whichever game it plays.
    from ortools.sat.python import cp_model

    scenario = table.scenario
    model = cp_model.CpModel()
    x: list[dict[int, cp_model.IntVar]] = []
    for j, opts in enumerate(table.options):
        row = {slot: model.new_bool_var(f"m{j}_s{slot}") for slot, _, _ in opts}
        model.add_exactly_one(row.values())
        x.append(row)
    for slot in range(scenario.num_slots):
        users = [row[slot] for row in x if slot in row]
        if len(users) > 1:
            model.add_at_most_one(users)
    # The landing rule exactly as stated: displaced errands <= free slots left by own meetings.
    for agent in range(scenario.num_agents):
        cal = scenario.calendars[agent]
        free_total = sum(item is None for item in cal)
        displaced: list[cp_model.IntVar] = []
        on_free: list[cp_model.IntVar] = []
        for meeting, row in zip(table.meetings, x, strict=True):
            if agent in meeting.participants:
                for slot, lit in row.items():
                    (on_free if cal[slot] is None else displaced).append(lit)
        if displaced:
            model.add(sum(displaced) <= free_total - sum(on_free))
    return model, x


def _solver() -> cp_model.CpSolver:
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    # One worker: deterministic search, and the machine is shared with other work.
    solver.parameters.num_workers = 1
    return solver


def _extract(
    table: CostTable, solver: cp_model.CpSolver, x: list[dict[int, cp_model.IntVar]]
) -> Schedule:
    slots: dict[int, int] = {}
    per_agent = [0] * table.scenario.num_agents
    for meeting, opts, row in zip(table.meetings, table.options, x, strict=True):
        for slot, _, shares in opts:
            if solver.value(row[slot]):
                slots[meeting.id] = slot
                for agent, cost in shares:
                    per_agent[agent] += cost
    return Schedule(total_cost=sum(per_agent), slots=slots, agent_costs=tuple(per_agent))


def _solve(table: CostTable, sense: Literal["min", "max"]) -> Schedule | None:
    from ortools.sat.python import cp_model

    if not table.meetings:
        return Schedule(total_cost=0, slots={}, agent_costs=(0,) * table.scenario.num_agents)
    if not table.budget_ok or any(not opts for opts in table.options):
        return None
    model, x = _build(table)
    cost_expr = sum(
        c * row[slot] for opts, row in zip(table.options, x, strict=True) for slot, c, _ in opts
    )
    base = table.scenario.num_slots
    m = len(table.meetings)
    weights = [base ** (m - 1 - j) for j in range(m)]
    key_expr = sum(w * slot * row[slot] for w, row in zip(weights, x, strict=True) for slot in row)
    sign = 1 if sense == "min" else -1
    max_cost = sum(max(c for _, c, _ in opts) for opts in table.options)
    solver = _solver()
    if (max_cost + 1) * base**m < _OBJECTIVE_LIMIT:
        model.minimize(sign * cost_expr * base**m + key_expr)
        status = solver.solve(model)
    else:
        # Stages: best cost first, then fix it and settle the slots one meeting at a time.
        model.minimize(sign * cost_expr)
        status = solver.solve(model)
        if status == cp_model.OPTIMAL:
            model.add(cost_expr == solver.value(cost_expr))
            for row in x:
                slot_expr = sum(slot * lit for slot, lit in row.items())
                model.minimize(slot_expr)
                status = solver.solve(model)
                if status != cp_model.OPTIMAL:
                    break
                model.add(slot_expr == solver.value(slot_expr))
    if status == cp_model.INFEASIBLE:
        return None
    if status != cp_model.OPTIMAL:
        raise RuntimeError(
            f"CP-SAT ended with status {solver.status_name(status)}; please report this"
        )
    return _extract(table, solver, x)


def optimal_schedule(
    scenario: Scenario, meeting_ids: Iterable[int] | None = None
) -> Schedule | None:
    """Minimum-cost feasible schedule of the selected meetings (all when None); None if none."""
    return _solve(cost_table(scenario, meeting_ids), "min")


def worst_schedule(scenario: Scenario, meeting_ids: Iterable[int] | None = None) -> Schedule | None:
    """Maximum-cost complete feasible schedule of the selected meetings; None if none."""
    return _solve(cost_table(scenario, meeting_ids), "max")


def greedy_schedule(scenario: Scenario, meeting_ids: Iterable[int] | None = None) -> GreedyResult:
    """Meetings in arrival order, each on the lowest clearable slot no earlier meeting took and
    that keeps the landing rule; a meeting with no such slot is left unscheduled."""
    return _greedy(cost_table(scenario, meeting_ids))


def _greedy(table: CostTable) -> GreedyResult:
    scenario = table.scenario
    slots: dict[int, int] = {}
    per_agent = [0] * scenario.num_agents
    unscheduled: list[int] = []
    for meeting, opts in zip(table.meetings, table.options, strict=True):
        used = set(slots.values())
        for slot, _, shares in opts:
            if slot in used or not within_budget(scenario, {**slots, meeting.id: slot}):
                continue
            slots[meeting.id] = slot
            for agent, cost in shares:
                per_agent[agent] += cost
            break
        else:
            unscheduled.append(meeting.id)
    schedule = Schedule(total_cost=sum(per_agent), slots=slots, agent_costs=tuple(per_agent))
    return GreedyResult(schedule=schedule, unscheduled=tuple(unscheduled))


COUNT_MAX_MEETINGS = 16
"""Above this many meetings `compute_oracle` does not count F by default: the count is
O(T * 2^M * M) and took 0.4 s at 12 meetings, 9 s at 16 and 232 s at 20 (48-96 slots)."""


def compute_oracle(
    scenario: Scenario, meeting_ids: Iterable[int] | None = None, *, count: bool | None = None
) -> OracleReport:
    """Optimal, worst-complete, greedy, F, d and the bucket for the selected meetings. `count`
    None counts F only up to `COUNT_MAX_MEETINGS` meetings (F, d and the bucket are None
    otherwise)."""
    table = cost_table(scenario, meeting_ids)
    if count is None:
        count = len(table.meetings) <= COUNT_MAX_MEETINGS
    total = total_assignments(scenario.num_slots, len(table.meetings))
    feasible = count_feasible_table(table) if count else None
    fraction = None if feasible is None else feasible / total
    return OracleReport(
        meeting_ids=tuple(m.id for m in table.meetings),
        optimal=_solve(table, "min"),
        worst=_solve(table, "max"),
        greedy=_greedy(table),
        feasible_count=feasible,
        total_assignments=total,
        feasible_fraction=fraction,
        difficulty=None if fraction is None else difficulty_bucket(fraction),
    )


def count_feasible_cpsat(scenario: Scenario, meeting_ids: Iterable[int] | None = None) -> int:
    """F by CP-SAT solution enumeration, the paper's method; slow, kept as the bench baseline."""
    table = cost_table(scenario, meeting_ids)
    if not table.meetings:
        return 1
    if any(not opts for opts in table.options):
        return 0
    from ortools.sat.python import cp_model

    model, _ = _build(table)
    solver = _solver()
    solver.parameters.enumerate_all_solutions = True

    class _Counter(cp_model.CpSolverSolutionCallback):
        def __init__(self) -> None:
            super().__init__()
            self.count = 0

        def on_solution_callback(self) -> None:
            self.count += 1

    counter = _Counter()
    solver.solve(model, counter)
    return counter.count
