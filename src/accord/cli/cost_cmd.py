"""`accord cost`: what a run's model calls cost, and what prompt caching saved or could save."""

from __future__ import annotations

import enum
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from accord.cli.main import _fail, app, console
from accord.cli.options import run_location
from accord.core.errors import AccordError, ConfigError


class Format(enum.StrEnum):
    """Output formats of `accord cost`."""

    table = "table"
    json = "json"


@app.command("cost")
def cost_cmd(
    dirs: Annotated[
        list[Path], typer.Argument(help="Run directories (each with traces/).", parser=run_location)
    ],
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.table,
    games: Annotated[
        int,
        typer.Option(
            min=0, help="Games listed one by one in the table, 0 or more (the totals count all)."
        ),
    ] = 20,
) -> None:
    """Per game and model: input tokens, the share that repeated the same seat's previous
    call (a prefix a prompt cache can serve; computed from the transcripts, so it works for
    any provider), the cached tokens the provider reported, and the cost with and without
    caching ("unknown" where the model's price is).

    Example: accord cost runs/demo
    """
    from accord.analysis.prefix import SeatCache, seat_cache
    from accord.traces.reader import readable_traces, run_traces_folder

    rows: list[SeatCache] = []
    unreadable: list[str] = []
    try:
        for d in dirs:
            if not (d / "traces").is_dir() and not (d / "traces").is_symlink():
                raise ConfigError(
                    f"{d} is not a run directory (no traces/ folder). Check the path."
                )
            for trace in readable_traces(run_traces_folder(d), unreadable):
                try:
                    rows.extend(seat_cache(trace))
                except ConfigError as exc:  # a seat whose model names no provider
                    unreadable.append(str(exc))
        if not rows:
            raise ConfigError(
                "No model calls in these runs (reference agents and people cost nothing)."
            )
    except AccordError as exc:
        raise _fail(exc) from exc
    totals: dict[str, SeatCache] = {}
    for row in rows:
        total = totals.setdefault(row.model, SeatCache(trace_id="all", seat="", model=row.model))
        total.add(row)
    if fmt is Format.json:
        data = {
            "games": [_as_dict(r) for r in rows],
            "models": [_as_dict(t) for t in totals.values()],
            "unreadable": unreadable,
        }
        sys.stdout.write(json.dumps(data, indent=1) + "\n")
        return
    console.print(_table("Per game", rows[:games], per_game=True))
    if len(rows) > games:
        console.print(f"... and {len(rows) - games} more seat-games (--games N lists more)")
    console.print(_table("Per model, all games", list(totals.values()), per_game=False))
    for line in unreadable:
        console.print(f"[yellow]skipped: {escape(line)}[/yellow]")
    console.print(
        "repeated prefix: input that repeated the same seat's previous call (what a prompt "
        "cache can serve); cached: what the provider reported reading from its cache."
    )


def _as_dict(row: Any) -> dict[str, Any]:
    return {
        "trace_id": row.trace_id,
        "seat": row.seat,
        "model": row.model,
        "calls": row.calls,
        "input_tokens": row.input_tokens,
        "output_tokens": row.output_tokens,
        "repeated_prefix_share": row.repeated_share,
        "repeated_prefix_tokens": row.repeated_tokens,
        "cached_tokens": row.cached_tokens,
        "cache_write_tokens": row.cache_write_tokens,
        "cost_usd": row.cost_usd,
        "cost_without_cache_usd": row.uncached_usd,
    }


def _usd(value: float | None) -> str:
    return "unknown" if value is None else f"${value:.4f}"


def _table(title: str, rows: list[Any], *, per_game: bool) -> Table:
    table = Table(title=title)
    if per_game:
        table.add_column("game")
        table.add_column("seat")
    for name in ("model", "calls", "input tokens", "repeated prefix", "cached", "cost",
                 "without cache"):  # fmt: skip
        table.add_column(name, justify="left" if name == "model" else "right")
    for r in rows:
        share = r.repeated_share
        cells = [
            escape(r.model),
            str(r.calls),
            f"{r.input_tokens:,}",
            "–" if share is None else f"{100 * share:.1f}%",
            f"{r.cached_tokens:,}",
            _usd(r.cost_usd),
            _usd(r.uncached_usd),
        ]
        table.add_row(*([escape(r.trace_id), escape(r.seat)] if per_game else []), *cells)
    return table
