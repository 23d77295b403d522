"""`accord play`: a person takes a seat."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from accord.agents.reference import default_opponent
from accord.api import RunPlan, run
from accord.cli.main import _fail, app, console
from accord.cli.options import (
    model_options,
    out_path,
    parse_options,
    with_model_options,
)
from accord.cli.progress import safe
from accord.cli.tables import fit_table, summary_table
from accord.core.errors import AccordError, ConfigError
from accord.core.registry import game_class, resolve
from accord.runner.config import Batch, Defaults, Experiment, expand
from accord.runner.specs import AgentSpec, parse_agent, with_action_mode


@app.command("play")
def play(
    game: Annotated[str, typer.Argument(help="Game name, e.g. negotiation.")],
    against: Annotated[
        str | None,
        typer.Option(
            help="Opponent: a reference agent name or a model (default: the game's declared "
            "opponent, e.g. cooperative in negotiation, imap in calendar)."
        ),
    ] = None,
    seat: Annotated[int, typer.Option(help="Your seat (0 speaks first by default).")] = 0,
    seed: Annotated[int, typer.Option(help="Game seed.")] = 0,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="Game option key=value.")
    ] = None,
    out: Annotated[
        str | None, typer.Option(help="Where to save the trace (default: runs/play/<time>).")
    ] = None,
    model_base_url: Annotated[
        str | None, typer.Option(help="Server address of the opponent model (…/v1).")
    ] = None,
    model_option: Annotated[
        list[str] | None,
        typer.Option("--model-option", "-M", help="Opponent model option key=value."),
    ] = None,
    prompts: Annotated[
        Path | None,
        typer.Option(help="Folder of prompt templates laid over the game's defaults."),
    ] = None,
    action_mode: Annotated[
        str | None,
        typer.Option(help="How an opponent model acts: json, tools or auto (see accord run)."),
    ] = None,
) -> None:
    """Play a game yourself in the terminal against a model or a reference agent.

    Example: accord play negotiation --against greedy -o rounds=2
    """
    try:
        out_dir = out_path(out)
        gid = resolve(game)
        seats = game_class(gid)(
            game_class(gid).config_model.model_validate(parse_options(option))
        ).num_seats
        if not 0 <= seat < seats:
            raise ConfigError(f"--seat must be between 0 and {seats - 1}")
        (opponent,) = with_model_options(
            [parse_agent(against or default_opponent(gid))],
            model_options(model_base_url, model_option),
        )
        if action_mode is not None:
            if opponent.model is None:
                raise ConfigError("--action-mode applies to a model opponent (--against P/M)")
            (opponent,) = with_action_mode([opponent], action_mode)
        agents: list[AgentSpec | str] = [opponent] * seats
        agents[seat] = AgentSpec(agent="human")
        exp = Experiment(
            name="play",
            defaults=Defaults(
                game=gid, games=1, seed=seed, options=parse_options(option), agents=agents
            ),
            batches=[Batch(name="play")],
            prompts=str(prompts.resolve()) if prompts is not None else None,
        )
        out_dir = out_dir or Path("runs/play") / dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        plan = RunPlan(expand(exp), out_dir)
        plan.check()  # the opponent's model, before the table is laid
        console.print(f"Type /quit to leave. Your trace will be saved in {out_dir}")
        report = run(plan, concurrency=1)
    except AccordError as exc:
        raise _fail(exc) from exc
    console.print(fit_table(summary_table(report.summary), console.width))
    if report.failed:
        # A game that ended without a result is not a finished game: say why, exit 1.
        for item in report.failures:
            console.print(f"[bold red]The game failed:[/bold red] {safe(str(item['reason']))}")
        console.print(f"Its trace says what happened: {escape(str(out_dir / 'traces'))}")
        raise typer.Exit(1)
