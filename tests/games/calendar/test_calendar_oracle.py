"""Oracle, greedy and counter against an independent brute force on small random scenarios.

The brute force below re-implements the static model from its statement in docs/calendar.md,
without using `placement.py`, so a shared mistake would have to be made twice.
"""

from __future__ import annotations

import asyncio
import itertools
import random

import pytest

from accord.core.errors import ConfigError
from accord.core.registry import make_config
from accord.games.calendar import (
    Errand,
    Meeting,
    PrivateLabel,
    Scenario,
    ScenarioParams,
    compute_oracle,
    count_feasible,
    count_feasible_cpsat,
    generate_scenario,
    greedy_schedule,
    is_feasible,
    optimal_schedule,
    worst_schedule,
)
from accord.games.calendar import oracle as oracle_module
from accord.games.calendar.oracle import COUNT_MAX_MEETINGS
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec

LABEL = PrivateLabel(text="x", tier="public")


def raw_scenario(rng: random.Random) -> Scenario:
    """A random scenario with no feasibility guarantee: dense, blocked-heavy calendars included,
    so infeasible meeting sets and a binding landing rule both occur."""
    n = rng.randint(1, 4)
    s = rng.randint(3, 7)
    m = rng.randint(1, min(4, s))
    next_id = 0
    calendars = []
    for _ in range(n):
        fill = rng.random()
        cal: list[Errand | None] = []
        for _ in range(s):
            if rng.random() < fill:
                cal.append(
                    Errand(
                        id=next_id,
                        cost=rng.choice((1, 2, 3, 7)),
                        blocked=rng.random() < 0.2,
                        label=LABEL,
                    )
                )
                next_id += 1
            else:
                cal.append(None)
        calendars.append(tuple(cal))
    meetings = tuple(
        Meeting(
            id=10 + j,
            participants=tuple(sorted(rng.sample(range(n), rng.randint(1, n)))),
            label=LABEL,
        )
        for j in range(m)
    )
    params = ScenarioParams(num_agents=n, num_slots=s, num_meetings=m, participants_per_meeting=1)
    return Scenario(
        task_id="raw",
        seed=0,
        num_slots=s,
        calendars=tuple(calendars),
        meetings=meetings,
        cost_setting="uniform",
        cost_display="linear",
        params=params,
        witness={mt.id: 0 for mt in meetings},
        absorbing=tuple(() for _ in range(n)),
    )


def rules_hold(scenario: Scenario, meetings: list[Meeting], slots: tuple[int, ...]) -> bool:
    """The static model applied to one assignment, straight from its statement."""
    for meeting, slot in zip(meetings, slots, strict=True):
        for a in meeting.participants:
            item = scenario.calendars[a][slot]
            if item is not None and item.blocked:
                return False
    for a in range(scenario.num_agents):
        own = [sl for mt, sl in zip(meetings, slots, strict=True) if a in mt.participants]
        displaced = sum(scenario.calendars[a][sl] is not None for sl in own)
        landing = sum(
            1
            for t in range(scenario.num_slots)
            if scenario.calendars[a][t] is None and t not in own
        )
        if displaced > landing:
            return False
    return True


def static_costs(scenario: Scenario, meetings: list[Meeting], slots: tuple[int, ...]) -> list[int]:
    per_agent = [0] * scenario.num_agents
    for meeting, slot in zip(meetings, slots, strict=True):
        for a in meeting.participants:
            item = scenario.calendars[a][slot]
            per_agent[a] += 0 if item is None else item.cost
    return per_agent


Found = tuple[int, tuple[int, ...], list[int]]


def brute(scenario: Scenario, meetings: list[Meeting]) -> tuple[int, Found | None, Found | None]:
    """Count, best and worst over every injective assignment, in lexicographic order."""
    count = 0
    best: Found | None = None
    worst: Found | None = None
    for slots in itertools.permutations(range(scenario.num_slots), len(meetings)):
        if not rules_hold(scenario, meetings, slots):
            continue
        count += 1
        per_agent = static_costs(scenario, meetings, slots)
        total = sum(per_agent)
        # Strict comparisons keep the lexicographically smallest of tied assignments.
        if best is None or total < best[0]:
            best = (total, slots, per_agent)
        if worst is None or total > worst[0]:
            worst = (total, slots, per_agent)
    return count, best, worst


