"""`accord verify`: re-play every game of a run from its stored replies and check it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from accord.cli.main import _fail, app, console, err_console
from accord.core.errors import AccordError
from accord.core.secrets import scrub_secrets


@app.command("verify")
def verify_cmd(
    run: Annotated[
        Path, typer.Argument(help="A run directory (with traces/ and experiment.json).")
    ],
    out: Annotated[
        Path | None,
        typer.Option(help="Write the record here instead of RUN/verification.json."),
    ] = None,
    concurrency: Annotated[
        int, typer.Option(min=1, max=64, help="Games re-played at once (no model is called).")
    ] = 4,
) -> None:
    """Re-play every game of a run from the replies its traces store and check everything
    the run claims: events identical, every metric recomputed from the events, each scenario
    rebuilt from its suite or seed, prompt templates against their recorded hashes, no game
    removed or added, results.jsonl and summary.json equal to the traces. No model is called.

    Writes RUN/verification.json (per game: what was checked and what passed; a digest over
    all traces), which the leaderboard, accord serve and the static bundle show as the run's
    mark. Exits 1 on any mismatch, naming each one.

    Example: accord verify runs/demo
    """
    from accord import verify
    from accord.analysis.verify_record import GameVerification

    done = [0]

    def progress(game: GameVerification) -> None:
        done[0] += 1
        mark = "[green]ok[/green]" if game.passed else "[red]MISMATCH[/red]"
        err_console.print(f"  {done[0]:>5}  {mark}  {escape(game.trace_id)}")

    try:
        record = verify(run, out=out, concurrency=concurrency, on_game=progress)
    except AccordError as exc:
        raise _fail(exc) from exc
    where = out or run / "verification.json"
    if record.passed:
        console.print(
            f"[green]verified[/green]: {len(record.games)} games of {escape(str(run))} re-played "
            f"from their stored replies and checked; record in {escape(str(where))} "
            f"(traces digest {record.traces_digest[:16]})"
        )
        return
    found = record.mismatches()
    console.print(f"[red]not verified[/red]: {len(found)} mismatches in {escape(str(run))}:")
    for line in found:
        console.print(f"  {escape(scrub_secrets(line))}", soft_wrap=True)
    console.print(f"Record in {escape(str(where))}.")
    raise typer.Exit(1)
