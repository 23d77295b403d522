"""`accord report`: per-game report builders, registered by game id.

A game package declares its builder as an entry point of the ``accord.reports`` group, named
after the game id (`accord.core.plugins`); `register_report(game_id, build)` adds one from code.
`build(traces, out_dir)` receives every trace of that game found in the run directories and
writes its tables (CSV + Markdown) and figures (PNG) into `out_dir`, returning the paths it
wrote. `build_report` groups the traces by game and calls each builder; a game without a
builder, or whose builder could not be loaded (see `accord.core.plugins.problems`), gets the
generic summary table. This module never imports a game.
"""

from __future__ import annotations

import csv
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from accord.analysis.paired_report import paired_tables
from accord.core import plugins
from accord.core.errors import ConfigError
from accord.traces.io import read_trace
from accord.traces.schema import Trace

ReportBuilder = Callable[[list[Trace], Path], list[Path]]

_BUILDERS: dict[str, ReportBuilder] = {}
_DISCOVERED: dict[str, ReportBuilder | None] = {}
"""Per game id asked for: its entry point's builder, or None when it has none that loads."""


def register_report(game_id: str, build: ReportBuilder) -> None:
    """Make `build` the report of `game_id`."""
    _BUILDERS[game_id] = build


_LOCK = threading.RLock()
plugins.on_refresh(_DISCOVERED.clear)


def report_builder(game_id: str) -> ReportBuilder:
    """The report of `game_id`: registered in code, else its entry point (Accord's own first,
    then the first package's that loads), else the generic summary."""
    if game_id in _BUILDERS:
        return _BUILDERS[game_id]
    with _LOCK:
        if game_id not in _DISCOVERED:
            _DISCOVERED[game_id] = _load_builder(game_id)
    return _DISCOVERED[game_id] or generic_report


def _load_builder(game_id: str) -> ReportBuilder | None:
    for ep in plugins.entry_points(plugins.REPORTS):
        plugin = plugins.load(ep) if ep.name == game_id else None
        if plugin is None:
            continue
        if callable(plugin.obj):
            build: ReportBuilder = plugin.obj
            return build
        plugins.reject(
            plugin,
            f"{plugin.obj!r} is not callable",
            "point it at a function build(traces, out_dir) -> list of written paths",
        )
    return None


def load_traces(dirs: Iterable[Path]) -> list[Trace]:
    """Every trace under the given run directories (``DIR/traces/*.json``) or trace folders."""
    traces: list[Trace] = []
    for d in dirs:
        folder = d / "traces" if (d / "traces").is_dir() else d
        if not folder.is_dir():
            raise ConfigError(f"{d} is not a run directory (no traces/ folder). Check the path.")
        traces += [read_trace(p) for p in sorted(folder.glob("*.json"))]
    return traces


def build_report(dirs: Sequence[Path], out: Path) -> list[Path]:
    """Write every game's report for the traces in `dirs` into `out`; return the files."""
    by_game: dict[str, list[Trace]] = defaultdict(list)
    for t in load_traces(dirs):
        by_game[t.game_id].append(t)
    if not by_game:
        raise ConfigError(f"No traces found in {', '.join(map(str, dirs))}.")
    written: list[Path] = []
    for game_id, traces in sorted(by_game.items()):
        target = out / game_id
        target.mkdir(parents=True, exist_ok=True)
        written += report_builder(game_id)(traces, target)
        for stem, title, rows in paired_tables(traces):
            written += write_table(rows, target / stem, title=title)
    return written


def write_table(rows: Sequence[dict[str, Any]], path_stem: Path, *, title: str = "") -> list[Path]:
    """Write rows as ``<stem>.csv`` and ``<stem>.md`` (a Markdown table); return both paths."""
    path_stem.parent.mkdir(parents=True, exist_ok=True)
    cols: list[str] = []
    for r in rows:
        cols += [c for c in r if c not in cols]
    csv_path = path_stem.with_suffix(".csv")
    with csv_path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    md_path = path_stem.with_suffix(".md")
    lines = [f"# {title}", ""] if title else []
    lines.append("| " + " | ".join(cols) + " |")
    lines.append("|" + "---|" * len(cols))
    for r in rows:
        lines.append("| " + " | ".join(_cell(r.get(c)) for c in cols) + " |")
    md_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [csv_path, md_path]


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v).replace("|", "\\|")


def generic_report(traces: list[Trace], out: Path) -> list[Path]:
    """The run summary (per batch and pairing, with CIs) as a table."""
    from accord.runner.results import summarize

    rows = []
    for g in summarize(traces)["groups"]:
        row: dict[str, Any] = {"batch": g["batch"], "pairing": g["pairing"], "games": g["games"]}
        for key, m in g["metrics"].items():
            row[key] = m["mean"]
            row[f"{key}_ci_low"] = m["ci_low"]
            row[f"{key}_ci_high"] = m["ci_high"]
        rows.append(row)
    return write_table(rows, out / "summary", title="Summary")
