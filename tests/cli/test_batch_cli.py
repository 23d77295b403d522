"""`accord run --batch`: a batch run from the command line, and bad input refused up front
(one line, exit code 2, nothing written)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.testing.batch_server import batch_server

runner = CliRunner(env={"COLUMNS": "200"})
SERVER = ["--model-base-url", "http://127.0.0.1:9/v1"]  # never called: refused before


def test_batch_run_from_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with batch_server() as server:
        result = runner.invoke(
            app,
            [
                "run",
                "negotiation",
                "--model",
                "openai-compatible/fake",
                "--model-base-url",
                server.url,
                "--batch",
                "--batch-poll",
                "0.01",
                "--games",
                "2",
                "--out",
                str(out),
            ],
        )
    assert result.exit_code == 0, result.output
    assert server.creates > 0 and server.live_calls == 0
    trace = json.loads(next((out / "traces").glob("*.json")).read_text())
    assert trace["status"] == "complete"
    assert all(a["batch"] for a in trace["agents_config"])


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--model", "mock/schema", "--batch"], "has no batch API"),
        (["--agents", "cooperative,cooperative", "--batch"], "no seat of this run is a model"),
        (
            ["--agents", "human,openai-compatible/x", *SERVER, "--batch"],
            "a person cannot sit at a batch-mode table",
        ),
        (
            ["--model", "openai-compatible/x", *SERVER, "--batch", "--executor", "ray"],
            "not on the ray executor",
        ),
    ],
)
def test_bad_batch_input_is_one_line_and_writes_nothing(
    args: list[str], words: str, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    result = runner.invoke(app, ["run", "negotiation", *args, "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert words in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not out.exists()


def test_batch_in_an_experiment_file(tmp_path: Path) -> None:
    exp = tmp_path / "exp.yaml"
    exp.write_text(
        "name: cheap\nbatch: true\ndefaults:\n  game: negotiation\n  games: 1\n"
        "  agents: [mock/schema, cooperative]\n"
    )
    result = runner.invoke(app, ["run", str(exp), "--out", str(tmp_path / "run")])
    assert result.exit_code == 2 and "mock/schema has no batch API" in result.output
    seat = tmp_path / "seat.yaml"
    seat.write_text(
        "name: cheap\ndefaults:\n  game: negotiation\n  games: 1\n"
        "  agents: [{agent: cooperative, batch: true}, cooperative]\n"
    )
    result = runner.invoke(app, ["run", str(seat), "--out", str(tmp_path / "run")])
    assert result.exit_code == 2 and "'batch' applies to model seats only" in result.output
    assert not (tmp_path / "run").exists()
