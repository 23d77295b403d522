"""`accord index`: build or bring up to date a run's index (`accord.index`)."""

from __future__ import annotations

import time
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

from accord.cli.main import _fail, app, console, print_skipped
from accord.cli.options import run_location
from accord.core.errors import AccordError, ConfigError


@app.command("index")
def index(
    run: Annotated[str, typer.Argument(help="Run directory (or store location).")],
    rebuild: Annotated[
        bool, typer.Option(help="Build the whole index again rather than update it.")
    ] = False,
) -> None:
    """Build or update a run's index (RUN/index): its games, seats and messages as columnar
    tables that query and the other commands read instead of every trace. Only traces added
    or changed since the last update are read; the index is derived from the traces and can
    be deleted at any time.

    Example: accord index runs/demo
    """
    import duckdb

    from accord.index.run_index import sync

    start = time.perf_counter()
    try:
        path = run_location(run)
        with Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        ) as bar:
            task = bar.add_task("indexing traces", total=None)

            def progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            try:
                state = sync(path, rebuild=rebuild, progress=progress)
            except (OSError, duckdb.Error) as exc:
                raise ConfigError(
                    f"Cannot write the index of {run}: {' '.join(str(exc).split())}; check "
                    "that the run directory is writable."
                ) from exc
    except AccordError as exc:
        raise _fail(exc) from exc
    print_skipped(state.skipped)
    what = "built" if state.rebuilt else "updated" if state.indexed or state.removed else "current"
    console.print(
        f"index {what}: {state.files} trace files, {state.indexed} read, {state.removed} "
        f"removed, {len(state.skipped)} skipped ({time.perf_counter() - start:.1f} s)"
    )
