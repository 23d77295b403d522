"""The published CalBench files: import, and every published oracle number reproduced."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accord.core.errors import ConfigError
from accord.games.calendar import (
    Scenario,
    assignment_costs,
    count_feasible,
    greedy_schedule,
    is_feasible,
    load_suite,
    optimal_schedule,
    published_eviction_count,
    published_greedy_cost,
    write_suite,
)

SUITES = ("calbench-uniform", "calbench-varied")
PACKAGED = Path(__file__).resolve().parents[3] / "src/accord/games/calendar/data/calbench"


@pytest.fixture(scope="module", params=SUITES)
def suite(request: pytest.FixtureRequest) -> list[Scenario]:
    return load_suite(request.param)


def test_each_suite_has_108_tasks_with_published_numbers(suite: list[Scenario]) -> None:
    assert len(suite) == 108
    assert len({s.task_id for s in suite}) == 108
    assert all(s.published is not None for s in suite)


def test_published_optimal_costs_reproduce_exactly(suite: list[Scenario]) -> None:
    mismatches = []
    for scenario in suite:
        assert scenario.published is not None
        got = optimal_schedule(scenario)
        assert got is not None
        if got.total_cost != scenario.published.optimal_cost:
            mismatches.append((scenario.task_id, got.total_cost, scenario.published.optimal_cost))
    assert mismatches == []


def test_published_assignments_are_feasible_and_cost_what_they_claim(suite: list[Scenario]) -> None:
    for scenario in suite:
        ref = scenario.published
        assert ref is not None
        assert ref.feasible
        assert is_feasible(scenario, ref.optimal_assignment)
        assert assignment_costs(scenario, ref.optimal_assignment)[0] == ref.optimal_cost
        assert is_feasible(scenario, scenario.witness)
        assert assignment_costs(scenario, scenario.witness)[0] == ref.witness_cost
        assert count_feasible(scenario) >= 1


def test_published_greedy_and_eviction_fields_follow_the_documented_models(
    suite: list[Scenario],
) -> None:
    for scenario in suite:
        ref = scenario.published
        assert ref is not None
        assert published_greedy_cost(scenario) == ref.greedy_cost
        assert published_eviction_count(scenario, ref.optimal_assignment) == ref.optimal_evictions
        # Our greedy baseline is a different (sensible) rule; it never beats the optimum.
        assert greedy_schedule(scenario).schedule.total_cost >= ref.optimal_cost


def test_published_difficulty_score_is_optimal_cost_per_participant_slot(
    suite: list[Scenario],
) -> None:
    for scenario in suite:
        ref = scenario.published
        assert ref is not None
        participant_slots = sum(len(m.participants) for m in scenario.meetings)
        assert ref.difficulty_score == pytest.approx(ref.optimal_cost / participant_slots)


def test_cost_settings_and_values(suite: list[Scenario]) -> None:
    costs = {e.cost for s in suite for cal in s.calendars for e in cal if e is not None}
    setting = suite[0].cost_setting
    assert costs == ({1} if setting == "uniform" else {1, 100, 1000})
    assert all(s.cost_display == "linear" for s in suite)


def test_packaged_files_equal_a_path_load() -> None:
    by_name = load_suite("calbench-uniform")
    by_path = load_suite(PACKAGED / "uniform_full.jsonl")
    assert by_name == by_path
    assert by_name[0].source == "calbench:uniform_full.jsonl"


def test_written_scenarios_load_back_unchanged(tmp_path: Path) -> None:
    scenarios = load_suite("calbench-varied")[:5]
    path = write_suite(tmp_path / "suite.jsonl", scenarios)
    assert load_suite(path) == scenarios


def _first_record() -> dict[str, object]:
    line = (PACKAGED / "uniform_full.jsonl").read_text("utf-8").splitlines()[0]
    record: dict[str, object] = json.loads(line)
    return record


def test_bad_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(_first_record()) + "\n{not json\n", "utf-8")
    with pytest.raises(ConfigError, match="line 2: not valid JSON"):
        load_suite(path)


def test_missing_field_names_line_and_field(tmp_path: Path) -> None:
    record = _first_record()
    del record["meetings"]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n" + json.dumps(record) + "\n", "utf-8")
    with pytest.raises(ConfigError, match="line 2: missing field 'meetings'"):
        load_suite(path)


def test_wrong_nested_type_names_the_dotted_field(tmp_path: Path) -> None:
    record = _first_record()
    calendars = record["calendars"]
    assert isinstance(calendars, list)
    calendars[1][0] = {"errand_id": 3, "cost": "high"}
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(record) + "\n", "utf-8")
    with pytest.raises(ConfigError, match=r"field 'calendars\.1\.0\.cost'"):
        load_suite(path)


def test_inconsistent_record_is_a_config_error(tmp_path: Path) -> None:
    record = _first_record()
    meetings = record["meetings"]
    assert isinstance(meetings, list)
    meetings[0]["participants"] = [0, 7]
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(record) + "\n", "utf-8")
    with pytest.raises(ConfigError, match="line 1"):
        load_suite(path)


def test_unknown_name_and_empty_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="calbench-uniform"):
        load_suite("calbench-nope")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", "utf-8")
    with pytest.raises(ConfigError, match="no tasks"):
        load_suite(empty)
