"""`accord export`: the query views as Parquet files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from accord.cli.main import _fail, app, console, print_skipped
from accord.core.errors import AccordError


@app.command("export")
def export(
    directory: Annotated[Path, typer.Argument(help="Run directory (with traces/).")],
    parquet: Annotated[
        bool,
        typer.Option(
            "--parquet",
            help="Write games, seats, events and messages as Parquet (the default and, for "
            "now, the only format).",
        ),
    ] = True,
    out: Annotated[Path | None, typer.Option(help="Output folder (default: <DIR>/export).")] = None,
) -> None:
    """Export the query views (games, seats, events, messages) of a run directory.

    Example: accord export runs/demo --out runs/demo-parquet
    """
    from accord.analysis.query import export_parquet
    from accord.core.outdir import check_output_dir, write_error

    skipped: list[str] = []
    target = out or directory / "export"
    try:
        del parquet  # Parquet is the one format; the flag is kept for scripts that pass it
        check_output_dir(target, "--out")
        try:
            written = export_parquet([directory], target, skipped=skipped)
        except OSError as exc:
            raise write_error(target, "--out", exc) from exc
    except AccordError as exc:
        raise _fail(exc) from exc
    print_skipped(skipped)
    for path in written:
        console.print(f"wrote {path}")
