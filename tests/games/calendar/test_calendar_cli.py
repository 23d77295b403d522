"""The calendar on the command line: `accord scenario` with its oracle (App. A.1 step 5),
`accord suite` (§4.1) and its experiment file, and quick runs over suites."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from accord.cli.main import app
from accord.games.calendar import (
    CalendarGame,
    Scenario,
    build_canonical_suite,
    compute_oracle,
    generate_scenario,
    load_suite,
    write_suite,
)
from accord.games.calendar.export import scenario_json
from accord.runner.config import expand, load_experiment

runner = CliRunner(env={"COLUMNS": "200"})


def test_scenario_command_prints_the_view_with_its_oracle() -> None:
    result = runner.invoke(app, ["scenario", "calendar", "--seed", "3", "-o", "suite=canonical"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    task = load_suite("canonical")[3]  # a suite game plays task seed mod size
    assert data["task_id"] == task.task_id
    assert (data["num_agents"], data["num_slots"], data["num_meetings"]) == (5, 16, 5)
    report = compute_oracle(task)
    assert report.optimal is not None and report.worst is not None
    oracle = data["oracle"]
    assert oracle["optimal_cost"] == report.optimal.total_cost
    assert oracle["optimal_assignment"] == {str(k): v for k, v in report.optimal.slots.items()}
    assert oracle["per_agent_optimal_cost"] == list(report.optimal.agent_costs)
    assert oracle["worst_cost"] == report.worst.total_cost
    assert oracle["greedy_cost"] == report.greedy.schedule.total_cost
    assert oracle["feasible_count"] == report.feasible_count
    assert oracle["feasible_fraction"] == pytest.approx(report.feasible_fraction)
    assert oracle["difficulty"] == report.difficulty == task.task_id.split("-")[2]
    cells = [c for cal in data["calendars"] for c in cal if c is not None]
    assert cells and all(c["kind"] == "errand" for c in cells)
    assert {"id", "cost", "blocked", "label"} <= set(cells[0])
    assert all({"id", "participants"} <= set(m) for m in data["meetings"])
    assert set(data["witness"]) == {str(m.id) for m in task.meetings}


def test_the_view_reads_back_as_the_scenario() -> None:
    task = generate_scenario(7, num_agents=4, num_blocked=1, cost_setting="varied")
    view = scenario_json(task)
    assert Scenario.model_validate(view) == task
    assert Scenario.model_validate_json(json.dumps(view)) == task
    assert "oracle" not in scenario_json(task, oracle=False)
    bad = json.loads(json.dumps(view))
    slot = next(i for i, c in enumerate(bad["calendars"][0]) if c is not None)
    bad["calendars"][0][slot]["kind"] = "meeting"
    with pytest.raises(ValueError, match="errands only"):
        Scenario.model_validate(bad)


def test_suite_command_writes_the_canonical_suite(tmp_path: Path) -> None:
    out = tmp_path / "canonical.jsonl"
    result = runner.invoke(app, ["suite", "calendar", "canonical", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert load_suite(out) == build_canonical_suite()
    assert "90 tasks" in result.output
    assert result.output.count("45 tasks (15 easy, 15 medium, 15 hard)") == 2


def test_suite_command_errors(tmp_path: Path) -> None:
    cases = [
        (["suite", "negotiation", "canonical"], "has no task suites"),
        (["suite", "calendar", "nowhere.jsonl"], "no suite named"),
        (["suite", "calendar", "calbench-uniform", "--seed", "2"], "only applies to the canonical"),
        (["suite", "calendar", "calbench-uniform", "--agents", "x"], "apply with --experiment"),
        (
            ["suite", "calendar", "canonical", "--experiment", str(tmp_path / "e.yaml")],
            "needs --agents or --model",
        ),
        (
            ["suite", "calendar", "canonical", "--seed", "1", "--experiment", "e.yaml", "--agents",
             "oracle-follower"],
            "also give --out",
        ),
        (
            ["suite", "calendar", "calbench-uniform", "--experiment", str(tmp_path / "e.yaml"),
             "--agents", "oracle-follower,oracle-follower"],
            "seats but 2 agents",
        ),
    ]  # fmt: skip
    for args, message in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output.replace("\n", " "), (args, result.output)
    assert not (tmp_path / "e.yaml").exists()


def test_suite_experiment_plays_every_task_once(tmp_path: Path) -> None:
    tasks = [
        generate_scenario(s, num_agents=n, participants_per_meeting=2, num_slots=6, task_id=f"t{s}")
        for s, n in [(1, 2), (2, 3), (3, 3)]
    ]
    suite = write_suite(tmp_path / "mixed.jsonl", tasks)
    exp = tmp_path / "exp.yaml"
    result = runner.invoke(
        app,
        ["suite", "calendar", str(suite), "--experiment", str(exp), "--agents", "oracle-follower",
         "-o", "channels=all"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert yaml.safe_load(exp.read_text())["grid"] == {"options.task": ["t1", "t2", "t3"]}
    specs = expand(load_experiment(exp))
    assert [len(s.agents) for s in specs] == [2, 3, 3]  # one spec fills each task's seats
    out = tmp_path / "run"
    result = runner.invoke(app, ["run", str(exp), "--out", str(out)])
    assert result.exit_code == 0, result.output
    traces = [json.loads(p.read_text()) for p in sorted((out / "traces").glob("*.json"))]
    assert sorted(t["scenario"]["task_id"] for t in traces) == ["t1", "t2", "t3"]
    assert all(t["config"]["channels"] == "all" for t in traces)
    assert all(t["metrics"]["success_rate"] == 1.0 for t in traces)


def test_quick_runs_over_suites_print_the_calendar_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from accord.cli import main

    # A wide console, so that no column header is wrapped onto two lines.
    monkeypatch.setattr(main.console, "width", 300)
    args = ["run", "calendar", "--agents", "oracle-follower", "--games", "2"]
    result = runner.invoke(app, [*args, "-o", "suite=canonical", "--out", str(tmp_path / "c")])
    assert result.exit_code == 0, result.output
    # Every metric the two games measured gets its labelled column (a column no game of the
    # run measured, e.g. the uniform half when both tasks have varied costs, is left out).
    groups = json.loads((tmp_path / "c" / "summary.json").read_text())["groups"]
    measured = {k for g in groups for k, v in g["metrics"].items() if v.get("n")}
    labels = [
        label + (" %" if pct else "")
        for key, label, pct in CalendarGame.summary_metrics
        if key in measured
    ]
    assert labels and all(label in result.output for label in labels)
    assert "100.0" in result.output  # the followers schedule every meeting
    mixed = runner.invoke(app, [*args, "-o", "suite=calbench-uniform", "--out", str(tmp_path)])
    assert mixed.exit_code == 2 and "give 'num_agents'" in mixed.output.replace("\n", " ")
    two = runner.invoke(
        app,
        [*args, "-o", "suite=calbench-uniform", "-o", "num_agents=2", "--out", str(tmp_path / "u")],
    )
    assert two.exit_code == 0, two.output
    traces = list((tmp_path / "u" / "traces").glob("*.json"))
    assert len(traces) == 2
    assert all(len(json.loads(p.read_text())["seats"]) == 2 for p in traces)


def test_suite_with_task_plays_that_task_only(tmp_path: Path) -> None:
    args = ["run", "calendar", "--agents", "oracle-follower", "--suite", "canonical"]
    result = runner.invoke(app, [*args, "--task", "3", "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    traces = [json.loads(p.read_text()) for p in (tmp_path / "r" / "traces").glob("*.json")]
    assert [t["scenario"]["task_id"] for t in traces] == [load_suite("canonical")[3].task_id]
    named = load_suite("calbench-uniform")[5].task_id
    by_id = runner.invoke(
        app,
        ["run", "calendar", "--agents", "oracle-follower", "--suite", "calbench-uniform",
         "--task", named, "--out", str(tmp_path / "n")],
    )  # fmt: skip
    assert by_id.exit_code == 0, by_id.output
    (trace,) = [json.loads(p.read_text()) for p in (tmp_path / "n" / "traces").glob("*.json")]
    assert trace["scenario"]["task_id"] == named
    bad = runner.invoke(app, [*args, "--task", "300", "--out", str(tmp_path / "b")])
    assert bad.exit_code == 2 and "out of range" in bad.output
