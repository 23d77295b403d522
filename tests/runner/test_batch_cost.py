"""Batch mode in money and time: calls priced at batch prices, the summary's batch block
beside the live cost, the estimate of a batch plan, --max-cost counting batch prices."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.models.base import Usage
from accord.models.batch_prices import discounted, seat_prices
from accord.models.options import Prices
from accord.models.pricing import cost_usd
from accord.runner.batch_cost import tally
from accord.runner.batch_plan import with_batch
from accord.runner.cost import estimate, measure
from accord.runner.planning import plan_run
from accord.runner.run import run_sync
from accord.runner.specs import GameSpec
from accord.testing.batch_server import batch_server
from accord.traces.io import readable_traces

PRICES = {"input_per_mtok": 2.0, "output_per_mtok": 8.0}


def specs(url: str, games: int = 2) -> list[GameSpec]:
    plan = plan_run("negotiation", model="openai-compatible/fake", games=games, seed=5)
    options = {"base_url": url, "prices": PRICES}
    return [
        s.model_copy(
            update={"agents": [a.model_copy(update={"options": options}) for a in s.agents]}
        )
        for s in plan.specs
    ]


def play(plan: list[GameSpec], out: Path, **kw: Any) -> Any:
    return run_sync(plan, out, concurrency=4, live=False, batch_poll_s=0.01, **kw)


def test_batch_prices_are_half_the_seat_prices_unless_the_map_has_batch_prices() -> None:
    live, batch = seat_prices("openai-compatible/x", {"prices": PRICES})
    assert live == Prices(**PRICES)
    assert batch == Prices(input_per_mtok=1.0, output_per_mtok=4.0)
    assert seat_prices("openai-compatible/x", {}) == (None, None)
    # LiteLLM's map has OpenAI's batch prices for gpt-4o-mini: they are the ones used.
    map_live, map_batch = seat_prices("openai/gpt-4o-mini", {})
    assert map_live is not None and map_batch is not None
    assert map_batch.input_per_mtok == pytest.approx(0.075)
    assert map_batch.output_per_mtok == pytest.approx(map_live.output_per_mtok / 2)
    cached = Prices(input_per_mtok=2, output_per_mtok=8, cached_input_per_mtok=0.5)
    assert discounted(cached).cached_input_per_mtok == 0.25
    usage = Usage(input_tokens=1000, output_tokens=100)
    assert cost_usd(usage, batch) == pytest.approx(0.0014)  # 1000 x $1/M + 100 x $4/M


def test_summary_and_estimate_show_batch_cost_beside_live_cost(tmp_path: Path) -> None:
    with batch_server() as server:
        plan = specs(server.url)
        live = play(plan, tmp_path / "live")
        batch = play(with_batch(plan), tmp_path / "batch")
    assert live.failed == [] and batch.failed == []
    block = json.loads((tmp_path / "batch" / "summary.json").read_text())["batch"]
    assert block["calls"] > 0 and block["batches"] > 0 and block["cost_known"]
    assert block["cost_usd"] == pytest.approx(block["live_cost_usd"] / 2)
    # The same calls played live cost what the batch block says they would have.
    assert block["live_cost_usd"] == pytest.approx(live.spent_usd)
    assert batch.spent_usd == pytest.approx(live.spent_usd / 2)
    assert "batch" not in json.loads((tmp_path / "live" / "summary.json").read_text())

    history = measure([tmp_path / "live"])
    est = estimate(with_batch(plan), history)
    assert est.usd == pytest.approx(est.live_usd / 2) and est.usd > 0
    text = est.describe(4)
    assert "in batch mode" in text and f"${est.live_usd:.4f} live" in text
    assert "Time estimate (batch mode): unknown" in text
    measured = tally(readable_traces(tmp_path / "batch" / "traces", []))
    timed = estimate(with_batch(plan), history, measured).describe(4)
    assert "Time estimate (batch mode): about" in timed and "steps a game" in timed


def test_dry_run_estimate_of_a_batch_plan(tmp_path: Path) -> None:
    with batch_server() as server:
        play(specs(server.url), tmp_path / "live")
        args = ["run", "negotiation", "--model", "openai-compatible/fake", "--games", "2"]
        args += ["--seed", "5", "--model-base-url", server.url, "-M", "prices.input_per_mtok=2"]
        args += ["-M", "prices.output_per_mtok=8", "--estimate-from", str(tmp_path / "live")]
        result = CliRunner(env={"COLUMNS": "200"}).invoke(app, [*args, "--batch", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "in batch mode" in result.output and " live)" in result.output


def test_max_cost_counts_batch_prices(tmp_path: Path) -> None:
    with batch_server() as server:
        plan = specs(server.url, games=3)
        report = run_sync(
            with_batch(plan),
            tmp_path / "run",
            concurrency=1,
            live=False,
            batch_poll_s=0.01,
            max_cost=1e-9,
        )
    assert len(report.not_launched) == 2  # the first game's cost reached the cap
    block = json.loads((tmp_path / "run" / "summary.json").read_text())["batch"]
    assert block["cost_usd"] > 0
    assert report.spent_usd == pytest.approx(block["cost_usd"])
    assert report.spent_usd == pytest.approx(block["live_cost_usd"] / 2)


def test_progress_line_shows_steps_batches_and_a_batch_eta(tmp_path: Path) -> None:
    from accord.runner.monitor import RunMonitor

    monitor = RunMonitor(total=3)
    lines: list[str] = []
    with batch_server() as server:
        run_sync(
            with_batch(specs(server.url, games=3)),
            tmp_path / "run",
            concurrency=1,
            live=False,
            batch_poll_s=0.01,
            monitor=monitor,
            heartbeat=(0.02, lambda: lines.append(monitor.status_line())),
        )
    batch_lines = [line for line in lines if "batches:" in line]
    assert batch_lines and all("step " in line for line in batch_lines if "in flight 1" in line)
    assert any("batch ETA unknown" in line for line in batch_lines)  # before a game finished
    assert any(
        "batch ETA" in line and "batch ETA unknown" not in line for line in batch_lines
    )  # measured from the first game's steps and the batches' turnaround
    assert any("requests" in line and "mean queue" in line for line in batch_lines)


def test_the_batch_block_survives_every_rebuild_of_the_summary(tmp_path: Path) -> None:
    from accord.runner.results import summarize, write_outputs

    out = tmp_path / "run"
    with batch_server() as server:
        plan = with_batch(specs(server.url, games=3))
        play(plan, out)
        block = json.loads((out / "summary.json").read_text())["batch"]
        assert block["calls"] > 0 and block["cost_usd"] == pytest.approx(block["live_cost_usd"] / 2)
        # A resume with nothing left to play rebuilds the summary: the block stays.
        play(plan, out, resume=True)
        assert json.loads((out / "summary.json").read_text())["batch"] == block
        # A resume that plays a lost game again: the block is the traces' again.
        lost = sorted((out / "traces").glob("*.json"))[0]
        lost.unlink()
        play(plan, out, resume=True)
    again = json.loads((out / "summary.json").read_text())["batch"]
    assert again["calls"] == block["calls"] and again["cost_usd"] == pytest.approx(
        block["cost_usd"]
    )
    # Any other rebuild (the web's play page, a stored run) and the summary verify expects.
    write_outputs(out)
    assert json.loads((out / "summary.json").read_text())["batch"] == again
    traces = readable_traces(out / "traces", [])
    assert json.loads(json.dumps(summarize(traces)))["batch"] == again
