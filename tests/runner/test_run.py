"""Runs: outputs, refusal to mix runs, resume, and a SIGKILL in the middle of a run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from accord.core.errors import ConfigError
from accord.runner.config import Batch, Defaults, Experiment, expand
from accord.runner.run import run_sync
from accord.traces.io import iter_traces


def specs(n: int, agents: list[str] | None = None) -> list:  # type: ignore[type-arg]
    exp = Experiment(
        name="t",
        defaults=Defaults(game="negotiation", games=n, agents=agents or ["cooperative", "greedy"]),
        batches=[Batch(name="b", options={"rounds": 2})],
    )
    return expand(exp)


def test_outputs_match_traces(tmp_path: Path) -> None:
    report = run_sync(specs(4), tmp_path)
    assert report.played == 4 and not report.failed
    traces = list(iter_traces(tmp_path / "traces"))
    rows = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 2 * len(traces) == 8
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["complete"] == 4
    (group,) = summary["groups"]
    effs = [t.metrics["efficiency"] for t in traces]
    assert group["metrics"]["efficiency"]["mean"] == pytest.approx(sum(effs) / 4)
    assert group["metrics"]["efficiency"]["ci_low"] <= group["metrics"]["efficiency"]["mean"]


def test_refuses_to_mix_runs_and_resume_skips_done(tmp_path: Path) -> None:
    run_sync(specs(2), tmp_path)
    with pytest.raises(ConfigError, match="--resume"):
        run_sync(specs(2), tmp_path)
    with pytest.raises(ConfigError, match="different experiment"):
        run_sync(specs(3), tmp_path, resume=True)
    report = run_sync(specs(2), tmp_path, resume=True)
    assert report.skipped == 2 and report.played == 0


def test_kill_then_resume_gives_the_uninterrupted_results(tmp_path: Path) -> None:
    exp = tmp_path / "exp.yaml"
    exp.write_text(
        """
name: kill
defaults:
  game: negotiation
  games: 12
  options: {rounds: 2, talk_turns: 2}
  agents:
    - {model: mock/schema, options: {latency_s: 0.05}}
    - cooperative
"""
    )
    killed, clean = tmp_path / "killed", tmp_path / "clean"
    cmd = [sys.executable, "-m", "accord", "run", str(exp), "--concurrency", "2"]
    log = tmp_path / "stderr.txt"
    with log.open("wb") as err:
        proc = subprocess.Popen([*cmd, "--out", str(killed)], stdout=subprocess.DEVNULL, stderr=err)
    traces = killed / "traces"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list(traces.glob("*.json"))) < 3:
        if proc.poll() is not None:
            pytest.fail(f"run ended early: {log.read_text()}")
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = len(list(traces.glob("*.json")))
    assert 3 <= partial < 12, "the kill should land in the middle of the run"
    subprocess.run([*cmd, "--out", str(killed), "--resume"], check=True, capture_output=True)
    subprocess.run([*cmd, "--out", str(clean)], check=True, capture_output=True)
    assert sorted(p.name for p in traces.glob("*.json")) == sorted(
        p.name for p in (clean / "traces").glob("*.json")
    )
    assert not list(traces.glob(".*.tmp")), "no half-written files remain"
    assert (killed / "results.jsonl").read_text() == (clean / "results.jsonl").read_text()
