"""`accord leaderboard`: OpenSkill ratings of the models in run directories."""

from __future__ import annotations

import csv
import enum
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table
from rich.text import Text

from accord.cli.main import _fail, app, console, print_skipped
from accord.cli.options import run_location
from accord.core.errors import AccordError, ConfigError

if TYPE_CHECKING:
    from accord.ratings.leaderboard import Leaderboard, Standing


class Format(enum.StrEnum):
    """Output formats of `accord leaderboard`."""

    table = "table"
    csv = "csv"
    json = "json"


@app.command("leaderboard")
def leaderboard_cmd(
    dirs: Annotated[
        list[Path], typer.Argument(help="Run directories (each with traces/).", parser=run_location)
    ],
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.table,
    sort: Annotated[
        str | None,
        typer.Option(help="Rank models by 'mmr' (the default, CalBench App. E) or a dimension."),
    ] = None,
    margin: Annotated[
        list[str] | None,
        typer.Option("--margin", help="Override a score margin, e.g. --margin cost=5."),
    ] = None,
    match_tasks: Annotated[
        bool,
        typer.Option(
            help="Also rate calendar games without a within-game comparison (same-model "
            "teams) as team games on the same task."
        ),
    ] = False,
) -> None:
    """OpenSkill leaderboard per game (CalBench App. E): MMR, mu ± sigma, raw means, games
    played; each rank with its 95% interval, tied models sharing a rank.

    Example: accord leaderboard runs/grid runs/extra --format csv
    """
    from accord.analysis.report import load_traces
    from accord.ratings import leaderboards

    try:
        margins: dict[str, float] = {}
        for item in margin or []:
            key, sep, value = item.partition("=")
            try:
                margins[key.strip()] = float(value)
            except ValueError:
                sep = ""
            if not sep:
                raise ConfigError(f"--margin expects dimension=number (e.g. cost=5), got {item!r}")
        from accord.ratings import boards as declared
        from accord.ratings.scores import SCORE_KEY

        known = {d.key for b in declared().values() for d in b.dimensions} | {SCORE_KEY, "mmr"}
        for key in ([sort] if sort else []) + list(margins):
            if key not in known - ({"mmr"} if key in margins else set()):
                raise ConfigError(
                    f"Unknown dimension {key!r}; use one of {', '.join(sorted(known))}."
                )
        traces = load_traces(dirs)
        print_skipped(traces.skipped)
        boards = leaderboards(traces, match_tasks=match_tasks, margins=margins, sort_by=sort)
        if not boards:
            raise ConfigError(f"No rated games found in {', '.join(map(str, dirs))}.")
    except AccordError as exc:
        raise _fail(exc) from exc
    rows = [r for b in boards for r in b.rows()]
    if fmt is Format.json:
        sys.stdout.write(json.dumps(rows, indent=1) + "\n")
        return
    if fmt is Format.csv:
        cols = list(dict.fromkeys(k for r in rows for k in r))
        w = csv.DictWriter(sys.stdout, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
        return
    _print_verification(dirs)
    for b in boards:
        if b.models:
            console.print(_models_table(b))
            counts = ", ".join(f"{d.label}: {b.events[d.key]}" for d in b.dimensions)
            console.print(f"rating events per dimension: {counts}")
        else:
            console.print(f"{b.game}: no model seats to rate")
        if b.references:
            console.print(_references_table(b))


def _print_verification(dirs: list[Path]) -> None:
    """One line per run: whether `accord verify` checked it and its traces are unchanged."""
    from rich.markup import escape

    from accord.analysis.verify_record import verified_mark

    for run in dirs:
        mark = verified_mark(run)
        colour = {"verified": "green", "failed": "red", "stale": "yellow"}.get(mark["state"])
        state = f"[{colour}]{mark['state']}[/{colour}]" if colour else "not verified"
        detail = "" if mark["state"] == "none" else f" ({escape(mark['detail'])})"
        console.print(f"{escape(str(run))}: {state}{detail}", soft_wrap=True)


def _table(b: Leaderboard, who: str, what: str, *, mmr: bool = False) -> Table:
    """An empty ranking table: rank, player, games (MMR), then one column per dimension."""
    table = Table(title=f"{b.game}: {what}")
    for col in ("#", who, "games", *(["MMR"] if mmr else [])):
        table.add_column(col, justify="left" if col == who else "right")
    for d in b.dimensions:
        table.add_column(d.label + (" ↑" if d.higher_is_better else " ↓"), justify="right")
    return table


def _models_table(b: Leaderboard) -> Table:
    table = _table(b, "model", "models (OpenSkill mu ± sigma; raw mean in brackets)", mmr=True)
    for s in b.models:
        cells = [_rank(s), s.player, str(s.games), _num(s.mmr)]
        for d in b.dimensions:
            rating = f"{s.mu[d.key]:.2f} ± {s.sigma[d.key]:.2f}" if d.key in s.mu else "unrated"
            cells.append(f"{rating} ({_num(s.mean(d.key))})")
        table.add_row(*(Text(c) for c in cells))
    notes = [
        "# = rank (its 95% interval from the OpenSkill posteriors in brackets; equal ranks "
        "are ties); MMR = mean of mu - 3 sigma over the dimensions"
    ]
    if any(d.key not in s.mu for s in b.models for d in b.dimensions):
        notes.append(
            "unrated: an OpenSkill rating compares models that played the same tasks; with one "
            "model (or no shared task) there is nothing to rank against, so only its raw mean "
            "(in brackets) is shown"
        )
    table.caption = "\n".join(notes)
    return table


def _rank(s: Standing) -> str:
    """``"2 (1-3)"``; a rank whose interval is the rank itself shows alone."""
    if s.rank_lo == s.rank_hi == s.rank:
        return str(s.rank)
    return f"{s.rank} ({s.rank_lo}-{s.rank_hi})"


def _references_table(b: Leaderboard) -> Table:
    table = _table(b, "protocol", "reference protocols (ranked by raw means)")
    for s in b.references:
        cells = [str(s.rank), s.player, str(s.games)]
        cells += [_num(s.mean(d.key)) for d in b.dimensions]
        table.add_row(*(Text(c) for c in cells))
    return table


def _num(v: float | None) -> str:
    return "–" if v is None else f"{v:.3g}"
