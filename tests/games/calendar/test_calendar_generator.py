"""Generator invariants (App. A.1) over many seeds and parameter draws, and determinism."""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Any

import pytest

from accord.core.errors import ConfigError
from accord.games.calendar import (
    Scenario,
    count_feasible,
    display_cost,
    generate_scenario,
    is_feasible,
)


def random_kwargs(rng: random.Random) -> dict[str, Any]:
    n = rng.randint(2, 6)
    s = rng.randint(6, 16)
    m = rng.randint(1, min(6, s))
    setting = rng.choice(("uniform", "varied"))
    kwargs: dict[str, Any] = {
        "num_agents": n,
        "num_slots": s,
        "num_meetings": m,
        "cost_setting": setting,
        "force_witness_errand": rng.random() < 0.7,
        "meeting_cost_level": rng.randint(1, 3),
    }
    if rng.random() < 0.5:
        kwargs["density"] = rng.choice((0.0, 0.3, 0.6, 0.8, 1.0))
    else:
        kwargs["density"] = [rng.choice((0.2, 0.6, 0.8, 1.0)) for _ in range(n)]
    if rng.random() < 0.3:
        kwargs["participant_lists"] = [rng.sample(range(n), rng.randint(1, n)) for _ in range(m)]
    else:
        kwargs["participants_per_meeting"] = rng.randint(1, n)
    if setting == "varied":
        kwargs["balanced_costs"] = rng.random() < 0.7
        kwargs["pref_level"] = rng.randint(2, 4)
    return kwargs


def densities(scenario: Scenario) -> list[float]:
    return [scenario.params.density_of(a) for a in range(scenario.num_agents)]


def witness_slots(scenario: Scenario, agent: int) -> set[int]:
    return {scenario.witness[m.id] for m in scenario.meetings if agent in m.participants}


SEEDS = range(300)


@pytest.fixture(scope="module")
def generated() -> list[Scenario]:
    out = []
    for seed in SEEDS:
        kwargs = random_kwargs(random.Random(seed))
        probe = generate_scenario(seed, **kwargs)
        # Blocked counts that fit every agent: at most its errands off witness slots.
        room = [
            sum(e is not None for t, e in enumerate(cal) if t not in witness_slots(probe, a))
            for a, cal in enumerate(probe.calendars)
        ]
        blocked_rng = random.Random(-seed - 1)
        kwargs["num_blocked"] = [blocked_rng.randint(0, r) for r in room]
        out.append(generate_scenario(seed, **kwargs))
    return out


def test_witness_is_feasible_under_the_oracle_rules(generated: list[Scenario]) -> None:
    for scenario in generated:
        assert len(set(scenario.witness.values())) == scenario.num_meetings
        assert is_feasible(scenario, scenario.witness)
        assert count_feasible(scenario) >= 1


def test_errand_counts_follow_density_with_the_absorbing_cap(generated: list[Scenario]) -> None:
    for scenario in generated:
        s = scenario.num_slots
        for a, cal in enumerate(scenario.calendars):
            k = len(witness_slots(scenario, a))
            expected = min(math.floor(s * densities(scenario)[a] + 1e-9), s - k)
            assert sum(e is not None for e in cal) == expected


def test_blocked_errands_match_and_avoid_witness_slots(generated: list[Scenario]) -> None:
    for scenario in generated:
        for a, cal in enumerate(scenario.calendars):
            blocked = [t for t, e in enumerate(cal) if e is not None and e.blocked]
            assert len(blocked) == scenario.params.blocked_of(a)
            assert not set(blocked) & witness_slots(scenario, a)


def test_absorbing_slots_are_free_one_per_witness_errand(generated: list[Scenario]) -> None:
    for scenario in generated:
        for a, cal in enumerate(scenario.calendars):
            own = witness_slots(scenario, a)
            absorbing = scenario.absorbing[a]
            witness_errands = sum(cal[t] is not None for t in own)
            assert len(absorbing) == witness_errands == len(set(absorbing))
            assert all(cal[t] is None and t not in own for t in absorbing)
            if scenario.params.force_witness_errand:
                errands = sum(e is not None for e in cal)
                assert witness_errands == min(len(own), errands)


def test_costs_follow_the_setting(generated: list[Scenario]) -> None:
    for scenario in generated:
        level = scenario.params.cost_level
        for cal in scenario.calendars:
            costs = [e.cost for e in cal if e is not None]
            assert all(1 <= c <= level for c in costs)
            if scenario.cost_setting == "uniform":
                assert set(costs) <= {1}
            elif scenario.params.balanced_costs and costs:
                counts = Counter(costs)
                per_level = [counts.get(lv, 0) for lv in range(1, level + 1)]
                assert max(per_level) - min(per_level) <= 1
        assert all(1 <= m.cost <= scenario.params.meeting_cost_level for m in scenario.meetings)
        expected_display = "log10" if scenario.cost_setting == "varied" else "linear"
        assert scenario.cost_display == expected_display


def test_ids_unique_and_participants_rotate_evenly(generated: list[Scenario]) -> None:
    for scenario in generated:
        ids = [e.id for cal in scenario.calendars for e in cal if e is not None]
        assert len(ids) == len(set(ids))
        if scenario.params.participant_lists is None:
            load = Counter(a for m in scenario.meetings for a in m.participants)
            counts = [load.get(a, 0) for a in range(scenario.num_agents)]
            assert max(counts) - min(counts) <= 1
        else:
            assert [m.participants for m in scenario.meetings] == [
                tuple(sorted(g)) for g in scenario.params.participant_lists
            ]


def test_same_seed_same_scenario_and_json_round_trip() -> None:
    for seed in range(20):
        kwargs = random_kwargs(random.Random(seed))
        a, b = generate_scenario(seed, **kwargs), generate_scenario(seed, **kwargs)
        assert a == b
        assert Scenario.model_validate_json(a.model_dump_json()) == a
    assert generate_scenario(1) != generate_scenario(2)


def test_canonical_shape_defaults() -> None:
    scenario = generate_scenario(7, density=[0.6, 0.8, 1.0, 1.0, 0.6], num_blocked=6)
    assert (scenario.num_agents, scenario.num_slots, scenario.num_meetings) == (5, 16, 5)
    assert all(len(m.participants) == 3 for m in scenario.meetings)
    # 5 agents x 3 seats over 5 meetings: everyone attends exactly 3 meetings.
    assert Counter(a for m in scenario.meetings for a in m.participants) == dict.fromkeys(
        range(5), 3
    )
    assert [sum(e is not None for e in cal) for cal in scenario.calendars] == [9, 12, 13, 13, 9]


def test_display_cost_is_the_log_scale() -> None:
    assert [display_cost(c) for c in (1, 2, 3)] == [1, 10, 100]
    varied = generate_scenario(0, cost_setting="varied")
    assert varied.shown_cost(3) == 100
    assert generate_scenario(0).shown_cost(1) == 1
    with pytest.raises(ValueError):
        display_cost(0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"density": [0.5, 0.5]}, "one per agent"),
        ({"density": 1.5}, r"\[0, 1\]"),
        ({"num_meetings": 17}, "distinct slots"),
        ({"participants_per_meeting": 6}, "participants_per_meeting"),
        ({"participant_lists": [[0, 1]]}, "one per meeting"),
        ({"pref_level": 3}, "cost_setting='varied'"),
        ({"num_blocked": 20}, "lower num_blocked"),
        ({"num_blocked": [1, 2]}, "one per agent"),
    ],
)
def test_bad_parameters_raise_config_error(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        generate_scenario(0, **kwargs)
