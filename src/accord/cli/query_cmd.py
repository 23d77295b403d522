"""`accord query`: read-only SQL over run directories."""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import enum
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from accord.cli.main import _fail, app, console, print_skipped
from accord.core.errors import AccordError, ConfigError
from accord.store import StoredTraces, is_location, open_store


class Format(enum.StrEnum):
    """Output formats of `accord query`."""

    table = "table"
    csv = "csv"
    json = "json"


@app.command("query")
def query(
    args: Annotated[
        list[str],
        typer.Argument(help="Run directories, then the SQL statement (last argument)."),
    ],
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.table,
    cache: Annotated[
        bool, typer.Option(help="Reuse the per-directory table cache (rebuilt when traces change).")
    ] = True,
) -> None:
    """Run one read-only SQL statement (DuckDB) over the views games, seats, events, messages.

    Example: accord query runs/demo "SELECT pairing, avg(efficiency) FROM games GROUP BY 1"
    """
    from accord.analysis.query import run_query

    try:
        if len(args) < 2:
            raise ConfigError('Give one or more run directories, then the SQL, e.g. '
                              'accord query runs/demo "SELECT count(*) FROM games"')  # fmt: skip
        *dirs, sql = args
        skipped: list[str] = []
        # A run in a store is read in place, one trace at a time (no copy on disk and no
        # table cache: its objects have no local name and time to key one by).
        names, types, rows = run_query(
            [_source(d) if is_location(d) else Path(d) for d in dirs],
            sql,
            cache=cache,
            skipped=skipped,
        )
    except AccordError as exc:
        raise _fail(exc) from exc
    print_skipped(skipped)
    if fmt is Format.csv:
        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(names)
        w.writerows([[_plain(v) for v in r] for r in rows])
    elif fmt is Format.json:
        records = [
            {n: _json_value(v, t) for n, t, v in zip(names, types, r, strict=True)} for r in rows
        ]
        sys.stdout.write(json.dumps(records, ensure_ascii=False, indent=1, default=str) + "\n")
    else:
        table = Table(show_lines=False)
        for n in names:
            table.add_column(n, overflow="fold")
        for r in rows:
            table.add_row(*(Text(_cell(v)) for v in r))  # Text: no markup in data
        console.print(table)
        console.print(f"{len(rows)} row{'s' if len(rows) != 1 else ''}")


def _plain(v: Any) -> Any:
    if isinstance(v, dt.datetime | dt.date):
        return v.isoformat()
    if isinstance(v, list | dict):
        return json.dumps(v, ensure_ascii=False, default=str)
    return "" if v is None else v


def _json_value(v: Any, type_name: str) -> Any:
    """JSON columns come back as text; embed them as JSON rather than as strings."""
    if type_name == "JSON" and isinstance(v, str):
        try:
            return json.loads(v)
        except ValueError:
            return v
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, dt.datetime | dt.date):
        return v.isoformat()
    return v


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(_plain(v))


def _source(location: str) -> StoredTraces:
    """The traces of the run at `location`, read in place."""
    store = open_store(location)
    if not store.list("traces") and not store.exists("experiment.json"):
        raise ConfigError(f"{store.location} holds no run (no traces/ in it); check it.")
    return StoredTraces(store)
