"""Every refusal is one ``error:`` line with exit code 2: typer's usage errors (a value out of
range, an unknown flag) included, and however narrow the error stream is."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli.main import app

# No COLUMNS: the error console is not a terminal here, as in a pipe or a CI log.
runner = CliRunner()


def _one_error_line(args: list[str], *needles: str) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, (result.exit_code, result.output)
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert not any(ch in result.output for ch in "╭│╰"), "no boxed panel"
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def test_cpus_zero_is_one_line(tmp_path: Path) -> None:
    line = _one_error_line(
        [
            "run",
            "negotiation",
            "--agents",
            "cooperative,greedy",
            "--executor",
            "ray",
            "--cpus",
            "0",
            "--out",
            str(tmp_path / "run"),
        ],
        "--cpus",
        "run --help",
    )
    assert "1" in line
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["run", "negotiation", "--no-such-flag"], "--no-such-flag"),
        (["run"], "target"),
        (["serve", "--port", "0"], "--port"),
    ],
)
def test_other_usage_errors_are_one_line(args: list[str], needle: str) -> None:
    _one_error_line(args, needle)


def test_a_long_error_is_not_wrapped_at_80_columns(tmp_path: Path) -> None:
    missing = tmp_path / ("a-trace-with-a-long-name-" * 3 + ".json")
    line = _one_error_line(
        ["fork", str(missing), "--at", "1", "--seat", "A", "--agent", "greedy"], missing.name
    )
    assert len(line) > 120


def test_an_out_that_is_a_file_is_refused_before_any_game_is_announced(tmp_path: Path) -> None:
    out = tmp_path / "not-a-dir"
    out.write_text("kept")
    args = ["run", "negotiation", "--agents", "cooperative,greedy", "--games", "1"]
    line = _one_error_line([*args, "--out", str(out)], "--out", "is a file, not a directory")
    assert "Playing" not in line
    assert out.read_text() == "kept", "nothing already there is lost"
