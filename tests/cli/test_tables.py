"""Terminal tables fit the width: whole headers, confidence intervals on one line, columns
chosen (issue 27, "Consistency")."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from rich.console import Console
from typer.testing import CliRunner

from accord.cli.main import app
from accord.cli.tables import fit_table, summary_table

CI = re.compile(r"\d+\.\d \[\d+\.\d, \d+\.\d\]")


def metric(mean: float, low: float, high: float, label: str, percent: bool) -> dict[str, Any]:
    return {"mean": mean, "ci_low": low, "ci_high": high, "n": 4, "label": label,
            "percent": percent}  # fmt: skip


def summary(metrics: int, groups: int = 2) -> dict[str, Any]:
    """A summary with `metrics` metrics (each with a wide CI) and one metric never measured."""
    rows = []
    for g in range(groups):
        values = {
            f"m{i}": metric(0.5, 0.123, 0.987, f"calendar metric {i}", True) for i in range(metrics)
        }
        values["never"] = {**metric(0, 0, 0, "never measured", False), "n": 0}
        row = {"batch": f"calendar-batch-{g}", "pairing": "imap ×3", "games": 4, "complete": 4}
        rows.append({**row, "failed": 0, "fallback_rate": None, "metrics": values})
    return {"groups": rows}


def render(table: Any, width: int) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(table)
    return console.export_text()


def test_at_160_columns_headers_are_whole_and_cis_on_one_line() -> None:
    data = summary(metrics=12)
    squeezed = render(summary_table(data), 160)
    assert "…" in squeezed or len(CI.findall(squeezed)) < 24  # what rich alone does
    text = render(fit_table(summary_table(data), 160), 160)
    assert "…" not in text
    assert all(len(line) <= 160 for line in text.splitlines())
    table, _, caption = text.partition("Left out")
    shown = [i for i in range(12) if f"calendar metric {i} %" in table]
    assert shown == list(range(len(shown))) and 0 < len(shown) < 12
    # Each shown metric's CI is whole on one line, in each of the two rows.
    assert len(CI.findall(text)) == 2 * len(shown)
    left_out = " ".join(caption.split())
    for i in range(len(shown), 12):
        assert f"calendar metric {i} %" in left_out
    assert "never measured" not in text  # no value in any row: no column


def test_a_table_that_fits_is_kept_whole() -> None:
    text = render(fit_table(summary_table(summary(metrics=2)), 160), 160)
    assert len(CI.findall(text)) == 4 and "Left out" not in text


def test_accord_run_prints_a_fitted_table(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        ["run", "calendar", "--agents", "imap", "--games", "2", "--out", str(tmp_path / "r")],
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert all(len(line) <= 160 for line in lines)
    assert "…" not in result.output
    assert any(CI.search(line) for line in lines), result.output


def mixed_summary() -> dict[str, Any]:
    """Three games' batches, each with its own metrics (as a run of the three-game demo)."""
    groups = []
    for game, n in (("calendar", 9), ("negotiation", 6), ("sorting", 5)):
        values = {
            f"{game}.m{i}": metric(0.5, 0.123, 0.987, f"{game} metric {i}", True) for i in range(n)
        }
        row = {"batch": f"{game}-smollm2", "pairing": "local/smollm2 ×2", "games": 4}
        groups.append({**row, "complete": 4, "failed": 0, "fallback_rate": 0.25, "metrics": values})
    return {"groups": groups}


def test_a_mixed_game_table_keeps_each_games_first_metric() -> None:
    wide = render(fit_table(summary_table(mixed_summary()), 160), 160)
    for width in (160, 100):
        fitted = fit_table(summary_table(mixed_summary()), width)
        text = render(fitted, width)
        assert "…" not in text and all(len(line) <= width for line in text.splitlines())
        headers = [str(c.header) for c in fitted.columns]
        for game in ("calendar", "negotiation", "sorting"):
            assert f"{game} metric 0 %" in headers, (width, text)
        assert "games" in headers and "failed" in headers
        for line in text.splitlines():
            if "-smollm" in line:  # each batch's row shows its own metric's mean
                assert "50.0" in line, text
    assert len(CI.findall(wide)) == 3, "wide enough: the intervals are kept"
    narrow = render(fit_table(summary_table(mixed_summary()), 100), 100)
    assert not CI.findall(narrow) and "the 95% CIs" in " ".join(narrow.split())
