"""docs/python.md, run as written: its ``python`` blocks execute in order, in one namespace
and a fresh directory, as a notebook would run them (reference agents and the mock model, so
seconds). A block that stops working, or a name the page uses that goes away, fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "python.md"


def blocks() -> list[str]:
    """The page's ``python`` blocks, in order."""
    return re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)


def test_the_python_page_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    found = blocks()
    assert len(found) >= 8, "the page lost its session"
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for i, code in enumerate(found):
        try:
            exec(compile(code, f"{PAGE.name} block {i + 1}", "exec"), namespace)
        except Exception as exc:  # name the block that broke
            pytest.fail(f"{PAGE.name} block {i + 1} raised {type(exc).__name__}: {exc}")
    out = capsys.readouterr().out
    # What the session says it made, made: two 4-game runs, a 4-game grid, a figure.
    for run, games in (("py-reference", 4), ("py-mock", 4), ("py-grid", 4), ("py-async", 2)):
        assert len(list((tmp_path / "runs" / run / "traces").glob("*.json"))) == games
    figure = tmp_path / "runs" / "efficiency.png"
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The comparison matched every seed, and each bad input was refused with its error.
    assert "4 scenarios matched on seed, scenario and setup" in out
    assert sum("Error - " in line for line in out.splitlines()) == 3
    assert not (tmp_path / "runs" / "py-bad").exists()