CASES = 160


@pytest.mark.parametrize("case", range(CASES))
def test_oracle_matches_brute_force(case: int) -> None:
    rng = random.Random(case)
    scenario = raw_scenario(rng)
    ids = sorted(
        rng.sample([m.id for m in scenario.meetings], rng.randint(1, scenario.num_meetings))
    )
    subset = ids if case % 2 else None
    meetings = [m for m in scenario.meetings if subset is None or m.id in subset]
    count, best_expected, worst_expected = brute(scenario, meetings)

    assert count_feasible(scenario, subset) == count
    best, worst = optimal_schedule(scenario, subset), worst_schedule(scenario, subset)
    if best_expected is None or worst_expected is None:
        assert best is None and worst is None
        return
    assert best is not None and worst is not None
    for got, (total, slots, per_agent) in ((best, best_expected), (worst, worst_expected)):
        assert got.total_cost == total
        assert got.slots == {m.id: s for m, s in zip(meetings, slots, strict=True)}
        assert list(got.agent_costs) == per_agent
        assert is_feasible(scenario, got.slots)


@pytest.mark.parametrize("case", range(40))
def test_greedy_matches_independent_greedy(case: int) -> None:
    scenario = raw_scenario(random.Random(1000 + case))
    placed: dict[int, int] = {}
    missing: list[int] = []
    for meeting in scenario.meetings:
        chosen = [mt for mt in scenario.meetings if mt.id in placed] + [meeting]
        for slot in range(scenario.num_slots):
            slots = (*(placed[mt.id] for mt in chosen[:-1]), slot)
            if slot not in placed.values() and rules_hold(scenario, chosen, slots):
                placed[meeting.id] = slot
                break
        else:
            missing.append(meeting.id)
    result = greedy_schedule(scenario)
    assert result.schedule.slots == placed
    assert list(result.unscheduled) == missing
    placed_meetings = [m for m in scenario.meetings if m.id in placed]
    expected_costs = static_costs(
        scenario, placed_meetings, tuple(placed[m.id] for m in placed_meetings)
    )
    assert list(result.schedule.agent_costs) == expected_costs


def test_random_cases_cover_infeasible_and_binding_landing_rule() -> None:
    """Guards the brute-force comparison itself: it must meet infeasible tasks and assignments
    that only the landing rule rejects, or it would not test those paths."""
    infeasible = binding = 0
    for case in range(CASES):
        scenario = raw_scenario(random.Random(case))
        meetings = list(scenario.meetings)
        infeasible += brute(scenario, meetings)[0] == 0
        for slots in itertools.permutations(range(scenario.num_slots), len(meetings)):
            hits_blocked = any(
                (item := scenario.calendars[a][sl]) is not None and item.blocked
                for mt, sl in zip(meetings, slots, strict=True)
                for a in mt.participants
            )
            if not hits_blocked and not rules_hold(scenario, meetings, slots):
                binding += 1
                break
    assert infeasible >= 5
    assert binding >= 5


def test_staged_tie_break_agrees_with_folded_objective(monkeypatch: pytest.MonkeyPatch) -> None:
    scenarios = [generate_scenario(seed, cost_setting="varied", num_blocked=2) for seed in range(6)]
    folded = [(optimal_schedule(s), worst_schedule(s)) for s in scenarios]
    monkeypatch.setattr(oracle_module, "_OBJECTIVE_LIMIT", 1)
    staged = [(optimal_schedule(s), worst_schedule(s)) for s in scenarios]
    assert staged == folded


def test_cpsat_enumeration_agrees_with_dp() -> None:
    for seed in range(8):
        scenario = generate_scenario(seed, num_agents=3, num_slots=8, num_meetings=3, num_blocked=1)
        assert count_feasible_cpsat(scenario) == count_feasible(scenario)
    for case in range(20):
        scenario = raw_scenario(random.Random(case))
        assert count_feasible_cpsat(scenario) == count_feasible(scenario)


