"""`accord drift`: replay a baseline run now and say whether the models behind it changed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from accord.cli.main import _fail, app, console, err_console
from accord.core.errors import AccordError


@app.command("drift")
def drift_cmd(
    baseline: Annotated[
        Path, typer.Argument(help="The baseline run directory (with experiment.json).")
    ],
    games: Annotated[
        int | None,
        typer.Option(
            "--games", min=2, help="Replay only the first N complete games (default: all)."
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Folder for the canary run (default: BASELINE-drift-<UTC time>)."),
    ] = None,
    alpha: Annotated[
        float, typer.Option(help="False-alarm rate of the metric tests (Holm over metrics).")
    ] = 0.05,
    concurrency: Annotated[int, typer.Option(min=1, max=256, help="Games in flight.")] = 8,
    batch: Annotated[
        bool, typer.Option("--batch", help="Play the canary's model seats through batch APIs.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print drift.json instead.")] = False,
) -> None:
    """Replay a baseline run's games now (a canary: the same scenarios, seeds and seats) and
    report whether the models changed: per headline metric, the paired difference with the
    baseline, its test at --alpha and the minimum detectable difference of the baseline's
    noise floor; and any change of the model id, fingerprint or version headers the provider
    says it served. Writes the canary run and CANARY/drift.json.

    Exit code: 0 no drift, 1 drift detected, 2 bad input.

    Example: accord drift runs/demo --games 40
    """
    from accord import drift

    done = [0]

    def progress(*_: object) -> None:
        done[0] += 1
        err_console.print(f"canary: {done[0]} games played", highlight=False)

    try:
        result = drift(
            baseline,
            games=games,
            out=out,
            alpha=alpha,
            concurrency=concurrency,
            batch=batch,
            on_game=progress,
        )
    except AccordError as exc:
        raise _fail(exc) from exc
    if as_json:
        console.print_json(result.model_dump_json())
        raise typer.Exit(result.exit_code)
    table = Table(title=f"Canary {escape(result.canary)} vs baseline {escape(result.baseline)}")
    for column in ("game", "metric", "baseline", "canary", "diff", "95% CI", "p (Holm)", "MDD"):
        table.add_column(column, justify="left" if column in ("game", "metric") else "right")
    table.add_column("change")
    for m in result.metrics:
        ci = "-" if m.ci_low is None or m.ci_high is None else f"{m.ci_low:+.3f}..{m.ci_high:+.3f}"
        verdict = "[red]drift[/red]" if m.drifted else "no"
        if m.beyond_mdd:
            verdict += " (beyond MDD)"
        table.add_row(
            escape(m.game_id), escape(m.metric), f"{m.baseline_mean:.3f}",
            f"{m.canary_mean:.3f}", f"{m.diff:+.3f}", ci, f"{m.p_holm:.3f}",
            "-" if m.mdd is None else f"{m.mdd:.3f}", verdict,
        )  # fmt: skip
    console.print(table)
    console.print(
        f"{result.games_canary} canary games paired with {result.games_baseline} baseline games "
        f"on {escape(result.matched_on)}; alpha {result.alpha:g}."
    )
    if result.left_out:
        console.print(f"Unchanged constants: {escape(', '.join(result.left_out[:8]))}")
    for g in result.failed_canary[:5]:
        console.print(
            f"[yellow]canary game {escape(g['trace'])} {escape(g['status'])}: "
            f"{escape(g['reason'])}[/yellow]"
        )
    for c in result.served:
        console.print(
            f"[red]{escape(c.seat)}: the provider now serves {c.kind} "
            f"{escape(', '.join(c.canary))} (baseline: {escape(', '.join(c.baseline))})[/red]"
        )
    for seat in result.served_unknown:
        console.print(
            f"[yellow]{escape(seat)}: the baseline recorded nothing about what was served; "
            "only the metrics can tell.[/yellow]"
        )
    if result.drifted:
        what = [f"{m.game_id}:{m.metric}" for m in result.drifted_metrics()]
        what += [f"{c.seat} {c.kind}" for c in result.served]
        console.print(f"[bold red]Drift detected[/bold red]: {escape(', '.join(what))}.")
    else:
        console.print("[green]No drift detected[/green] at this number of games.")
    console.print(f"Record: {escape(str(Path(result.canary) / 'drift.json'))}")
    raise typer.Exit(result.exit_code)
