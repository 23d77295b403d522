"""`accord suite`: write a game's task suite to a file, and an experiment that plays it once."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
import yaml

from accord.cli.main import _fail, app, console
from accord.cli.options import parse_options
from accord.core.errors import AccordError, ConfigError
from accord.core.registry import resolve

if TYPE_CHECKING:
    from accord.games.calendar.scenario import Scenario


@app.command("suite")
def suite(
    game: Annotated[str, typer.Argument(help="Game name; suites exist for calendar.")],
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
        if resolve(game) != "calendar-v2":
            raise ConfigError(
                f"{game!r} has no task suites; suites exist for calendar "
                "(canonical, calbench-uniform, calbench-varied or a suite file)"
            )
        tasks = _calendar_tasks(name, seed)
        _summary(name, tasks)
        if out is not None:
            from accord.games.calendar.suite import write_suite

            console.print(f"wrote {write_suite(out, tasks)}")
        if experiment is not None:
            where = str(out) if out is not None else name
            if out is None and name == "canonical" and seed != 0:
                raise ConfigError(
                    "the name 'canonical' means the seed-0 suite; with --seed also give --out "
                    "so that the experiment points at the written file"
                )
            data = _experiment(name, where, tasks, agents, model, parse_options(option))
            experiment.parent.mkdir(parents=True, exist_ok=True)
            experiment.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
            console.print(f"wrote {experiment} ({len(tasks)} games; run: accord run {experiment})")
        elif agents or model or option:
            raise ConfigError("--agents, --model and --option only apply with --experiment")
    except AccordError as exc:
        raise _fail(exc) from exc


def _calendar_tasks(name: str, seed: int) -> list[Scenario]:
    from accord.games.calendar.calbench import load_suite
    from accord.games.calendar.suite import build_canonical_suite

    if name == "canonical":
        return build_canonical_suite(seed)
    if seed != 0:
        raise ConfigError(f"--seed only applies to the canonical suite, not to {name!r}")
    return load_suite(name)


def _summary(name: str, tasks: list[Scenario]) -> None:
    """One line per (cost setting, agents) with the difficulty buckets by feasible fraction."""
    from accord.games.calendar.counting import difficulty_bucket, feasible_fraction

    groups: Counter[tuple[str, int, str]] = Counter(
        (t.cost_setting, t.num_agents, difficulty_bucket(feasible_fraction(t))) for t in tasks
    )
    console.print(f"[bold]{name}[/bold]: {len(tasks)} tasks")
    for setting, n in sorted({(s, a) for s, a, _ in groups}):
        counts = ", ".join(f"{groups[(setting, n, b)]} {b}" for b in ("easy", "medium", "hard"))
        total = sum(groups[(setting, n, b)] for b in ("easy", "medium", "hard"))
        console.print(f"  {setting:8} {n} agents: {total:3} tasks ({counts})")


def _experiment(
    name: str,
    suite_ref: str,
    tasks: list[Scenario],
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
        "name": f"calendar-{Path(name).stem}",
        "defaults": {
            "game": "calendar",
            "games": 1,
            "seed": 0,
            "agents": seats,
            "options": {"suite": suite_ref, **options},
        },
        "grid": {"options.task": [t.task_id for t in tasks]},
    }
    expand(Experiment.model_validate(data))  # fails here, naming the problem, not at run time
    return data
