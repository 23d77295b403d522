"""`accord report`: per-game report builders, registered by game id.

A game declares its builder in its `GameInfo` (``report``, and ``report_ids`` for older game ids
whose traces it also reads; `accord.core.gameinfo`). The older way still works: an entry point of
the ``accord.reports`` group named after the game id (`accord.core.plugins`).
`register_report(game_id, build)` adds one from code.
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

from accord.analysis.analysis_plan import primary_metrics
from accord.analysis.paired_report import paired_tables
from accord.analysis.sequential_run import sequence_rows
from accord.core import plugins
from accord.core.errors import AccordError, ConfigError
from accord.core.ids import check_id
from accord.traces.reader import TraceList, run_traces
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
    from accord.core.gameinfo import Lazy, info_for_trace, resolve_ref
    from accord.core.registry import source_of

    info = info_for_trace(game_id)
    if info is not None and info.report is not None and game_id in info.trace_ids:
        try:
            declared: ReportBuilder = resolve_ref(info.report)
        except AccordError as exc:
            where = info.report.target if isinstance(info.report, Lazy) else "GameInfo.report"
            plugins.report(
                source_of(info.game_id), plugins.GAMES, info.alias, where, str(exc),
                "fix GameInfo.report",
            )  # fmt: skip
        else:
            return declared
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


def load_traces(dirs: Iterable[Path]) -> TraceList:
    """Every trace under the given run directories (``DIR/traces/*.json``) or trace folders.

    A file that is not a readable trace is passed over and listed in the result's ``skipped``
    (`accord.traces.reader.run_traces`, the one reader of every command).
    """
    return run_traces(dirs)


def build_report(
    dirs: Sequence[Path],
    out: Path,
    skipped: list[str] | None = None,
    notes: list[str] | None = None,
) -> list[Path]:
    """Write every game's report for the traces in `dirs` into `out`; return the files.

    Files passed over (`load_traces`) are appended to `skipped` when it is given. What the
    providers said they served is written to ``served.md``/``.csv`` when they said anything;
    a seat model served more than one model id, fingerprint or version within the runs is
    named in `notes` (`accord.runner.served`).
    """
    by_game: dict[str, list[Trace]] = defaultdict(list)
    loaded = load_traces(dirs)
    if skipped is not None:
        skipped += loaded.skipped
    for t in loaded:
        by_game[t.game_id].append(t)
    if not by_game:
        raise ConfigError(f"No readable traces found in {', '.join(map(str, dirs))}.")
    written: list[Path] = []
    primary = next((m for m in map(primary_metrics, dirs) if m), None)  # a locked plan
    for game_id, traces in sorted(by_game.items()):
        # A trace's game id is data: checked again here, before it names a folder.
        target = out / check_id(game_id, what="game id")
        build = report_builder(game_id)
        if build is generic_report and not _installed(game_id):
            # No report of its own and no game class to summarise with: listed, not fatal.
            where = ", ".join(sorted({t.trace_id for t in traces})[:3])
            more = f" and {len(traces) - 3} more" if len(traces) > 3 else ""
            if skipped is not None:
                skipped.append(
                    f"{len(traces)} trace(s) of game {game_id!r} ({where}{more}): that game "
                    "is not installed here; install the package that provides it."
                )
            continue
        target.mkdir(parents=True, exist_ok=True)
        written += build(traces, target)
        for stem, title, rows in paired_tables(traces, primary):
            table_notes = COMPARISON_NOTES if stem == "comparisons" else ()
            written += write_table(rows, target / stem, title=title, notes=table_notes)
    written += _served_table(by_game.values(), out, notes)
    for d in dirs:  # a sequential run: its sequence and stopping point
        found = sequence_rows(d)
        if found is not None:
            stem = "sequential" if len(dirs) == 1 else f"sequential-{check_id(d.name)}"
            written += write_table(found[1], out / stem, title=found[0])
    return written


def _served_table(groups: Iterable[list[Trace]], out: Path, notes: list[str] | None) -> list[Path]:
    """``served``: per seat model, what the providers said they served, and what changed."""
    from accord.runner.served import changes, served_summary

    served = served_summary(t for traces in groups for t in traces)
    if not served:
        return []
    rows = []
    for seat, entry in served.items():
        changed = changes(entry)
        rows.append(
            {
                "seat model": seat,
                "served model ids": ", ".join(f"{k} ({n})" for k, n in entry["models"].items()),
                "fingerprints": ", ".join(f"{k} ({n})" for k, n in entry["fingerprints"].items()),
                "version headers": ", ".join(
                    f"{k} ({n})" for k, n in (entry.get("versions") or {}).items()
                ),
                "changed": ", ".join(changed) or "no",
            }
        )
        if changed and notes is not None:
            notes.append(
                f"{seat}: the provider changed what it served within these runs "
                f"({', '.join(changed)}); its games may not be comparable (report/served.md)."
            )
    return write_table(rows, out / "served", title="What the providers said they served")


def _installed(game_id: str) -> bool:
    from accord.core.registry import resolve

    try:
        resolve(game_id)
    except ConfigError:
        return False
    return True


P_COLUMNS = frozenset({"p", "p_holm"})
"""Columns printed as p-values: small ones keep their first digits."""


COMPARISON_NOTES: tuple[str, ...] = (
    "Baseline: the group the run played first (the first batch or pairing of the "
    "experiment), named in column a of every row.",
    "Holm's adjustment (p_holm) runs over the whole family: every group and metric of the "
    "game (under a locked analysis plan, the pre-registered metrics and the exploratory ones "
    "are two families, named in the registered column). A metric equal to another in every "
    "game (sorting's sr, success and global_check) is one hypothesis: it is compared and "
    "counted once, and the metrics it stands for are named in its same_as column.",
    "p-values below 0.001 keep two significant digits (the CSV has every digit).",
)
"""What ``comparisons.md`` says under its table about how it was made."""


def write_table(
    rows: Sequence[dict[str, Any]],
    path_stem: Path,
    *,
    title: str = "",
    notes: Sequence[str] = (),
) -> list[Path]:
    """Write rows as ``<stem>.csv`` and ``<stem>.md`` (a Markdown table, then `notes` as
    paragraphs under it); return both paths."""
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
        lines.append("| " + " | ".join(_cell(r.get(c), c) for c in cols) + " |")
    for note in notes:
        lines += ["", note]
    md_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [csv_path, md_path]


def _cell(v: Any, column: str = "") -> str:
    if v is None:
        return ""
    if isinstance(v, float) and column in P_COLUMNS and 0 < v < 0.001:
        return f"{v:.2g}"  # a p-value of 0.0001 is not "0.000"
    if isinstance(v, float) and column in P_COLUMNS and v == 0:
        return "< 1e-300"  # below what a float holds, never zero
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
