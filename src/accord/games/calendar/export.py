"""The JSON view of a calendar task: the scenario with its oracle (CalBench App. A.1 step 5).

`accord scenario calendar ... --json` prints it and every calendar trace stores it as its
``scenario``. It is `Scenario.model_dump` plus what a reader should not have to recompute:

* ``num_agents`` and ``num_meetings``;
* ``kind: "errand"`` on every occupied cell of ``calendars`` (initial calendars hold errands
  only; the live calendars of a game add ``kind: "meeting"`` cells, see `rules.render_fields`);
* ``oracle``: optimal, worst-complete and greedy schedules with each agent's share, the feasible
  count F, the fraction d and the difficulty bucket (§3 "Task difficulty", §4.2), all in the
  task's internal cost units (1/2/3 for generated varied tasks, the published 1/100/1000 for the
  CalBench varied file).

`Scenario.model_validate` reads the view back (it drops the derived fields), so traces stay
self-contained.
"""

from __future__ import annotations

from typing import Any

from accord.games.calendar.oracle import OracleReport, Schedule, compute_oracle
from accord.games.calendar.scenario import Scenario


def _schedule(prefix: str, schedule: Schedule | None) -> dict[str, Any]:
    """``<prefix>_cost``, ``<prefix>_assignment`` and ``per_agent_<prefix>_cost`` (None when
    no complete schedule exists)."""
    if schedule is None:
        return {
            f"{prefix}_cost": None,
            f"{prefix}_assignment": None,
            f"per_agent_{prefix}_cost": None,
        }
    return {
        f"{prefix}_cost": schedule.total_cost,
        f"{prefix}_assignment": {str(m): s for m, s in sorted(schedule.slots.items())},
        f"per_agent_{prefix}_cost": list(schedule.agent_costs),
    }


def oracle_json(report: OracleReport) -> dict[str, Any]:
    """The ``oracle`` block of the view (meeting ids become JSON object keys, so strings)."""
    greedy = report.greedy
    return {
        "meeting_ids": list(report.meeting_ids),
        **_schedule("optimal", report.optimal),
        **_schedule("worst", report.worst),
        "greedy_cost": greedy.schedule.total_cost,
        "greedy_assignment": {str(m): s for m, s in sorted(greedy.schedule.slots.items())},
        "greedy_unscheduled": list(greedy.unscheduled),
        "feasible_count": report.feasible_count,
        "total_assignments": report.total_assignments,
        "feasible_fraction": report.feasible_fraction,
        "difficulty": report.difficulty,
    }


def scenario_json(scenario: Scenario, *, oracle: bool = True) -> dict[str, Any]:
    """The view described in the module docstring; `oracle=False` skips the solver calls."""
    data = scenario.model_dump(mode="json")
    data["calendars"] = [
        [None if cell is None else {"kind": "errand", **cell} for cell in cal]
        for cal in data["calendars"]
    ]
    head = {k: data.pop(k) for k in ("version", "task_id", "seed", "cost_setting", "cost_display")}
    sizes = {
        "num_agents": scenario.num_agents,
        "num_slots": data.pop("num_slots"),
        "num_meetings": scenario.num_meetings,
    }
    view = {**head, **sizes, **data}
    if oracle:
        view["oracle"] = oracle_json(compute_oracle(scenario))
    return view
