"""`accord value`: the value of communication in each game, against its no-talk baseline."""

from __future__ import annotations

import csv
import enum
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from accord.cli.main import _fail, app, console, print_skipped
from accord.cli.options import run_location
from accord.core.errors import AccordError, ConfigError


def _how(game: str) -> str:
    """How to play `game`'s no-talk baseline, as its `GameInfo.value` says."""
    from accord.core.gameinfo import info_for_trace

    info = info_for_trace("", game)
    return info.value.how if info is not None and info.value is not None else "a no-talk run"


class Format(enum.StrEnum):
    """Output formats of `accord value`."""

    table = "table"
    csv = "csv"
    json = "json"


@app.command("value")
def value_cmd(
    dirs: Annotated[
        list[Path], typer.Argument(help="Run directories (each with traces/).", parser=run_location)
    ],
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.table,
    by_players: Annotated[
        bool, typer.Option("--by-players", help="One row per team as well as per channel.")
    ] = False,
    out: Annotated[
        Path | None, typer.Option(help="Also write value_of_communication.csv/.md here.")
    ] = None,
) -> None:
    """Value of communication: (achieved - no-talk) / (oracle - no-talk), with 95% CIs.

    Example: accord value runs/talk runs/notalk --by-players
    """
    from accord.analysis.report import load_traces, write_table
    from accord.analysis.value import value_of_communication

    try:
        traces = load_traces(dirs)
        print_skipped(traces.skipped)
        rows = value_of_communication(traces, by_players=by_players)
        if not rows:
            raise ConfigError(
                "No games with talk found of a game that declares a value of communication; "
                "give run directories of such games (with talk)."
            )
    except AccordError as exc:
        raise _fail(exc) from exc
    if out is not None:
        for path in write_table(
            rows, out / "value_of_communication", title="Value of communication"
        ):
            console.print(f"wrote {path}")
    if fmt is Format.json:
        sys.stdout.write(json.dumps(rows, indent=1) + "\n")
    elif fmt is Format.csv:
        w = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    else:
        console.print(_table(rows, by_players))
        games = sorted({str(r["game"]) for r in rows if r.get("unmatched")})
        if games:
            console.print(
                Text(
                    "Games counted 'without a baseline' have no matching no-talk games, so they "
                    "are left out of the value. Play the same pairings and options without "
                    "communication and pass both runs: "
                    + "; ".join(f"{g}: {_how(g)}" for g in games)
                    + "."
                )
            )


def _table(rows: list[dict[str, Any]], by_players: bool) -> Table:
    table = Table(title="Value of communication (mean [95% CI]; 0 = no-talk, 1 = oracle)")
    cols = ["game", "channel", *(["players"] if by_players else []), "outcome", "games"]
    for c in (*cols, "no-talk", "achieved", "oracle", "value"):
        table.add_column(c, justify="left" if c in cols[:-1] else "right")
    for r in rows:
        cells = [str(r[c]) for c in cols]
        if r["unmatched"]:
            cells[-1] += f" (+{r['unmatched']} without a baseline)"
        cells += [_ci(r, "baseline"), _ci(r, "achieved"), f"{r['oracle']:g}", _ci(r, "value")]
        table.add_row(*(Text(c) for c in cells))
    return table


def _ci(r: dict[str, Any], key: str) -> str:
    v, lo, hi = r.get(key), r.get(f"{key}_ci_low"), r.get(f"{key}_ci_high")
    if v is None:
        return "–"
    if lo is None or hi is None or lo == hi:
        return f"{v:.3f}"
    return f"{v:.3f} [{lo:.3f}, {hi:.3f}]"
