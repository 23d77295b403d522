"""Shared set-up of the hostile-input suite: a small finished run to attack, and a CLI runner.

Each test here is a case a hostile or careless user tried (docs/running.md "Hardening"); the
expected outcome is always one of: a clear one-line error with exit code 2, or the input
handled, never a traceback and never a file written outside the output directory.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from accord.cli.main import app
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec

REFS = [AgentSpec(agent="cooperative"), AgentSpec(agent="greedy")]


def small_specs(n: int = 2, batch: str = "b") -> list[GameSpec]:
    """`n` quick negotiation games between two reference agents."""
    return [
        GameSpec(
            trace_id=f"{batch}-g{i:03d}",
            game="negotiation",
            options={"rounds": 2, "talk_turns": 1},
            seed=i,
            agents=REFS,
            labels={"batch": batch, "pairing": "cooperative vs greedy"},
        )
        for i in range(n)
    ]


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    """A finished two-game run directory."""
    out = tmp_path / "run"
    run_sync(small_specs(), out)
    return out


class Cli:
    """`accord` in-process, and the check every refused case must pass."""

    @staticmethod
    def invoke(*args: object) -> Result:
        """Run `accord ARGS` (wide output, so messages are not wrapped)."""
        return CliRunner(env={"COLUMNS": "300"}).invoke(app, [str(a) for a in args])

    @staticmethod
    def error(result: Result, *needles: str) -> None:
        """Exit code 2, no traceback, and the output names each of `needles`."""
        assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
        assert "Traceback" not in result.output
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            result.exception
        )
        text = " ".join(result.output.split())
        for needle in needles:
            assert needle in text, (needle, result.output)

    @staticmethod
    def skipped(result: Result, *needles: str) -> None:
        """Exit code 0, no traceback, and a `skipped:` line that names each of `needles`: the
        damaged file is listed and the rest of the run is still read (as `--resume` does)."""
        assert result.exit_code == 0, (result.exit_code, result.output, result.exception)
        assert "Traceback" not in result.output
        text = " ".join(result.output.split())
        assert "skipped:" in text, result.output
        for needle in needles:
            assert needle in text, (needle, result.output)


@pytest.fixture
def cli() -> Cli:
    """The CLI helper."""
    return Cli()


@pytest.fixture
def make_specs() -> object:
    """`small_specs` as a fixture (test modules cannot import each other)."""
    return small_specs
