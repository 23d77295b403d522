"""Runs: outputs, refusal to mix runs, resume, SIGKILLs in the middle of a run, bad seats."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from accord.core.errors import ConfigError, MissingAPIKeyError
from accord.runner.config import Batch, Defaults, Experiment, expand, load_experiment
from accord.runner.play import play_game
from accord.runner.replay import comparable
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
    with pytest.raises(ConfigError, match="resume=True") as refused:
        run_sync(specs(2), tmp_path)
    assert refused.value.cli is not None and "Use --resume" in refused.value.cli
    with pytest.raises(ConfigError, match="different experiment"):
        run_sync(specs(3), tmp_path, resume=True)
    report = run_sync(specs(2), tmp_path, resume=True)
    assert report.skipped == 2 and report.played == 0


KILL_EXPERIMENT = """
name: kill
defaults:
  game: negotiation
  games: 50
  options: {rounds: 2, talk_turns: 2}
  agents:
    - {model: mock/schema, options: {latency_s: 0.01}}
    - cooperative
"""


def _count(traces: Path) -> int:
    return len(list(traces.glob("*.json"))) if traces.exists() else 0


def test_kills_at_random_moments_then_resume_give_the_uninterrupted_results(
    tmp_path: Path,
) -> None:
    exp = tmp_path / "exp.yaml"
    exp.write_text(KILL_EXPERIMENT)
    killed, clean = tmp_path / "killed", tmp_path / "clean"
    traces = killed / "traces"
    cmd = [sys.executable, "-m", "accord", "run", str(exp), "--concurrency", "4"]
    cmd += ["--out", str(killed)]
    rng = random.Random(6)  # fixed, so a failure can be reproduced
    partial: list[int] = []
    for kill, target in enumerate(sorted(rng.sample(range(2, 46), 3))):
        log = tmp_path / f"stderr{kill}.txt"
        with log.open("wb") as err:
            args = cmd + (["--resume"] if kill else [])
            proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=err)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and _count(traces) < target:
            if proc.poll() is not None:
                pytest.fail(f"run ended before the kill: {log.read_text()}")
            time.sleep(0.005)
        time.sleep(rng.uniform(0.0, 0.03))  # lands anywhere: mid-game, mid-write, mid-summary
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        partial.append(_count(traces))
    assert all(0 < n < 50 for n in partial), f"every kill lands mid-run: {partial}"
    subprocess.run([*cmd, "--resume"], check=True, capture_output=True)
    run_sync(expand(load_experiment(exp)), clean, concurrency=4)

    names = sorted(p.name for p in traces.glob("*.json"))
    assert len(names) == 50 and names == sorted(p.name for p in (clean / "traces").glob("*.json"))
    assert not list(killed.rglob(".*.tmp")), "no half-written files remain"
    rows = [json.loads(x) for x in (killed / "results.jsonl").read_text().splitlines()]
    assert Counter(r["trace_id"] for r in rows) == {n.removesuffix(".json"): 2 for n in names}
    assert (killed / "results.jsonl").read_text() == (clean / "results.jsonl").read_text()
    assert (killed / "summary.json").read_text() == (clean / "summary.json").read_text()
    ours = [comparable(t) for t in iter_traces(traces)]
    assert ours == [comparable(t) for t in iter_traces(clean / "traces")]


def test_seats_that_cannot_be_built_stop_the_run_before_it_starts(tmp_path: Path) -> None:
    keyless = {"model": "openai/gpt-4o-mini", "options": {"api_key_env": "ACCORD_TEST_NO_KEY"}}
    exp = Experiment(
        name="t",
        defaults=Defaults(game="negotiation", options={"rounds": 1}),
        batches=[
            Batch(name="ok", games=2, agents=["greedy", "greedy"]),
            Batch(name="bad", games=1, agents=[keyless, "greedy"]),
        ],
    )
    with pytest.raises(MissingAPIKeyError, match="ACCORD_TEST_NO_KEY"):
        run_sync(expand(exp), tmp_path / "run")
    assert not (tmp_path / "run").exists(), "nothing was played or written"
    # Should it happen during a game all the same (the key unset meanwhile), only that game
    # fails, with the reason.
    trace = asyncio.run(play_game(expand(exp)[-1]))
    assert trace.status == "failed" and trace.error is not None
    assert trace.error.startswith("MissingAPIKeyError") and trace.usage["total"].calls == 0
    assert trace.seats[0].model == "openai/gpt-4o-mini"
