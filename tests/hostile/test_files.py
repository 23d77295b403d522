"""Issue 25 "Files and processes": report folders named from data, run locks every writer
honours, prompt templates that hang or balloon, symlinks that leave their folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.mark.parametrize("bad", ["../../x", "/tmp/accord-abs-x", "a/b", ".."])
def test_report_never_makes_a_folder_from_a_hostile_game_id(
    run_dir: Path, tmp_path: Path, cli, bad: str
) -> None:
    path = run_dir / "traces" / "b-g000.json"
    data = json.loads(path.read_text())
    data["game_id"] = bad
    path.write_text(json.dumps(data))
    before = {p for p in tmp_path.rglob("*") if p.is_dir()}
    result = cli.invoke("report", run_dir, "--out", tmp_path / "deep" / "er" / "report")
    assert result.exit_code == 0, result.output
    assert "skipped" in result.output and "game id" in result.output
    made = {p for p in tmp_path.rglob("*") if p.is_dir()} - before
    assert all(p.is_relative_to(tmp_path / "deep") for p in made), made
    assert not Path("/tmp/accord-abs-x").exists()
