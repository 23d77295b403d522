"""`accord run`: play an experiment file or a quick set of games."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from accord.cli.main import _fail, app, console
from accord.cli.options import parse_options
from accord.core.errors import AccordError, ConfigError
from accord.runner.config import Batch, Defaults, Experiment, expand, load_experiment
from accord.runner.cost import estimate, measure, unpriced_models
from accord.runner.results import summary_table
from accord.runner.run import RunReport, finished_ids, run_sync
from accord.runner.specs import GameSpec, parse_agent_list
from accord.traces.schema import Trace


@app.command("run")
def run(
    target: Annotated[str, typer.Argument(help="An experiment YAML file, or a game name.")],
    out: Annotated[Path | None, typer.Option("--out", help="Run directory.")] = None,
    concurrency: Annotated[int, typer.Option(help="Games in flight at once.")] = 8,
    resume: Annotated[bool, typer.Option(help="Skip games already finished in --out.")] = False,
    agents: Annotated[
        str | None, typer.Option(help="Comma-separated seat specs: models (a/b) or agent names.")
    ] = None,
    model: Annotated[str | None, typer.Option(help="One model for every seat.")] = None,
    games: Annotated[
        int, typer.Option(help="Games to play (quick form); with --suite, games per task.")
    ] = 1,
    task: Annotated[
        str | None,
        typer.Option(
            help="Shortcut for -o task=...: sorting's task (sort, max, prefix_sum) or a "
            "calendar suite task."
        ),
    ] = None,
    suite: Annotated[
        str | None,
        typer.Option(help="Play every task of this suite, e.g. calendar's 'canonical'."),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Base seed (overrides the file's).")] = None,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="Game option key=value.")
    ] = None,
    swap_first_speaker: Annotated[
        bool, typer.Option(help="Play each game twice with the first speaker swapped.")
    ] = False,
    temperature: Annotated[float | None, typer.Option(help="Sampling temperature.")] = None,
    max_tokens: Annotated[int | None, typer.Option(help="Completion token cap.")] = None,
    executor: Annotated[
        str, typer.Option(help="Where games run: local (this process) or ray (Ray tasks).")
    ] = "local",
    address: Annotated[
        str | None, typer.Option(help="Ray cluster to join (default: start a local instance).")
    ] = None,
    cpus: Annotated[
        int | None, typer.Option(help="CPUs of a local Ray instance (default: all).")
    ] = None,
    cpus_per_game: Annotated[
        float, typer.Option(help="CPUs each Ray game reserves (LLM games: e.g. 0.25).")
    ] = 1.0,
    cache: Annotated[
        Path | None, typer.Option(help="Model-call cache directory to reuse and fill.")
    ] = None,
    max_cost: Annotated[
        float | None, typer.Option(help="Launch no more games once the run cost this (USD).")
    ] = None,
    estimate_from: Annotated[
        list[Path] | None,
        typer.Option(help="Earlier run directory to estimate token use from (repeatable)."),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option(help="Print the plan and cost estimate; play nothing.")
    ] = False,
) -> None:
    """Play games and write traces, results.jsonl, summary.json; print a results table.

    Examples:

      accord run negotiation --model local/smollm2 --games 3 -o ratio=0.5

      accord run negotiation --agents cooperative,greedy --games 20 --out runs/ref

      accord run calendar --agents imap --suite canonical

      accord run sorting --agents share-all --task prefix_sum -o backend=kv

      accord run experiments/demo.yaml --out runs/demo --concurrency 16 --resume

      accord run experiments/grid.yaml --executor ray --address auto --cache runs/cache

      accord run experiments/grid.yaml --estimate-from runs/pilot --max-cost 20 --dry-run
    """
    try:
        specs, out_dir = _plan(
            target,
            out,
            agents,
            model,
            games,
            seed,
            option,
            swap_first_speaker,
            temperature,
            max_tokens,
            suite,
            task,
        )
        _preflight(specs, out_dir, resume, estimate_from, max_cost, dry_run)
        if dry_run:
            return
        console.print(f"Playing {len(specs)} games -> {out_dir} ({executor} executor)")
        report = _run_with_progress(
            specs,
            out_dir,
            concurrency,
            resume,
            {
                "executor": executor,
                "address": address,
                "cache": cache,
                "max_cost": max_cost,
                "num_cpus": cpus,
                "cpus_per_game": cpus_per_game,
            },
        )
    except AccordError as exc:
        raise _fail(exc) from exc
    console.print(summary_table(report.summary))
    if report.skipped:
        console.print(f"Skipped {report.skipped} games already finished (--resume).")
    if report.cache is not None:
        console.print(f"Model cache: {report.cache.hits} hits, {report.cache.misses} misses.")
    if report.spent_usd > 0:
        console.print(f"Model cost of the games played: ${report.spent_usd:.4f}")
    if report.stopped:
        console.print(f"[yellow]{report.stopped}[/yellow]")
    if report.failed:
        console.print(f"[yellow]{len(report.failed)} games failed:[/yellow]")
        for line in report.failed[:10]:
            console.print(f"  {line}")
    console.print(
        f"Traces: {out_dir / 'traces'}\nResults: {out_dir / 'results.jsonl'}\n"
        f"Summary: {out_dir / 'summary.json'}"
    )


def _plan(
    target: str,
    out: Path | None,
    agents: str | None,
    model: str | None,
    games: int,
    seed: int | None,
    option: list[str] | None,
    swap: bool,
    temperature: float | None,
    max_tokens: int | None,
    suite: str | None = None,
    task: str | None = None,
) -> tuple[list[GameSpec], Path]:
    path = Path(target)
    if path.suffix in {".yaml", ".yml"} or path.is_file():
        if not path.is_file():
            raise ConfigError(f"No experiment file {target!r}. Check the path.")
        if agents or model or option or suite or task:
            raise ConfigError(
                "--agents, --model, --option, --suite and --task apply to the quick form only; "
                "put them in the experiment file instead"
            )
        exp = load_experiment(path)
        out_dir = out or Path("runs") / exp.name
        return expand(exp, seed_override=seed), out_dir
    if agents and model:
        raise ConfigError("give either --agents or --model, not both")
    seat_specs = parse_agent_list(agents) if agents else parse_agent_list(model or "local/smollm2")
    if temperature is not None or max_tokens is not None:
        seat_specs = [
            s.model_copy(update={"temperature": temperature, "max_tokens": max_tokens})
            if s.model
            else s
            for s in seat_specs
        ]
    exp = Experiment(
        name=f"{target}-quick",
        defaults=Defaults(
            game=target,
            games=games,
            seed=seed or 0,
            options=parse_options([*(option or []), *([f"task={task}"] if task else [])]),
            agents=list(seat_specs),
            swap_first_speaker=swap,
            suite=suite,
        ),
        batches=[Batch(name=target if suite is None else f"{target}-{Path(suite).stem}")],
    )
    return expand(exp), out or Path("runs") / f"{target}-quick"


def _preflight(
    specs: list[GameSpec],
    out: Path,
    resume: bool,
    estimate_from: list[Path] | None,
    max_cost: float | None,
    dry_run: bool,
) -> None:
    """Print what will be played and what it should cost (before any game starts)."""
    done = finished_ids(out / "traces") if resume and (out / "traces").is_dir() else set()
    todo = [s for s in specs if s.trace_id not in done]
    if dry_run:
        console.print(
            f"Would play {len(todo)} games -> {out}"
            + (f" ({len(done)} already finished)" if done else "")
        )
    sources = list(estimate_from or [])
    if done:
        sources.append(out)  # the games already played here measure the rest best
    if any(a.model for s in todo for a in s.agents) and (sources or dry_run or max_cost):
        est = estimate(todo, measure(sources))
        console.print(est.describe())
        if max_cost is not None and est.usd > max_cost:
            console.print(
                f"[yellow]The estimate exceeds --max-cost ${max_cost:g}; the run will stop "
                "launching games when it is reached.[/yellow]"
            )
    if max_cost is not None and (unpriced := unpriced_models(todo)):
        console.print(
            f"[yellow]--max-cost cannot count calls to {', '.join(unpriced)} (no known "
            "price); set options.prices for them.[/yellow]"
        )


def _run_with_progress(
    specs: list[GameSpec],
    out: Path,
    concurrency: int,
    resume: bool,
    options: dict[str, Any],
) -> RunReport:
    # On --resume the bar starts at the games already finished, so it ends at the total.
    traces = out / "traces"
    ids = {s.trace_id for s in specs}
    already = len(finished_ids(traces) & ids) if resume and traces.is_dir() else 0
    if not console.is_terminal:
        done = already

        def log(spec: GameSpec, trace: Trace) -> None:
            nonlocal done
            done += 1
            console.print(f"[{done}/{len(specs)}] {spec.trace_id}: {trace.status}")

        return run_sync(specs, out, concurrency=concurrency, resume=resume, on_done=log, **options)
    with Progress(
        TextColumn("[bold]games"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=console,
    ) as progress:
        task = progress.add_task("", total=len(specs), completed=already)

        def tick(spec: GameSpec, trace: Trace) -> None:
            progress.update(task, advance=1, description=f"{spec.trace_id} {trace.status}")

        return run_sync(specs, out, concurrency=concurrency, resume=resume, on_done=tick, **options)
