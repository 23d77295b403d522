"""What the web view computes beyond listing traces: a comparison of two runs (or batches),
a run's leaderboard, and the figures of its report.

The comparison is `accord compare`'s (`accord.analysis.paired`): games matched by scenario,
per metric a paired difference (B minus A) when scenarios match, else unpaired, with both CIs
and Holm-adjusted permutation p-values.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

RESAMPLES = 2000
MAX_LEADERBOARD_GAMES = 20_000
"""Above this a run's leaderboard is left to ``accord leaderboard`` (it reads every trace)."""


def side_rows(rows: Sequence[dict[str, Any]], batch: str | None) -> list[dict[str, Any]]:
    """The complete games of one side (a whole run, or one batch of it)."""
    return [
        r
        for r in rows
        if r.get("status") == "complete" and (batch is None or r.get("batch") == batch)
    ]


def compare(rows_a: Sequence[dict[str, Any]], rows_b: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """`accord compare` on two sides' games-table rows (`accord.analysis.paired`): the same
    matching, metrics (each game's summary metrics), CIs and p-values as the command."""
    from accord.analysis.paired import check_sides, headline_metrics, record_from_row
    from accord.analysis.paired import compare as paired_compare

    a = [record_from_row(r) for r in rows_a]
    b = [record_from_row(r) for r in rows_b]
    check_sides(a, b)
    games = {r.game_id for r in a} & {r.game_id for r in b}
    result: dict[str, Any] = paired_compare(a, b, metrics=headline_metrics(games)).as_dict()
    return result


def report_figures(run_path: Path) -> list[str]:
    """The figures (PNG) of ``RUN/report``, as paths relative to it; links are not followed
    and nothing outside the folder is listed."""
    root = run_path / "report"
    if not root.is_dir() or root.is_symlink():
        return []
    base = root.resolve()
    found: list[str] = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not (Path(folder) / d).is_symlink())
        for name in sorted(files):
            path = Path(folder) / name
            if (
                name.endswith(".png")
                and not path.is_symlink()
                and path.resolve().is_relative_to(base)
            ):
                found.append(path.relative_to(root).as_posix())
    return found
