"""`accord blame`: where each lost game could still have been saved, and what each message
was worth (forks of every decision point)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from accord.cli.main import _fail, app, console, err_console
from accord.core.errors import AccordError


@app.command("blame")
def blame_cmd(
    run: Annotated[Path, typer.Argument(help="A run directory (with traces/).")],
    games: Annotated[
        list[str] | None,
        typer.Option(
            "--games",
            help="Trace ids to blame (repeat the flag); default: every complete game below "
            "its game's recovered outcome.",
        ),
    ] = None,
    agent: Annotated[
        str | None,
        typer.Option(
            help="Who takes the seat at each seat fork: a reference agent or a model; "
            "default: the game's declared counterfactual seat."
        ),
    ] = None,
    max_cost: Annotated[
        float | None,
        typer.Option(min=0, help="Refuse, before any fork, when the estimate is over this (USD)."),
    ] = None,
) -> None:
    """Fork every decision point of a run's lost games and play each fork to the end: once
    with the game's counterfactual seat (its oracle-follower or best reference agent) taking
    over the seat that decided there, once with that decision's message withheld. Before a
    fork point every model answers from the trace's stored replies, so no model is paid for.

    Prints per game its blame step (the last decision from which a fork still recovers the
    game: the one that lost it) and its most valuable message (outcome with it minus without
    it), then the distribution across games with 95% CIs by players and condition. Writes
    RUN/blame/blame.json.

    Example: accord blame runs/demo --max-cost 1
    """
    from accord import blame

    def progress(trace_id: str, done: int, total: int) -> None:
        if done == total:
            err_console.print(f"  {escape(trace_id)}: {total} forks played")

    try:
        report = blame(run, games=games, agent=agent, max_cost=max_cost, on_progress=progress)
    except AccordError as exc:
        raise _fail(exc) from exc
    if not report.games:
        console.print(f"No game of {escape(str(run))} to blame: every complete game recovered.")
        return
    table = Table(title=f"blame: {report.run} (estimated cost ${report.cost_estimate:.2f})")
    for col in ("game", "players", "outcome", "decisions", "blame step", "seat", "round/turn",
                "best message (value)"):  # fmt: skip
        table.add_column(col)
    for g in report.games:
        best = max(g.messages, key=lambda m: m.value, default=None)
        if best is not None and best.value <= 0:
            best = None  # no message changed the outcome for the better
        table.add_row(
            escape(g.trace_id), escape(g.players), f"{g.outcome:.3f}", str(g.decisions),
            "unrecoverable" if g.blame_step is None else str(g.blame_step),
            "-" if g.blame_seat is None else str(g.blame_seat),
            "-" if g.blame_round is None else f"{g.blame_round}/{g.blame_turn}",
            "-" if best is None else f"#{best.decision} seat {best.seat} ({best.value:+.3f})",
        )  # fmt: skip
    console.print(table)
    summary = Table(title="across games (mean [95% CI])")
    for col in ("game", "players", "condition", "games", "unrecoverable", "frontier",
                "message value", "decisive share"):  # fmt: skip
        summary.add_column(col)
    for s in report.groups:
        summary.add_row(
            escape(s.game_id), escape(s.players), escape(s.condition), str(s.games),
            str(s.unrecoverable), _ci(s.frontier), _ci(s.message_value), _ci(s.decisive_share),
        )  # fmt: skip
    console.print(summary)
    console.print(f"Written to {escape(str(run / 'blame' / 'blame.json'))}.")


def _ci(triple: list[float | None]) -> str:
    mean, lo, hi = triple
    if mean is None or lo is None or hi is None:
        return "-"
    return f"{mean:.3f} [{lo:.3f}, {hi:.3f}]"
