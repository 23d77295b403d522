"""Calendar scheduling (CalBench) as `calendar-v2`.

N agents each hold a private calendar of S slots with movable or blocked errands; M incoming
meetings arrive one per round and must land on the same slot of every participant's calendar.
This package holds scenarios and their generation (App. A.1), private labels, the published
CalBench task files, the canonical suite (§4.1), exact oracles (§3, §4.2), the play-time rules
(App. A.5), the four-phase engine (Algorithm 1), prompts (App. A.2-A.3), metrics (§4.2) and a
scripted reference team. See docs/calendar.md for every modelling choice.

The game, its reference agents and its report reach Accord through entry points (Accord's
``pyproject.toml``, groups ``accord.games``, ``accord.agents``, ``accord.reports``).
"""

from accord.agents.human import register_human_adapter
from accord.core.controls import register_play_controls
from accord.games.calendar import controls
from accord.games.calendar.calbench import (
    SUITE_NAMES,
    load_suite,
    published_eviction_count,
    published_greedy_cost,
)
from accord.games.calendar.config import CalendarConfig
from accord.games.calendar.counting import (
    Difficulty,
    count_feasible,
    difficulty_bucket,
    feasible_fraction,
    tertile_buckets,
    total_assignments,
)
from accord.games.calendar.engine import CalendarGame
from accord.games.calendar.generator import generate_scenario
from accord.games.calendar.human import human_adapter, human_help
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

register_human_adapter(CalendarGame.game_id, human_adapter, human_help)
register_play_controls(CalendarGame.game_id, controls.CONTROLS)

__all__ = [
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
