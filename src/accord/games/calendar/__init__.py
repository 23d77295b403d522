"""Calendar scheduling (CalBench) as `calendar-v2`.

N agents each hold a private calendar of S slots with movable or blocked errands; M incoming
meetings arrive one per round and must land on the same slot of every participant's calendar.
This package holds scenarios and their generation (App. A.1), private labels, the published
CalBench task files, the canonical suite (§4.1), exact oracles (§3, §4.2), the play-time rules
(App. A.5), the four-phase engine (Algorithm 1), prompts (App. A.2-A.3), metrics (§4.2) and a
scripted reference team. See docs/calendar.md for every modelling choice.

Everything Accord knows about the game is declared once, in `INFO`, which Accord's
``pyproject.toml`` names in the ``accord.games`` entry point group.
"""

from typing import TYPE_CHECKING, Any

from accord.core.gameinfo import AgentCheckGame, GameInfo, GameType, HumanSeat, Judge, Lazy
from accord.games.calendar import outcomes
from accord.games.calendar.blame import BLAME
from accord.games.calendar.config import CalendarConfig
from accord.games.calendar.engine import CalendarGame

if TYPE_CHECKING:
    from accord.games.calendar.calbench import (
        SUITE_NAMES,
        load_suite,
        published_eviction_count,
        published_greedy_cost,
    )
    from accord.games.calendar.counting import (
        Difficulty,
        count_feasible,
        difficulty_bucket,
        feasible_fraction,
        tertile_buckets,
        total_assignments,
    )
    from accord.games.calendar.generator import generate_scenario
    from accord.games.calendar.labels import PrivateLabel, Tier, VisibleLabels, visible_labels
    from accord.games.calendar.metrics import game_metrics, table1
    from accord.games.calendar.oracle import (
        GreedyResult,
        OracleReport,
        Schedule,
        compute_oracle,
        count_feasible_cpsat,
        greedy_schedule,
        optimal_schedule,
        worst_schedule,
    )
    from accord.games.calendar.placement import (
        assignment_costs,
        displacement_budget,
        is_feasible,
        slot_clearable,
        slot_cost,
    )
    from accord.games.calendar.scenario import (
        Errand,
        Meeting,
        PublishedReference,
        Scenario,
        ScenarioParams,
        display_cost,
    )
    from accord.games.calendar.suite import build_canonical_suite, write_suite

_LAZY = {
    "assignment_costs": "accord.games.calendar.placement",
    "build_canonical_suite": "accord.games.calendar.suite",
    "compute_oracle": "accord.games.calendar.oracle",
    "count_feasible": "accord.games.calendar.counting",
    "count_feasible_cpsat": "accord.games.calendar.oracle",
    "Difficulty": "accord.games.calendar.counting",
    "difficulty_bucket": "accord.games.calendar.counting",
    "displacement_budget": "accord.games.calendar.placement",
    "display_cost": "accord.games.calendar.scenario",
    "Errand": "accord.games.calendar.scenario",
    "feasible_fraction": "accord.games.calendar.counting",
    "game_metrics": "accord.games.calendar.metrics",
    "generate_scenario": "accord.games.calendar.generator",
    "greedy_schedule": "accord.games.calendar.oracle",
    "GreedyResult": "accord.games.calendar.oracle",
    "is_feasible": "accord.games.calendar.placement",
    "load_suite": "accord.games.calendar.calbench",
    "Meeting": "accord.games.calendar.scenario",
    "optimal_schedule": "accord.games.calendar.oracle",
    "OracleReport": "accord.games.calendar.oracle",
    "PrivateLabel": "accord.games.calendar.labels",
    "published_eviction_count": "accord.games.calendar.calbench",
    "published_greedy_cost": "accord.games.calendar.calbench",
    "PublishedReference": "accord.games.calendar.scenario",
    "Scenario": "accord.games.calendar.scenario",
    "ScenarioParams": "accord.games.calendar.scenario",
    "Schedule": "accord.games.calendar.oracle",
    "slot_clearable": "accord.games.calendar.placement",
    "slot_cost": "accord.games.calendar.placement",
    "SUITE_NAMES": "accord.games.calendar.calbench",
    "table1": "accord.games.calendar.metrics",
    "tertile_buckets": "accord.games.calendar.counting",
    "Tier": "accord.games.calendar.labels",
    "total_assignments": "accord.games.calendar.counting",
    "visible_labels": "accord.games.calendar.labels",
    "VisibleLabels": "accord.games.calendar.labels",
    "worst_schedule": "accord.games.calendar.oracle",
    "write_suite": "accord.games.calendar.suite",
}
"""Names re-exported from the package's modules, imported on first use (so that importing the
package, as Accord's game discovery does, does not load the oracle's solver or the suites)."""


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


INFO = GameInfo(
    game=CalendarGame,
    alias="calendar",
    kind=GameType(seats=(2, 12), moves="mixed"),
    opponent="imap",
    agents=Lazy("accord.games.calendar.protocols:AGENTS"),
    report=Lazy("accord.games.calendar.report:build"),
    board=outcomes.BOARD,
    value=outcomes.VALUE,
    messages=outcomes.messages,
    score=outcomes.score,
    judges=(
        Judge(
            "calendar",
            select=outcomes.judged,
            run=Lazy("accord.games.calendar.judge.run:command"),
            subfolder="calendar",
            what="complete calendar-v2 traces",
        ),
    ),
    human=HumanSeat(
        adapter=Lazy("accord.games.calendar.human:human_adapter"),
        help=Lazy("accord.games.calendar.human:human_help"),
        controls=Lazy("accord.games.calendar.controls:CONTROLS"),
    ),
    golden=Lazy("accord.games.calendar.cases:GOLDEN"),
    prompt_cases=Lazy("accord.games.calendar.cases:PROMPTS"),
    kits={"calbench": Lazy("accord.games.calendar.paper:CalBenchKit")},
    suites=Lazy("accord.games.calendar.suite_tool:SUITES"),
    scenario_flags={
        "agents": "num_agents",
        "slots": "num_slots",
        "meetings": "num_meetings",
        "participants": "participants_per_meeting",
        "density": "density",
        "blocked": "num_blocked",
        "costs": "cost_setting",
    },
    agent_check=AgentCheckGame(others="oracle-follower"),
    hidden_info=("oracle_slots",),
    blame=BLAME,
)

__all__ = [
    "INFO",
    "SUITE_NAMES",
    "CalendarConfig",
    "CalendarGame",
    "Difficulty",
    "Errand",
    "GreedyResult",
    "Meeting",
    "OracleReport",
    "PrivateLabel",
    "PublishedReference",
    "Scenario",
    "ScenarioParams",
    "Schedule",
    "Tier",
    "VisibleLabels",
    "assignment_costs",
    "build_canonical_suite",
    "compute_oracle",
    "count_feasible",
    "count_feasible_cpsat",
    "difficulty_bucket",
    "displacement_budget",
    "display_cost",
    "feasible_fraction",
    "game_metrics",
    "generate_scenario",
    "greedy_schedule",
    "is_feasible",
    "load_suite",
    "optimal_schedule",
    "published_eviction_count",
    "published_greedy_cost",
    "slot_clearable",
    "slot_cost",
    "table1",
    "tertile_buckets",
    "total_assignments",
    "visible_labels",
    "worst_schedule",
    "write_suite",
]
