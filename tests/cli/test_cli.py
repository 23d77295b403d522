"""The `accord` command: help with examples, quick runs, scenarios, clear errors."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli.main import app

runner = CliRunner(env={"COLUMNS": "200"})


def _commands() -> list[str]:
    import typer.main

    return sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", _commands())
def test_every_command_has_help_with_an_example(command: str, cli_help: Callable[..., str]) -> None:
    # The one test of every command's help; other tests read the same text for their details.
    assert re.search(rf"Example.*?accord {re.escape(command)}\b", cli_help(command), re.S)


def test_quick_run_with_reference_agents(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = runner.invoke(
        app,
        [
            "run",
            "negotiation",
            "--agents",
            "cooperative,cooperative",
            "--games",
            "3",
            "-o",
            "rounds=2",
            "-o",
            "ratio=0.8",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "efficiency" in result.output and "100.0" in result.output
    assert len(list((out / "traces").glob("*.json"))) == 3
    rows = (out / "results.jsonl").read_text().splitlines()
    assert len(rows) == 6


def test_run_errors_are_one_clear_line(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["run", "negotiation", "--agents", "nobody", "--out", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "Unknown agent 'nobody'" in result.output
    result = runner.invoke(app, ["run", "negotiation", "--agents", "greedy", "-o", "rounds"])
    assert result.exit_code == 2 and "key=value" in result.output
    result = runner.invoke(app, ["run", "missing.yaml"])
    assert result.exit_code == 2 and "No experiment file" in result.output


def test_scenario_pool_json_has_the_contract_fields() -> None:
    result = runner.invoke(app, ["scenario", "negotiation", "--pool", "paper", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert len(data) == 15
    first = data[0]
    assert {"id", "agents", "oracle"} <= set(first)
    assert {"V1", "V2", "M", "ratio", "joint_optima"} <= set(first["oracle"])


def test_scenario_generate_is_deterministic() -> None:
    args = ["scenario", "negotiation", "--generate", "--ratio", "0.8", "--seed", "7", "--json"]
    a = runner.invoke(app, args)
    b = runner.invoke(app, args)
    assert a.exit_code == 0, a.output
    assert a.output == b.output
    data = json.loads(a.output)
    assert abs(data["oracle"]["ratio"] - 0.8) <= 0.05


def test_play_seats_a_person(tmp_path: Path) -> None:
    lines = "\n".join(["hello", "buy stone 9 project_a 3 | that is my pick", "thanks"]) + "\n"
    result = runner.invoke(
        app,
        [
            "play",
            "negotiation",
            "--against",
            "greedy",
            "-o",
            "rounds=1",
            "-o",
            "scenario=0.5/gen_012",
            "-o",
            "theme=medieval",
            "--out",
            str(tmp_path),
        ],
        input=lines,
    )
    assert result.exit_code == 0, result.output
    (trace_path,) = (tmp_path / "traces").glob("*.json")
    trace = json.loads(trace_path.read_text())
    assert trace["seats"][0]["agent"] == "human"
    assert trace["final_state"]["rounds"][0]["purchases"][0] == {"r2": 9}


def test_calendar_scenario_flags_follow_table3() -> None:
    args = [
        "scenario",
        "calendar",
        "--seed",
        "3",
        "--agents",
        "4",
        "--slots",
        "12",
        "--meetings",
        "3",
        "--participants",
        "2",
        "--costs",
        "varied",
        "--json",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["num_agents"] == 4 and data["num_slots"] == 12
    assert len(data["meetings"]) == 3 and all(len(m["participants"]) == 2 for m in data["meetings"])
    assert data["cost_setting"] == "varied"
    oracle = data["oracle"]
    assert {
        "optimal_cost",
        "optimal_assignment",
        "per_agent_optimal_cost",
        "worst_cost",
        "greedy_cost",
        "feasible_count",
        "feasible_fraction",
        "difficulty",
    } <= set(oracle)
    assert oracle["optimal_cost"] <= oracle["worst_cost"]
    assert sum(oracle["per_agent_optimal_cost"]) == oracle["optimal_cost"]


def test_calendar_flags_rejected_for_other_games() -> None:
    result = runner.invoke(app, ["scenario", "negotiation", "--agents", "3"])
    assert result.exit_code == 2 and "calendar scenarios" in result.output


def test_task_flag_selects_the_sorting_task(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["run", "sorting", "--agents", "share-all", "--task", "max", "--out", str(tmp_path)],
    )
    assert result.exit_code == 0, result.output
    (path,) = (tmp_path / "traces").glob("*.json")
    assert json.loads(path.read_text())["config"]["task"] == "max"
