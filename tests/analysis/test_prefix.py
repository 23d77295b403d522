"""Repeated prefixes and cache costs of a game (`accord.analysis.prefix`, `accord cost`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.analysis.prefix import common_prefix_chars, seat_cache
from accord.cli.main import app
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.io import read_trace

runner = CliRunner(env={"COLUMNS": "200"})


def msg(role: str, content: str) -> dict[str, str]:
    return {"role": role, "content": content}


def test_common_prefix_counts_whole_messages_then_characters() -> None:
    before = [msg("system", "abc"), msg("user", "hello there")]
    assert common_prefix_chars(before, [*before, msg("assistant", "x")]) == 3 + 11
    assert common_prefix_chars(before, [msg("system", "abc"), msg("user", "help")]) == 3 + 3
    assert common_prefix_chars(before, [msg("user", "abc")]) == 0  # another role
    assert common_prefix_chars([], before) == 0


def _play(tmp_path: Path, model: str = "mock/schema", **options: object) -> Path:
    seat = AgentSpec(model=model, options=options)
    spec = GameSpec(
        trace_id="g", game="negotiation", options={"rounds": 3}, seed=1, agents=[seat, seat]
    )
    run_sync([spec], tmp_path / "run")
    return tmp_path / "run"


def test_a_growing_conversation_repeats_most_of_its_input(tmp_path: Path) -> None:
    trace = read_trace(_play(tmp_path) / "traces" / "g.json")
    rows = seat_cache(trace)
    assert [r.seat for r in rows] == ["A", "B"]
    for row in rows:
        calls = [e for e in trace.events if e.get("type") == "model_call" and e.get("seat") == 0]
        assert row.calls >= 3 and row.input_tokens > 0
        assert row.repeated_share is not None and 0.5 < row.repeated_share < 1.0
        assert 0 < row.repeated_tokens < row.input_tokens
    assert rows[0].calls == len(calls)
    assert rows[0].cost_usd == 0.0 and rows[0].uncached_usd == 0.0  # the mock is free


def test_prices_give_the_cost_with_and_without_the_cache(tmp_path: Path) -> None:
    prices = {"input_per_mtok": 2.0, "output_per_mtok": 8.0, "cached_input_per_mtok": 0.5}
    run = _play(tmp_path, prices=prices)
    (row, _) = seat_cache(read_trace(run / "traces" / "g.json"))
    # The mock reports no cache reads, so with and without caching cost the same here.
    expected = (row.input_tokens * 2.0 + row.output_tokens * 8.0) / 1e6
    assert row.cost_usd == pytest.approx(expected) and row.uncached_usd == pytest.approx(expected)


def test_cost_command_table_and_json(tmp_path: Path) -> None:
    run = _play(tmp_path)
    result = runner.invoke(app, ["cost", str(run)])
    assert result.exit_code == 0, result.output
    assert "repeated prefix" in result.output and "mock/schema" in result.output
    as_json = runner.invoke(app, ["cost", str(run), "--format", "json"])
    data = json.loads(as_json.stdout)
    (model,) = data["models"]
    assert model["model"] == "mock/schema" and model["calls"] == sum(
        g["calls"] for g in data["games"]
    )
    assert 0.5 < model["repeated_prefix_share"] < 1.0


def test_cost_command_says_unknown_without_a_price_and_refuses_a_non_run(tmp_path: Path) -> None:
    trace = json.loads((_play(tmp_path) / "traces" / "g.json").read_text())
    for seat in trace["seats"]:
        seat["model"] = "openai-compatible/mine"  # a self-hosted model: no known price
    other = tmp_path / "other" / "traces"
    other.mkdir(parents=True)
    (other / "g.json").write_text(json.dumps(trace))
    result = runner.invoke(app, ["cost", str(other.parent)])
    assert result.exit_code == 0, result.output
    assert "unknown" in result.output
    bad = runner.invoke(app, ["cost", str(tmp_path / "nothing")])
    assert bad.exit_code == 2 and "not a run directory" in bad.output
