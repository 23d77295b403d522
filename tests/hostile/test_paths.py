"""Issue 12 item 1: file names derived from data stay inside the output directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accord.core.errors import ConfigError
from accord.core.ids import MAX_ID_LEN, check_id, is_safe_id, slug
from accord.runner.config import Experiment, expand
from accord.runner.run import write_run_trace
from accord.traces.io import read_trace, write_trace

HOSTILE_IDS = ["../../x", "a/b", "/etc/passwd", "..", ".hidden", "a\\b", "", "x" * 300, "a\0b"]


def _edit(path: Path, **fields: object) -> Path:
    data = json.loads(path.read_text())
    data.update(fields)
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("bad", HOSTILE_IDS)
def test_a_trace_with_a_hostile_id_is_refused_when_read(run_dir: Path, bad: str) -> None:
    path = _edit(run_dir / "traces" / "b-g000.json", trace_id=bad)
    with pytest.raises(ConfigError, match="not a safe file name"):
        read_trace(path)


@pytest.mark.parametrize("command", ["replay", "fork"])
@pytest.mark.parametrize("bad", ["../../x", "a/b"])
def test_replay_and_fork_write_nothing_outside_out(
    run_dir: Path, tmp_path: Path, cli, command: str, bad: str
) -> None:
    path = _edit(run_dir / "traces" / "b-g000.json", trace_id=bad)
    before = {p for p in tmp_path.rglob("*")}
    extra = ["--at", "1", "--seat", "0", "--agent", "greedy"] if command == "fork" else []
    result = cli.invoke(command, path, "--out", tmp_path / "out", *extra)
    cli.error(result, "not a safe file name")
    assert {p for p in tmp_path.rglob("*")} == before


@pytest.mark.parametrize("bad", HOSTILE_IDS)
def test_writers_refuse_hostile_ids(run_dir: Path, tmp_path: Path, bad: str) -> None:
    trace = read_trace(run_dir / "traces" / "b-g000.json").model_copy(update={"trace_id": bad})
    for write in (write_trace, write_run_trace):
        with pytest.raises(ConfigError, match="not a safe file name"):
            write(tmp_path / "out", trace)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


@pytest.mark.parametrize("name", ["..x", "../../up", "a/b", ".", "   ", "é/ü"])
def test_batch_names_become_safe_visible_trace_ids(name: str) -> None:
    exp = Experiment.model_validate(
        {
            "defaults": {"game": "negotiation", "agents": ["cooperative", "greedy"]},
            "batches": [{"name": name}],
        }
    )
    (spec,) = expand(exp)
    assert is_safe_id(spec.trace_id) and not spec.trace_id.startswith(".")


@given(st.text(max_size=300))
def test_safe_ids_always_name_a_visible_file_directly_inside(text: str) -> None:
    root = Path("/srv/run/traces")
    if is_safe_id(text):
        path = root / f"{text}.json"
        assert path.parent == root and not path.name.startswith(".")
        assert len(path.name) <= MAX_ID_LEN + 5 and "/" not in text and "\0" not in text
        assert check_id(text) == text
    else:
        with pytest.raises(ConfigError):
            check_id(text)
    assert is_safe_id(slug(text))
