"""Issue 37 case 1, the run's side: a trace that would not read back is never `complete`.

A self-reported ``inf`` once reached a trace as ``null``; Accord's own reader then refused it,
while ``accord run`` printed ``complete``, exited 0 and showed an empty results table. Every
trace is now read back by the reader every command uses before it is written: one that would
not is written as a ``failed`` game with the reason, and the run says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.runner import executors
from accord.runner.run import run_sync, write_checked_trace
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.io import read_trace
from accord.traces.schema import SeatUsage, Trace


def _spec(trace_id: str = "g-000") -> GameSpec:
    return GameSpec(
        trace_id=trace_id,
        game="negotiation",
        options={"rounds": 1, "talk_turns": 1},
        seed=0,
        agents=[AgentSpec(agent="cooperative"), AgentSpec(agent="greedy")],
    )


def _voided(trace: Trace) -> Trace:
    """`trace` with an infinite cost, as a self-reported ``inf`` once made it."""
    usage = dict(trace.usage)
    usage["total"] = SeatUsage(cost_usd=float("inf"), input_tokens=10)
    return trace.model_copy(update={"usage": usage})


def _played(tmp_path: Path) -> Trace:
    run_sync([_spec()], tmp_path / "first")
    return read_trace(tmp_path / "first" / "traces" / "g-000.json")


def test_a_trace_that_would_not_read_back_is_written_as_failed(tmp_path: Path) -> None:
    trace = _voided(_played(tmp_path))
    path, written = write_checked_trace(tmp_path / "out", trace, spec=_spec())
    assert written.status == "failed"
    assert written.error is not None and "would not read back" in written.error
    back = read_trace(path)  # what was written reads back
    assert back.status == "failed" and back.error == written.error
    assert back.events[-1]["type"] == "game_failed"
    assert not list((tmp_path / "out").glob(".*"))  # no check file left behind


def test_a_good_trace_is_written_as_it_is(tmp_path: Path) -> None:
    trace = _played(tmp_path)
    path, written = write_checked_trace(tmp_path / "out", trace)
    assert written == trace and read_trace(path) == trace
    assert path.read_bytes() == (tmp_path / "first" / "traces" / "g-000.json").read_bytes()


@pytest.fixture
def voiding_executor(monkeypatch: pytest.MonkeyPatch) -> None:
    """Games whose trace carries an infinite cost."""
    real = executors.play_game

    async def play(spec: GameSpec, **kwargs: Any) -> Trace:
        return _voided(await real(spec, **kwargs))

    monkeypatch.setattr(executors, "play_game", play)


@pytest.mark.usefixtures("voiding_executor")
def test_the_run_counts_it_failed_and_says_why(tmp_path: Path) -> None:
    report = run_sync([_spec("g-000"), _spec("g-001")], tmp_path / "run")
    assert len(report.failed) == 2 and all("would not read back" in f for f in report.failed)
    for name in ("g-000", "g-001"):
        assert read_trace(tmp_path / "run" / "traces" / f"{name}.json").status == "failed"


@pytest.mark.usefixtures("voiding_executor")
def test_accord_run_exits_1_and_prints_the_reason(tmp_path: Path) -> None:
    result = CliRunner(env={"COLUMNS": "300"}).invoke(
        app,
        ["run", "negotiation", "--agents", "cooperative,greedy", "--games", "2",
         "-o", "rounds=1", "-o", "talk_turns=1", "--out", str(tmp_path / "run")],
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    text = " ".join(result.output.split())
    assert "2 games failed" in text and "would not read back" in text
