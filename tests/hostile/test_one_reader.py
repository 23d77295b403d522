"""Issue 37 "one reader for every command": every command reads a run through
`accord.traces.reader`, so each sees the same games and lists the same damaged files, each
with its reason; a ``traces/`` folder that links to another run's is refused."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.hostile.conftest import small_specs

import accord
from accord.core.errors import ConfigError
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec
from accord.traces.reader import read_header, read_trace

Damage = Callable[[dict[str, Any]], str | bytes]


def _set(**fields: Any) -> Damage:
    return lambda good: json.dumps({**good, **fields})


def _usage(good: dict[str, Any]) -> str:
    usage = {**good["usage"], "total": {**good["usage"]["total"], "input_tokens": 1e30}}
    return json.dumps({**good, "usage": usage})


def _event(event: dict[str, Any]) -> Damage:
    return lambda good: json.dumps({**good, "events": [*good["events"], event]})


def _deep(good: dict[str, Any]) -> str:
    return json.dumps({**good, "final_state": {"x": "DEEP"}}).replace(
        '"DEEP"', "[" * 500 + "]" * 500
    )


DAMAGED: dict[str, Damage] = {
    "traversal-id": _set(trace_id="../../outside"),
    "traversal-game": _set(game_id="../negotiation-v3"),
    "seed-text": _set(seed="seven"),
    "bad-status": _set(status="won"),
    "event-without-type": _event({"t": 1, "note": "no type"}),
    "event-bad-field": _event({"type": "model_call", "t": 1, "input_tokens": "many"}),
    "events-object": _set(events={"a": 1}),
    "seat-not-a-number": _set(seats=[{"seat": "zero", "name": "A", "agent": "x"}]),
    "metrics-list": _set(metrics=[1, 2]),
    "unknown-field": _set(hack=1),
    "config-text": _set(config="x"),
    "tokens-1e30": _usage,
    "not-a-number": lambda good: json.dumps(good).replace('"seed": ', '"seed": NaN, "x": ', 1),
    "nested-500": _deep,
    "cut-short": lambda good: json.dumps(good)[:200],
    "version-99": _set(schema_version=99),
}
"""Twelve kinds of damage the hostile campaign found `query` and `export` counting, and more."""


@pytest.fixture
def damaged_run(run_dir: Path) -> Path:
    """The two-game run with every damaged trace of `DAMAGED` beside its good traces."""
    good = json.loads((run_dir / "traces" / "b-g000.json").read_text())
    for name, damage in DAMAGED.items():
        content = damage(dict(good))
        path = run_dir / "traces" / f"{name}.json"
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return run_dir


def test_the_reader_refuses_every_damaged_trace(damaged_run: Path) -> None:
    for name in DAMAGED:
        path = damaged_run / "traces" / f"{name}.json"
        with pytest.raises(ConfigError, match=name):
            read_trace(path)
        if name not in ("event-without-type", "event-bad-field", "events-object"):
            with pytest.raises(ConfigError, match=name):
                read_header(str(path))  # the header read checks what it reads, as strictly


COMMANDS = {
    "report": ["report", "{run}"],
    "leaderboard": ["leaderboard", "{run}"],
    "value": ["value", "{run}"],
    "export": ["export", "{run}", "--out", "{tmp}/parquet"],
    "query": ["query", "{run}", "SELECT count(*) AS n FROM games", "--format", "csv"],
    "plan --from": ["plan", "--from", "{run}"],
    "compare": ["compare", "{run}", "{tmp}/copy"],
    "export --inspect": ["export", "--inspect", "{run}", "--out", "{tmp}/inspect"],
    "view bundle": ["view", "bundle", "{run}", "--out", "{tmp}/site"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_lists_every_damaged_trace(
    damaged_run: Path, cli, tmp_path: Path, monkeypatch, command: str
) -> None:
    monkeypatch.setenv("ACCORD_CACHE_DIR", str(tmp_path / "qcache"))
    if command == "compare":
        # Another run of the same games with one seat changed: a comparison compare accepts
        # (a copy of the run itself would be refused as the same games on both sides).
        other = [AgentSpec(agent="cooperative"), AgentSpec(agent="equal-split")]
        run_sync([s.model_copy(update={"agents": other}) for s in small_specs()], tmp_path / "copy")
    args = [a.format(run=damaged_run, tmp=tmp_path) for a in COMMANDS[command]]
    result = cli.invoke(*args)
    cli.skipped(result, *(f"{name}.json" for name in DAMAGED))
    if command == "query":
        assert result.stdout.splitlines()[-1] == "2"  # the two good games, nothing else


def test_accord_load_lists_every_damaged_trace(damaged_run: Path) -> None:
    data = accord.load(damaged_run)
    assert [g["trace_id"] for g in data.games] == ["b-g000", "b-g001"]
    text = "\n".join(data.skipped)
    for name in DAMAGED:
        assert f"{name}.json" in text


def test_the_web_view_lists_every_damaged_trace(damaged_run: Path) -> None:
    from fastapi.testclient import TestClient

    from accord.web.app import create_app

    with TestClient(create_app([damaged_run])) as client:
        rows = client.get(f"/api/runs/{damaged_run.name}/games").json()
    unreadable = {r["trace_id"] for r in rows if r["status"] == "unreadable"}
    assert unreadable == set(DAMAGED)
    assert {r["trace_id"] for r in rows if r["status"] == "complete"} == {"b-g000", "b-g001"}


@pytest.mark.parametrize("command", ["report", "query", "export", "leaderboard", "plan --from"])
def test_a_traces_folder_linking_to_another_run_is_refused(
    run_dir: Path, cli, tmp_path: Path, monkeypatch, command: str
) -> None:
    monkeypatch.setenv("ACCORD_CACHE_DIR", str(tmp_path / "qcache"))
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "traces").symlink_to(run_dir / "traces")
    args = [a.format(run=linked, tmp=tmp_path) for a in COMMANDS[command]]
    cli.error(cli.invoke(*args), "is a link")


def test_the_reader_takes_text_paths_and_a_header_without_events(run_dir: Path) -> None:
    path = run_dir / "traces" / "b-g000.json"
    trace = read_trace(str(path))
    assert trace == accord.read_trace(path)
    header = read_header(str(path))
    assert not hasattr(header, "events") and not hasattr(header, "transcripts")
    for field in ("trace_id", "game_id", "seed", "config", "seats", "metrics", "usage"):
        assert getattr(header, field) == getattr(trace, field)
