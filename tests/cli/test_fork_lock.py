"""`accord fork --out RUN/traces` holds the run's lock, as `accord run` and `replay` do."""

from __future__ import annotations

import os
from pathlib import Path

from typer.testing import CliRunner

from accord.cli.main import app
from accord.runner.lock import LOCK_NAME, RunLock

runner = CliRunner(env={"COLUMNS": "200"})


def _played(tmp_path: Path) -> Path:
    out = tmp_path / "run"
    result = runner.invoke(
        app,
        [
            "run",
            "negotiation",
            "--agents",
            "cooperative,greedy",
            "--games",
            "1",
            "-o",
            "rounds=2",
            "-o",
            "talk_turns=1",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    return out


def _fork_into(run: Path) -> list[str]:
    (trace,) = sorted((run / "traces").glob("*.json"))
    return [
        "fork",
        str(trace),
        "--at",
        "2",
        "--seat",
        "A",
        "--agent",
        "greedy",
        "--out",
        str(run / "traces"),
    ]


def test_a_fork_into_a_locked_run_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    run = _played(tmp_path)
    before = sorted(p.name for p in (run / "traces").iterdir())
    with RunLock.acquire(run):
        result = runner.invoke(app, _fork_into(run))
    assert result.exit_code == 2, result.output
    (line,) = [ln for ln in result.output.splitlines() if ln.startswith("error:")]
    assert "in use by another Accord run" in line and f"pid {os.getpid()}" in line
    assert sorted(p.name for p in (run / "traces").iterdir()) == before


def test_a_fork_into_a_run_takes_and_releases_its_lock(tmp_path: Path) -> None:
    run = _played(tmp_path)
    result = runner.invoke(app, _fork_into(run))
    assert result.exit_code == 0, result.output
    assert len(list((run / "traces").glob("*greedy.json"))) == 1
    assert '"released": true' in (run / LOCK_NAME).read_text()
    RunLock.acquire(run).release()  # free again once the fork is done
