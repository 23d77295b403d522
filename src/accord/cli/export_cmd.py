"""`accord export`: the query views as Parquet files, or Inspect AI logs (``--inspect``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from accord.cli.main import _fail, app, console, print_skipped
from accord.cli.options import run_location
from accord.core.errors import AccordError


@app.command("export")
def export(
    directory: Annotated[
        Path, typer.Argument(help="Run directory (with traces/).", parser=run_location)
    ],
    parquet: Annotated[
        bool,
        typer.Option(
            "--parquet",
            help="Write games, seats, events and messages as Parquet (the default).",
        ),
    ] = True,
    inspect: Annotated[
        bool,
        typer.Option(
            "--inspect",
            help="Write Inspect AI logs instead (one .eval per game id; needs the inspect "
            "extra). Open them with `inspect view --log-dir OUT`.",
        ),
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option(
            help="Output folder (default: <DIR>/export, or <DIR>/inspect with --inspect)."
        ),
    ] = None,
) -> None:
    """Export the query views (games, seats, events, messages) of a run directory, or write
    it as Inspect AI logs.

    Example: accord export runs/demo --out runs/demo-parquet

    Example: accord export --inspect runs/demo --out runs/demo-inspect
    """
    if inspect:
        _export_inspect(directory, out or directory / "inspect")
        return
    from accord.analysis.query import export_parquet
    from accord.core.outdir import check_output_dir, write_error

    skipped: list[str] = []
    target = out or directory / "export"
    try:
        del parquet  # Parquet is the default format; the flag is kept for scripts that pass it
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


def _export_inspect(directory: Path, target: Path) -> None:
    """`accord export --inspect`: one Inspect log per game id (`accord.inspectai.export`)."""
    from rich.markup import escape

    from accord.core.outdir import check_output_dir, write_error

    skipped: list[str] = []
    try:
        check_output_dir(target, "--out")
        from accord.inspectai import require_inspect

        require_inspect()
        from accord.inspectai.export import describe, export_inspect

        try:
            written = export_inspect(directory, target, skipped=skipped)
        except OSError as exc:
            raise write_error(target, "--out", exc) from exc
        shown = describe(written)
    except AccordError as exc:
        print_skipped(skipped)
        raise _fail(exc) from exc
    print_skipped(skipped)
    for row in shown:
        console.print(
            f"wrote {escape(row['path'])} ({escape(str(row['task']))}, {row['samples']} games)"
        )