def test_report_is_consistent_on_generated_tasks() -> None:
    for seed in range(10):
        scenario = generate_scenario(seed, cost_setting="varied", density=1.0, num_blocked=3)
        report = compute_oracle(scenario)
        assert report.optimal is not None and report.worst is not None
        meetings = list(scenario.meetings)
        witness_cost = sum(
            static_costs(scenario, meetings, tuple(scenario.witness[m.id] for m in meetings))
        )
        assert report.optimal.total_cost <= witness_cost <= report.worst.total_cost
        assert report.optimal.total_cost <= report.greedy.schedule.total_cost
        assert report.greedy.unscheduled == ()
        assert report.feasible_count >= 1
        assert report.feasible_fraction == report.feasible_count / report.total_assignments


def test_empty_subset_and_unknown_ids() -> None:
    scenario = generate_scenario(3)
    empty = optimal_schedule(scenario, [])
    assert empty is not None and empty.total_cost == 0
    assert count_feasible(scenario, []) == 1
    with pytest.raises(ConfigError, match="unknown meeting ids"):
        optimal_schedule(scenario, [99])


def test_subset_oracle_never_exceeds_the_full_optimum_restricted() -> None:
    """Dropping meetings can only lower the minimum (partial games are scored this way, §4.2)."""
    for seed in range(10):
        scenario = generate_scenario(seed, cost_setting="varied", num_blocked=2)
        full = optimal_schedule(scenario)
        assert full is not None
        for k in range(scenario.num_meetings):
            prefix = list(scenario.meetings[:k])
            part = optimal_schedule(scenario, [m.id for m in prefix])
            assert part is not None
            restricted = static_costs(scenario, prefix, tuple(full.slots[m.id] for m in prefix))
            assert part.total_cost <= sum(restricted)


def test_long_streams_play_and_skip_only_the_exponential_count() -> None:
    opts = {"num_agents": 4, "num_slots": 48, "num_meetings": 20, "participants_per_meeting": 2}
    spec = GameSpec(
        trace_id="long",
        game="calendar",
        seed=3,
        options=opts,
        agents=[AgentSpec(agent="oracle-follower")] * 4,
    )
    trace = asyncio.run(play_game(spec))
    assert trace.status == "complete" and trace.metrics["success_rate"] == 1.0
    oracle = trace.scenario["oracle"]
    assert COUNT_MAX_MEETINGS < 20 and oracle["feasible_count"] is None
    assert oracle["difficulty"] is None and oracle["optimal_cost"] is not None
    assert trace.metrics["excess_cost"] == 0
    with pytest.raises(Exception, match="less than or equal to 24"):
        make_config("calendar", {"num_meetings": 25})


def test_tertile_buckets_rank_d_within_each_configuration() -> None:
    from accord.games.calendar import (
        difficulty_bucket,
        feasible_fraction,
        load_suite,
        tertile_buckets,
    )

    canonical = load_suite("canonical")
    buckets = tertile_buckets(canonical)
    fractions = [feasible_fraction(t) for t in canonical]
    groups: dict[tuple[object, ...], list[int]] = {}
    for i, t in enumerate(canonical):
        groups.setdefault((t.cost_setting, t.params.num_blocked), []).append(i)
    assert len(groups) == 6
    for members in groups.values():
        hard = [fractions[i] for i in members if buckets[i] == "hard"]
        easy = [fractions[i] for i in members if buckets[i] == "easy"]
        assert len(hard) == -(-len(members) // 3) and max(hard) <= min(easy)
    # The published files have no blocked errands and every assignment is feasible (d = 1), so
    # no rule on d can separate their tasks; their labels are the release's own.
    published = load_suite("calbench-uniform")
    assert {feasible_fraction(t) for t in published} == {1.0}
    assert {difficulty_bucket(feasible_fraction(t)) for t in published} == {"easy"}
