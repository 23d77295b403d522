"""Issue 25 "Files and processes": report folders named from data, run locks every writer
honours, prompt templates that hang or balloon, symlinks that leave their folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.mark.parametrize("bad", ["../../x", "/tmp/accord-abs-x", "a/b", ".."])
def test_report_never_makes_a_folder_from_a_hostile_game_id(
    run_dir: Path, tmp_path: Path, cli, bad: str
) -> None:
    path = run_dir / "traces" / "b-g000.json"
    data = json.loads(path.read_text())
    data["game_id"] = bad
    path.write_text(json.dumps(data))
    before = {p for p in tmp_path.rglob("*") if p.is_dir()}
    result = cli.invoke("report", run_dir, "--out", tmp_path / "deep" / "er" / "report")
    assert result.exit_code == 0, result.output
    assert "skipped" in result.output and "game id" in result.output
    made = {p for p in tmp_path.rglob("*") if p.is_dir()} - before
    assert all(p.is_relative_to(tmp_path / "deep") for p in made), made
    assert not Path("/tmp/accord-abs-x").exists()


# -- run locks ------------------------------------------------------------------------------


def test_a_replay_into_a_running_runs_traces_is_refused(run_dir: Path, cli) -> None:
    from accord.runner.lock import RunLock

    before = sorted(p.name for p in (run_dir / "traces").iterdir())
    trace = run_dir / "traces" / "b-g000.json"
    with RunLock.acquire(run_dir):
        result = cli.invoke("replay", trace, "--out", run_dir / "traces")
        cli.error(result, "in use by another Accord run")
    assert sorted(p.name for p in (run_dir / "traces").iterdir()) == before
    # Once the run has ended the replay may go there (the user asked for it).
    assert cli.invoke("replay", trace, "--out", run_dir / "traces").exit_code == 0


def test_taking_over_a_stale_lock_is_announced(tmp_path: Path, capsys) -> None:
    from accord.runner.lock import LOCK_NAME, RunLock

    run = tmp_path / "run"
    run.mkdir()
    stale = {"pid": 999999, "host": "gone", "started_at": "2026-01-01T00:00:00+00:00"}
    (run / LOCK_NAME).write_text(json.dumps(stale))  # left by a kill -9: never released
    with RunLock.acquire(run) as lock:
        assert lock.stale is not None
    err = capsys.readouterr().err
    assert "taking over the lock" in err and "pid 999999" in err
    with RunLock.acquire(run):  # released properly last time: nothing to say
        pass
    assert "taking over" not in capsys.readouterr().err


def test_serve_play_holds_the_run_lock_of_its_out(tmp_path: Path, cli) -> None:
    import socket
    import subprocess
    import sys

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = tmp_path / "humans"
    proc = subprocess.Popen(
        [sys.executable, "-m", "accord", "serve", "--play", "--out", str(out), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:  # waits for the server to announce itself (it has bound)
            lines.append(line)
            if "lobby" in line or len(lines) > 20:
                break
        assert any("lobby" in line for line in lines), lines
        result = cli.invoke(
            "run", "negotiation", "--agents", "cooperative,greedy", "-o", "rounds=1", "--out", out
        )
        cli.error(result, "in use by another Accord run")
        assert not (out / "traces").exists() or not any((out / "traces").glob("*.json"))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        if proc.stdout is not None:
            proc.stdout.close()
