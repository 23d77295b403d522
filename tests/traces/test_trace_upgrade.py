"""Traces of every older schema version still load, upgraded to the current one.

The files in ``data/`` were written by earlier Accords (schema 1 and 2) playing small games
in which model seats fell back; they are kept as written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from accord.core.errors import ConfigError
from accord.traces.events import HeuristicFallback, ModelCall
from accord.traces.io import read_trace, write_trace
from accord.traces.schema import READABLE_VERSIONS, SCHEMA_VERSION
from accord.traces.upgrade import upgrade

DATA = Path(__file__).parent / "data"
OLD = sorted(DATA.glob("v*.json"))


def test_there_is_an_old_trace_of_every_older_version() -> None:
    versions = {json.loads(p.read_text())["schema_version"] for p in OLD}
    assert versions == set(READABLE_VERSIONS) - {SCHEMA_VERSION}


def trace_version(text: str) -> int:
    return int(json.loads(text)["schema_version"])


def _pairs(text: str) -> Any:
    """JSON with every object as its list of (key, value) pairs: key order counts."""
    return json.loads(text, object_pairs_hook=list)


def _is_object(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(p, tuple) for p in value) and bool(value)


def _within(old: Any, new: Any) -> bool:
    """`new` holds everything `old` does, in the same order, and may add object fields."""
    if _is_object(old) and _is_object(new):
        keys = [k for k, _ in old]
        shared = [(k, v) for k, v in new if k in keys]
        return [k for k, _ in shared] == keys and all(
            _within(a, b) for (_, a), (_, b) in zip(old, shared, strict=True)
        )
    if isinstance(old, list) and isinstance(new, list):
        return len(old) == len(new) and all(_within(a, b) for a, b in zip(old, new, strict=True))
    return bool(old == new)


def _expected(pairs: Any) -> Any:
    """What an upgrade may change: the version, and in-band keys dropped from actions."""
    if isinstance(pairs, list) and all(isinstance(p, tuple) for p in pairs):
        return [
            (k, SCHEMA_VERSION if k == "schema_version" else _expected(v))
            for k, v in pairs
            if k not in ("_fallback", "_warnings")
        ]
    if isinstance(pairs, list):
        return [_expected(v) for v in pairs]
    return pairs


@pytest.mark.parametrize("path", OLD, ids=[p.stem for p in OLD])
def test_an_old_trace_loads_upgraded_and_changes_nothing_else(path: Path, tmp_path: Path) -> None:
    text = path.read_text()
    trace = read_trace(path)
    assert trace.schema_version == SCHEMA_VERSION
    written = write_trace(tmp_path, trace).read_text()
    expected, got = _expected(_pairs(text)), _pairs(written)
    if trace_version(text) == SCHEMA_VERSION - 1:
        assert got == expected
    else:  # fields added since (transcripts, usage counts) come with their defaults
        assert _within(expected, got)
        assert dict(got)["events"] == dict(expected)["events"]
    assert '"_fallback"' not in written and '"_warnings"' not in written
    assert any(isinstance(e, ModelCall) for e in trace.events)


@pytest.mark.parametrize("path", [p for p in OLD if "sorting" not in p.name], ids=lambda p: p.stem)
def test_fallbacks_of_an_old_trace_keep_their_record(path: Path) -> None:
    raw = json.loads(path.read_text())
    old = [e for e in raw["events"] if e["type"] == "heuristic_fallback"]
    assert old and all(e["action"].get("_fallback") is True for e in old)
    trace = read_trace(path)
    new = [e for e in trace.events if isinstance(e, HeuristicFallback)]
    assert [(e.seat, e.round, e.kind, e.error) for e in new] == [
        (e["seat"], e["round"], e["kind"], e["error"]) for e in old
    ]
    assert [e.action for e in new] == [
        {k: v for k, v in e["action"].items() if k != "_fallback"} for e in old
    ]
    assert trace.metrics == raw["metrics"] and trace.seat_rows == raw["seat_rows"]


def test_upgrade_leaves_unknown_versions_and_non_traces_alone() -> None:
    assert upgrade([1, 2]) == [1, 2]
    future = {"schema_version": SCHEMA_VERSION + 1, "events": []}
    assert upgrade(future) is future
    assert upgrade({"schema_version": True}) == {"schema_version": True}


def test_a_trace_of_an_unknown_version_is_refused_in_one_line(tmp_path: Path) -> None:
    data = json.loads(OLD[0].read_text())
    data["schema_version"] = 99
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ConfigError, match="schema_version 99") as info:
        read_trace(path)
    assert "\n" not in str(info.value)
