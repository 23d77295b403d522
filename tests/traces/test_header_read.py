"""`read_header`: a trace without its events and transcripts, cut out by their keys, equal
to the same fields of a full read whatever the layout (issue "fast at every size")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from accord.core.errors import ConfigError
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces import reader
from accord.traces.reader import header_bytes, read_header, read_trace


@pytest.fixture(scope="module")
def trace_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("header") / "run"
    spec = GameSpec(
        trace_id="h1",
        game="negotiation",
        seed=3,
        agents=[AgentSpec(model="mock/echo"), AgentSpec(model="mock/schema")],
    )
    run_sync([spec], out)
    return out / "traces" / "h1.json"


def _same_fields(path: Path) -> None:
    full = read_trace(path)
    header = read_header(path)
    for name in reader.TraceHeader.model_fields:
        assert getattr(header, name) == getattr(full, name), name


def _rewrite(path: Path, target: Path, data: dict[str, Any], **dump: Any) -> Path:
    target.write_text(json.dumps(data, **dump) + "\n")
    return target


def test_a_trace_as_accord_writes_it_is_cut_without_its_bulk(trace_path: Path) -> None:
    data = trace_path.read_bytes()
    cut = header_bytes(data)
    assert cut is not None and b'"events"' not in cut and b'"transcripts"' not in cut
    assert len(cut) < len(data) / 2
    assert json.loads(read_trace(trace_path).model_dump_json())["transcripts"]  # has some
    _same_fields(trace_path)


def test_a_large_trace_is_mapped_and_reads_the_same(
    trace_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reader, "_MAP_FROM", 0)
    _same_fields(trace_path)


@pytest.mark.parametrize("order", ["events-last", "no-transcripts", "empty-bulk", "compact"])
def test_other_layouts_read_the_same(trace_path: Path, tmp_path: Path, order: str) -> None:
    data = json.loads(trace_path.read_text())
    if order == "events-last":
        data = {k: v for k, v in data.items() if k != "events"} | {"events": data["events"]}
    elif order == "no-transcripts":
        del data["transcripts"]
    elif order == "empty-bulk":
        data["events"], data["transcripts"] = [], {}
    path = tmp_path / "t.json"
    _rewrite(trace_path, path, data, **({} if order == "compact" else {"indent": 1}))
    _same_fields(path)


def test_a_damaged_header_is_refused_as_a_full_read_refuses_it(
    trace_path: Path, tmp_path: Path
) -> None:
    data = json.loads(trace_path.read_text())
    data["status"] = "won"
    path = _rewrite(trace_path, tmp_path / "bad.json", data, indent=1)
    for read in (read_trace, read_header):
        with pytest.raises(ConfigError, match="status"):
            read(path)
    text = trace_path.read_text()
    cut = text[: text.index('"transcripts"')]  # a file that ends inside the transcripts
    (tmp_path / "cut.json").write_text(cut)
    for read in (read_trace, read_header):
        with pytest.raises(ConfigError):
            read(tmp_path / "cut.json")
