"""`accord verify` and the leaderboard's verification line: exit 0 on an untouched run,
1 naming each mismatch, 2 with one line for a folder that is not a run."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

import accord
from accord.cli.main import app

runner = CliRunner(env={"COLUMNS": "200"})


def test_verify_exits_by_what_it_found(tmp_path: Path) -> None:
    run = tmp_path / "run"
    accord.run(game="sorting", agents="share-all", games=2, out=run)
    ok = runner.invoke(app, ["verify", str(run)])
    assert ok.exit_code == 0, ok.output
    assert "verified: 2 games" in ok.output
    board = runner.invoke(app, ["leaderboard", str(run)])
    assert f"{run}: verified" in board.output, board.output
    trace = sorted((run / "traces").glob("*.json"))[1]
    data = json.loads(trace.read_text(encoding="utf-8"))
    data["seed"] += 1
    trace.write_text(json.dumps(data), encoding="utf-8")
    bad = runner.invoke(app, ["verify", str(run), "--out", str(tmp_path / "record.json")])
    assert bad.exit_code == 1, bad.output
    assert f"{trace.stem}: plan: the seed differs from the run's plan" in bad.output
    assert json.loads((tmp_path / "record.json").read_text())["passed"] is False
    board = runner.invoke(app, ["leaderboard", str(run)])
    assert f"{run}: stale" in board.output, board.output


def test_a_folder_that_is_not_a_run_is_one_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["verify", str(tmp_path)])
    assert result.exit_code == 2
    assert "not a run directory" in result.output and "Traceback" not in result.output
