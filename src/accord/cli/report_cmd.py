"""`accord report`: tables and figures from run directories."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from accord.cli.main import _fail, app, console, print_skipped
from accord.cli.options import run_location
from accord.core.errors import AccordError


@app.command("report")
def report(
    dirs: Annotated[
        list[Path], typer.Argument(help="Run directories (each with traces/).", parser=run_location)
    ],
    out: Annotated[
        Path | None, typer.Option(help="Output folder (default: <first DIR>/report).")
    ] = None,
) -> None:
    """Write each game's tables (CSV + Markdown) and figures (PNG) for the runs in DIR.

    Each game's folder also gets skipped.txt, listing the paper's tables and figures the
    traces cannot support and why (printed here too).

    Example: accord report runs/demo
    """
    from accord.analysis.report import build_report
    from accord.core.outdir import check_output_dir, write_error

    target = out or dirs[0] / "report"
    skipped: list[str] = []
    notes: list[str] = []
    try:
        check_output_dir(target, "--out")
        try:
            written = build_report(dirs, target, skipped, notes)
        except OSError as exc:
            raise write_error(target, "--out", exc) from exc
    except AccordError as exc:
        print_skipped(skipped)
        raise _fail(exc) from exc
    print_skipped(skipped)
    for path in written:
        console.print(f"wrote {escape(str(path))}")
    for note in notes:  # a provider that changed the model behind a name
        console.print(f"[yellow]{escape(note)}[/]")
    for path in written:
        if path.name == "skipped.txt":  # a game's list of tables and figures it could not make
            for line in path.read_text(encoding="utf-8").splitlines():
                console.print(f"[yellow]skipped[/] {escape(line)}")
