"""Private labels: the bank, per-scenario draws, and what each agent may see (App. A.1)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from accord.core.errors import ConfigError
from accord.games.calendar import Scenario, generate_scenario, load_suite, visible_labels
from accord.games.calendar.labels import TIERS, draw_labels, load_label_bank


def test_bank_size_tiers_and_uniqueness() -> None:
    bank = load_label_bank()
    errands = [t for tier in TIERS for t in bank.errand[tier]]
    meetings = [t for tier in TIERS for t in bank.meeting[tier]]
    assert len(errands) >= 150
    assert len(meetings) >= 60
    assert all(len(bank.errand[t]) >= 40 and len(bank.meeting[t]) >= 15 for t in TIERS)
    assert len(set(errands + meetings)) == len(errands) + len(meetings)
    assert all(text.strip() == text and text for text in errands + meetings)


def _scenarios() -> list[Scenario]:
    out = []
    for seed in range(120):
        rng = random.Random(seed)
        n = rng.randint(2, 6)
        out.append(
            generate_scenario(
                seed,
                num_agents=n,
                density=rng.choice((0.4, 0.8, 1.0)),
                num_meetings=rng.randint(1, 6),
                participants_per_meeting=rng.randint(1, n),
                cost_setting=rng.choice(("uniform", "varied")),
            )
        )
    return out


def test_labels_unique_within_each_scenario() -> None:
    for scenario in _scenarios():
        texts = [e.label.text for cal in scenario.calendars for e in cal if e is not None]
        texts += [m.label.text for m in scenario.meetings]
        assert len(texts) == len(set(texts))


def test_an_agent_sees_exactly_its_own_labels() -> None:
    for scenario in _scenarios():
        for agent in range(scenario.num_agents):
            seen = visible_labels(scenario, agent)
            own_errands = {e.id: e.label.text for e in scenario.calendars[agent] if e is not None}
            own_meetings = {
                m.id: m.label.text for m in scenario.meetings if agent in m.participants
            }
            assert seen == {"errands": own_errands, "meetings": own_meetings}
            shown = set(seen["errands"].values()) | set(seen["meetings"].values())
            others = {
                e.label.text
                for other, cal in enumerate(scenario.calendars)
                if other != agent
                for e in cal
                if e is not None
            }
            foreign_meetings = {
                m.label.text for m in scenario.meetings if agent not in m.participants
            }
            assert not shown & others
            assert not shown & foreign_meetings
            assert not shown & set(TIERS)


def test_labels_are_fixed_by_the_seed() -> None:
    a, b = (
        generate_scenario(11, cost_setting="varied"),
        generate_scenario(11, cost_setting="varied"),
    )
    assert [visible_labels(a, i) for i in range(5)] == [visible_labels(b, i) for i in range(5)]
    c = generate_scenario(12, cost_setting="varied")
    assert visible_labels(a, 0) != visible_labels(c, 0)


def test_imported_tasks_get_stable_labels() -> None:
    first = load_suite("calbench-uniform")[0]
    again = load_suite("calbench-uniform")[0]
    assert visible_labels(first, 0) == visible_labels(again, 0)
    assert visible_labels(first, 0)["errands"]


def test_draws_cover_every_tier_and_refill_when_exhausted() -> None:
    labels = draw_labels(random.Random(0), "meeting", 500)
    assert Counter(label.tier for label in labels).keys() == set(TIERS)
    first_round = [
        label.text for label in labels[: sum(len(v) for v in load_label_bank().meeting.values())]
    ]
    assert len(first_round) == len(set(first_round))


def test_unknown_agent_is_a_config_error() -> None:
    scenario = generate_scenario(0)
    with pytest.raises(ConfigError, match=r"agents 0\.\.4"):
        visible_labels(scenario, 5)
