"""`accord blame`: the table of a lost game, the cost cap refused before any fork, bad
input as one line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

import accord
from accord.cli.main import app

runner = CliRunner(env={"COLUMNS": "200"})


def test_blame_prints_the_blame_step_and_refuses_over_the_cap(tmp_path: Path) -> None:
    run = tmp_path / "run"
    accord.run(
        game="negotiation", agents="cooperative,greedy", games=1, seed=1,
        options={"rounds": 2}, out=run,
    )  # fmt: skip
    ok = runner.invoke(app, ["blame", str(run)])
    assert ok.exit_code == 0, ok.output
    assert "blame step" in ok.output and "across games" in ok.output
    saved = json.loads((run / "blame" / "blame.json").read_text())
    assert saved["games"][0]["blame_step"] is not None
    # A named counterfactual seat that never plays well saves nothing.
    named = runner.invoke(app, ["blame", str(run), "--agent", "greedy"])
    assert named.exit_code == 0, named.output
    again = json.loads((run / "blame" / "blame.json").read_text())
    assert again["counterfactual"] == "greedy" and again["games"][0]["blame_step"] is None
    # A priced trace: the estimate is over a cap of 0, so nothing is played.
    (trace,) = sorted((run / "traces").glob("*.json"))
    data = json.loads(trace.read_text())
    data["usage"]["total"].update(calls=4, cost_usd=2.0)
    trace.write_text(json.dumps(data))
    capped = runner.invoke(app, ["blame", str(run), "--max-cost", "0"])
    assert capped.exit_code == 2, capped.output
    assert "over --max-cost" in capped.output and "Traceback" not in capped.output


def test_an_unknown_game_is_one_line(tmp_path: Path) -> None:
    run = tmp_path / "run"
    accord.run(game="sorting", agents="share-all", games=1, out=run)
    result = runner.invoke(app, ["blame", str(run), "--games", "nope"])
    assert result.exit_code == 2 and "has no game 'nope'" in result.output
