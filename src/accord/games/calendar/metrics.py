"""Calendar metrics of CalBench §4.2 and Table 1, per seat and per game.

For agent i in game g (costs on the 1/2/3 scale: varied errand costs are mapped back to their
level, §3 "Costs"; a moved meeting costs `Meeting.cost`):

* M_gi meetings involve i; M^sched_gi of them are scheduled at the end of the game (every
  participant holds the meeting at one common slot).
* Task success S_gi = M^sched_gi / M_gi.
* Realised cost c^real_gi: every move on i's calendar (errands and meeting copies, VOLUNTARY and
  committed DECISION batches). Oracle cost c^oracle_gi: i's share of the minimum-cost schedule
  of the meetings actually scheduled (`optimal_schedule` on that subset).
* Scheduled excess C_gi = max(0, c^real_gi - c^oracle_gi); signed excess e_gi = c^real - c^oracle.
* Coordination-adjusted excess C^adj_gi = (Δc_gi + m^miss_gi Δw_gi) / M_gi with
  Δc = max(0, c^real - c^oracle), Δw = max(0, w_gi - o_gi), w and o i's shares of the worst and
  best complete schedules, m^miss = M_gi - M^sched_gi.
* Messages per scheduled meeting E_gi = N^msg_gi / max(M^sched_gi, 1), counting every
  delivered message i sent (dm, participant and all-agent group chat).
* Fairness F_gi = |e_gi - mean_j e_gj| over all N agents of the game.

Averages over games (1/|G_i| sums) are `table1`, grouping seat rows by agent or model with
bootstrap CIs. S and C^adj are undefined (None) for a seat with no meetings.

`result.game_result` adds the privacy metrics of `privacy` (VPS, §3.2; semantic leaks) and, for
the run summary's Table 2 layout, each headline metric under ``uniform_<key>`` or
``varied_<key>`` (`by_setting`; None under the other setting's key).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from accord.analysis.stats import bootstrap_mean
from accord.games.calendar.oracle import Schedule, optimal_schedule, worst_schedule
from accord.games.calendar.record import MessageRecord, MoveRecord
from accord.games.calendar.scenario import Errand, Scenario

SEAT_METRICS: tuple[str, ...] = (
    "success",
    "excess_cost",
    "adjusted_excess",
    "messages_per_meeting",
    "fairness",
    "meetings_scheduled",
)
"""Per-seat columns `table1` summarises, in Table 1 order."""


def cost_level(scenario: Scenario, cost: int) -> int:
    """Internal errand cost -> 1/2/3 scale: its level when the task uses cost values (the
    CalBench varied file's 1/100/1000), else the cost itself (generated tasks are on levels)."""
    values = scenario.params.errand_cost_values
    if values is None or cost not in values:
        return cost
    return values.index(cost) + 1


def level_scenario(scenario: Scenario) -> Scenario:
    """`scenario` with errand costs on the 1/2/3 scale (itself when already there)."""
    if scenario.params.errand_cost_values is None:
        return scenario
    calendars = tuple(
        tuple(
            None
            if e is None
            else Errand(
                id=e.id, cost=cost_level(scenario, e.cost), blocked=e.blocked, label=e.label
            )
            for e in cal
        )
        for cal in scenario.calendars
    )
    return scenario.model_copy(update={"calendars": calendars})


@dataclass(frozen=True)
class GameMetrics:
    """Game-level metrics (for `GameResult.metrics`) and one row per seat."""

    metrics: dict[str, Any]
    seat_rows: list[dict[str, Any]]


def _shares(schedule: Schedule | None) -> list[int] | None:
    return None if schedule is None else list(schedule.agent_costs)


def _mean(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def game_metrics(
    scenario: Scenario,
    schedule: Mapping[int, int],
    moves: Sequence[MoveRecord],
    messages: Sequence[MessageRecord],
) -> GameMetrics:
    """All §4.2 quantities for one finished game (see the module docstring)."""
    n = scenario.num_agents
    scheduled = sorted(schedule)
    level = level_scenario(scenario)
    meeting_cost = {m.id: m.cost for m in scenario.meetings}

    real = [0] * n
    real_internal = [0] * n
    for mv in moves:
        lv = meeting_cost[mv.item_id] if mv.kind == "meeting" else cost_level(scenario, mv.cost)
        real[mv.agent] += lv
        real_internal[mv.agent] += mv.cost
    sched_oracle = optimal_schedule(level, scheduled)
    # A schedule the static model forbids (two meetings with disjoint participants sharing a
    # slot) has no oracle; its excess is then taken as zero rather than invented.
    oracle = _shares(sched_oracle) or list(real)
    best_schedule = optimal_schedule(level)
    best = _shares(best_schedule)
    worst = _shares(worst_schedule(level))
    sent = [0] * n
    for msg in messages:
        if msg.delivered:
            sent[msg.sender] += 1

    signed = [real[i] - oracle[i] for i in range(n)]
    mean_signed = sum(signed) / n
    rows: list[dict[str, Any]] = []
    for i in range(n):
        mine = [m.id for m in scenario.meetings if i in m.participants]
        done = sum(1 for m in mine if m in schedule)
        excess = max(0, signed[i])
        dw = max(0, worst[i] - best[i]) if worst is not None and best is not None else 0
        rows.append(
            {
                "seat": i,
                "name": f"agent{i}",
                "task_id": scenario.task_id,
                "cost_setting": scenario.cost_setting,
                "meetings": len(mine),
                "meetings_scheduled": done,
                "success": done / len(mine) if mine else None,
                "real_cost": real[i],
                "oracle_cost": oracle[i],
                "excess_cost": excess,
                "signed_excess": signed[i],
                "adjusted_excess": (excess + (len(mine) - done) * dw) / len(mine) if mine else None,
                "worst_regret": dw,
                "messages": sent[i],
                "messages_per_meeting": sent[i] / max(done, 1),
                "fairness": abs(signed[i] - mean_signed),
            }
        )

    # The oracle gap is measured in the task's own units, where the oracle follower is exact.
    if level is scenario:
        internal_sched, internal_full = sched_oracle, best_schedule
    else:
        internal_sched = optimal_schedule(scenario, scheduled)
        internal_full = optimal_schedule(scenario)
    metrics: dict[str, Any] = {
        "success_rate": _mean(r["success"] for r in rows),
        "excess_cost": _mean(r["excess_cost"] for r in rows),
        "adjusted_excess": _mean(r["adjusted_excess"] for r in rows),
        "messages_per_meeting": _mean(r["messages_per_meeting"] for r in rows),
        "fairness": _mean(r["fairness"] for r in rows),
        "num_meetings": scenario.num_meetings,
        "meetings_scheduled": len(scheduled),
        "messages": sum(sent),
        "total_cost": sum(real_internal),
        "oracle_cost_scheduled": (
            internal_sched.total_cost if internal_sched is not None else sum(real_internal)
        ),
        "oracle_cost": internal_full.total_cost if internal_full is not None else 0,
        "worst_cost": None if worst is None else sum(worst),
        "level_cost": sum(real),
        "level_oracle_cost_scheduled": sum(oracle),
        "oracle_defined": sched_oracle is not None,
    }
    return GameMetrics(metrics=metrics, seat_rows=rows)


def table1(
    rows: Iterable[Mapping[str, Any]],
    *,
    by: str | Sequence[str] = "agent",
    metrics: Sequence[str] = SEAT_METRICS,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Table 1: per (cost setting, `by`...) group, N seats and the mean of every `metrics`
    column with a 95% bootstrap CI (seat rows resample as units; a seat without a value, e.g.
    S for a seat with no meetings, is left out of that column's mean)."""
    keys = (by,) if isinstance(by, str) else tuple(by)
    groups: dict[tuple[str, ...], list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        group = (str(row.get("cost_setting", "")), *(str(row.get(k, "")) for k in keys))
        groups[group].append(row)
    out: list[dict[str, Any]] = []
    for group, members in sorted(groups.items()):
        entry: dict[str, Any] = {"cost_setting": group[0]}
        entry |= dict(zip(keys, group[1:], strict=True))
        entry["n"] = len(members)
        for key in metrics:
            values = [float(v) for r in members if _number(v := r.get(key))]
            entry[key] = bootstrap_mean(values, seed=seed).as_dict()
        out.append(entry)
    return out


def _number(value: object) -> TypeGuard[int | float]:
    # bool is an int subclass, but a flag is not a metric value.
    return isinstance(value, int | float) and not isinstance(value, bool)


SPLIT_KEYS: tuple[tuple[str, str, bool], ...] = (
    ("success_rate", "coord", True),
    ("excess_cost", "excess", False),
    ("messages_per_meeting", "msgs", False),
    ("fairness", "fair", False),
    ("vps", "VPS", False),
)
"""Table 2's columns (key, label, percent), reported per cost setting."""

SUMMARY_METRICS: list[tuple[str, str, bool]] = [
    *((f"{s}_{k}", f"{s[0].upper()} {label}", pct) for s in ("uniform", "varied")
      for k, label, pct in SPLIT_KEYS),
    ("adjusted_excess", "adj. excess", False),
]  # fmt: skip
"""The run summary of `calendar-v2`: Table 2 split by cost setting, plus Figure 2's y axis."""


def by_setting(metrics: Mapping[str, Any], setting: str) -> dict[str, Any]:
    """Each `SPLIT_KEYS` metric under ``<setting>_<key>``, None under the other setting."""
    return {
        f"{s}_{k}": metrics.get(k) if s == setting else None
        for s in ("uniform", "varied")
        for k, _, _ in SPLIT_KEYS
    }


def oracle_gap(m: Mapping[str, Any]) -> float:
    """Missed-meeting share plus excess over the scheduled-subset oracle, relative to the full
    oracle cost, in the task's own units (0 exactly at the oracle)."""
    missed = (m["num_meetings"] - m["meetings_scheduled"]) / max(1, m["num_meetings"])
    excess = max(0, m["total_cost"] - m["oracle_cost_scheduled"])
    return float(missed + excess / max(1, m["oracle_cost"]))
