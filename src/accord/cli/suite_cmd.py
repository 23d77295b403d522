"""`accord suite`: write a game's task suite to a file, and an experiment that plays it once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
import yaml

from accord.cli.main import _fail, app, console
from accord.cli.options import parse_options
from accord.core.errors import AccordError, ConfigError
from accord.core.gameinfo import all_infos, info_for, resolve_ref


@app.command("suite")
def suite(
    game: Annotated[str, typer.Argument(help="Game name (e.g. calendar: its CalBench suites).")],
    name: Annotated[
        str,
        typer.Argument(help="canonical, calbench-uniform, calbench-varied, or a suite file."),
    ],
    out: Annotated[Path | None, typer.Option("--out", help="Write the suite here (JSONL).")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the canonical suite (0 = the paper's).")] = 0,
    experiment: Annotated[
        Path | None,
        typer.Option(help="Also write an experiment YAML that plays every task once."),
    ] = None,
    agents: Annotated[
        str | None, typer.Option(help="For --experiment: seat specs (one spec fills every seat).")
    ] = None,
    model: Annotated[str | None, typer.Option(help="For --experiment: one model per seat.")] = None,
    option: Annotated[
        list[str] | None,
        typer.Option("--option", "-o", help="For --experiment: game option key=value."),
    ] = None,
) -> None:
    """Build or load a task suite, summarise it, and write it as JSONL.

    The canonical suite is CalBench §4.1: 45 uniform + 45 varied tasks
    (5 agents, 16 slots, 5 meetings; 15 easy, 15 medium, 15 hard each).
    With --experiment, also write an experiment with one game per task;
    play it with `accord run EXP.yaml`.

    Examples:

      accord suite calendar canonical --out canonical.jsonl

      accord suite calendar calbench-varied --out varied.jsonl

      accord suite calendar canonical --experiment c.yaml --agents oracle-follower
    """
    try:
        info = info_for(game)
        if info.suites is None:
            with_suites = [i.alias for i in all_infos() if i.suites is not None]
            raise ConfigError(
                f"{game!r} has no task suites; suites exist for: "
                f"{', '.join(with_suites) or 'no installed game'}"
            )
        tool = resolve_ref(info.suites)
        tasks = tool.tasks(name, seed)
        for line in tool.summary(name, tasks):
            console.print(line)
        if out is not None:
            console.print(f"wrote {tool.write(out, tasks)}")
        if experiment is not None:
            where = str(out) if out is not None else name
            if out is None and name in tool.seeded and seed != 0:
                raise ConfigError(
                    f"the name {name!r} means the seed-0 suite; with --seed also give --out "
                    "so that the experiment points at the written file"
                )
            data = _experiment(
                info.alias,
                name,
                where,
                [tool.task_id(t) for t in tasks],
                agents,
                model,
                parse_options(option),
            )
            experiment.parent.mkdir(parents=True, exist_ok=True)
            experiment.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
            console.print(f"wrote {experiment} ({len(tasks)} games; run: accord run {experiment})")
        elif agents or model or option:
            raise ConfigError("--agents, --model and --option only apply with --experiment")
    except AccordError as exc:
        raise _fail(exc) from exc


def _experiment(
    game: str,
    name: str,
    suite_ref: str,
    task_ids: list[Any],
    agents: str | None,
    model: str | None,
    options: dict[str, Any],
) -> dict[str, Any]:
    """An experiment playing each task once, checked by expanding it before it is written."""
    from accord.runner.config import Experiment, expand

    if agents and model:
        raise ConfigError("give either --agents or --model, not both")
    if not (agents or model):
        raise ConfigError("--experiment needs --agents or --model (who plays the seats)")
    seats = [part.strip() for part in (agents or model or "").split(",") if part.strip()]
    for key in ("suite", "task"):
        if key in options:
            raise ConfigError(f"-o {key}=... is set by the suite command itself; drop it")
    data: dict[str, Any] = {
        "version": 1,
        "name": f"{game}-{Path(name).stem}",
        "defaults": {
            "game": game,
            "games": 1,
            "seed": 0,
            "agents": seats,
            "options": {"suite": suite_ref, **options},
        },
        "grid": {"options.task": task_ids},
    }
    expand(Experiment.model_validate(data))  # fails here, naming the problem, not at run time
    return data
