"""What the web view computes beyond listing traces: a comparison of two runs (or batches),
a run's leaderboard, and the figures of its report.

The comparison takes each side's complete games, and for every game id and scalar metric both
sides report gives each side's mean with a 95% percentile-bootstrap CI and the difference
(B minus A) with a CI from resampling the games of each side independently, as the summary
does (games are the unit).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from accord.analysis.stats import bootstrap_mean

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


def _values(rows: Sequence[dict[str, Any]], game_id: str, key: str) -> np.ndarray[Any, Any]:
    vals = [
        float(r["metrics"][key])
        for r in rows
        if r.get("game_id") == game_id
        and isinstance(r["metrics"].get(key), int | float)
        and not isinstance(r["metrics"].get(key), bool)
        and math.isfinite(float(r["metrics"][key]))
    ]
    return np.asarray(vals, dtype=float)


def delta_ci(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> tuple[float, float, float]:
    """Mean of `b` minus mean of `a`, with a 95% bootstrap CI (each side resampled)."""
    rng = np.random.default_rng(0)
    diff = float(b.mean() - a.mean())
    if a.size < 2 and b.size < 2:
        return diff, diff, diff
    ma = a[rng.integers(0, a.size, size=(RESAMPLES, a.size))].mean(axis=1)
    mb = b[rng.integers(0, b.size, size=(RESAMPLES, b.size))].mean(axis=1)
    lo, hi = np.quantile(mb - ma, [0.025, 0.975])
    return diff, float(lo), float(hi)


def compare(
    rows_a: Sequence[dict[str, Any]], rows_b: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """One row per game id and metric both sides report (see the module docstring)."""
    out: list[dict[str, Any]] = []
    games = sorted({r["game_id"] for r in rows_a} & {r["game_id"] for r in rows_b})
    for game_id in games:
        keys = sorted(
            {k for r in rows_a if r["game_id"] == game_id for k in r["metrics"]}
            & {k for r in rows_b if r["game_id"] == game_id for k in r["metrics"]}
        )
        for key in keys:
            a, b = _values(rows_a, game_id, key), _values(rows_b, game_id, key)
            if not a.size or not b.size:
                continue
            ea, eb = bootstrap_mean(a.tolist()), bootstrap_mean(b.tolist())
            d, lo, hi = delta_ci(a, b)
            out.append(
                {
                    "game_id": game_id,
                    "metric": key,
                    "a": ea.as_dict(),
                    "b": eb.as_dict(),
                    "delta": d,
                    "delta_ci_low": lo,
                    "delta_ci_high": hi,
                    # The CI of the difference excludes 0: a difference the data support.
                    "clear": bool(lo > 0 or hi < 0),
                }
            )
    return out


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
