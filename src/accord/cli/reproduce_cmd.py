"""`accord reproduce`: one command per paper, our numbers beside the published ones."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from accord.api import RunPlan
from accord.cli.main import _fail, app, console
from accord.cli.options import dollars, model_options, out_path, with_model_options
from accord.core.errors import AccordError, ConfigError
from accord.reproduce.plan import Plan

if TYPE_CHECKING:
    from accord.runner.run_report import RunReport


@app.command("reproduce")
def reproduce(
    paper: Annotated[
        str,
        typer.Argument(
            help="calbench, mas-bench or grounding, or the game's name (calendar, sorting, "
            "negotiation)."
        ),
    ],
    table: Annotated[
        list[str] | None, typer.Option("--table", help="A table of the paper (repeatable).")
    ] = None,
    figure: Annotated[
        list[str] | None,
        typer.Option("--figure", help="A figure of the paper: plays the table behind it."),
    ] = None,
    everything: Annotated[
        bool, typer.Option("--all", help="Every reproducible table and figure (the default).")
    ] = False,
    model: Annotated[
        list[str] | None,
        typer.Option("--model", help="A model to reproduce with, provider/model (repeatable)."),
    ] = None,
    smoke: Annotated[
        bool, typer.Option(help="A reduced grid that checks the pipeline (not the paper).")
    ] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Play without asking.")] = False,
    max_cost: Annotated[
        float | None,
        typer.Option(callback=dollars, help="Launch no more games once the run cost this (USD)."),
    ] = None,
    out: Annotated[
        str | None, typer.Option(help="Run directory (default runs/reproduce-PAPER).")
    ] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Games in flight at once.")] = 8,
    resume: Annotated[bool, typer.Option(help="Go on with the games already in --out.")] = False,
    pilot: Annotated[
        int,
        typer.Option(min=0, help="Games per row group played first to estimate tokens and time."),
    ] = 2,
    estimate_from: Annotated[
        list[Path] | None,
        typer.Option(help="Earlier run directory to estimate from instead of a pilot."),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option(help="Print the plan (and an estimate from earlier runs); play nothing.")
    ] = False,
    model_base_url: Annotated[
        str | None,
        typer.Option(help="Server address for every model seat, e.g. http://127.0.0.1:8000/v1."),
    ] = None,
    model_option: Annotated[
        list[str] | None,
        typer.Option("--model-option", "-M", help="Model option key=value for every model seat."),
    ] = None,
) -> None:
    """Reproduce a paper's tables: plan its grid, play it, write our numbers beside the paper's.

    Reference-protocol rows (CalBench Table 2, the sorting scripted floor) need no model and
    are played by default. The run directory is a normal one (resume, replay, report, serve,
    leaderboard), plus reproduction.md, reproduction.json and reproduction/*.png (each also
    .svg and .pdf) with the published values overlaid; reproduction.md also lists every table
    and figure of the paper as reproduced, drawn by `accord report`, or not reproduced and
    why. Exit code 0 when every game completed, 1 when some failed (kept out of every value),
    2 for bad input.

    Examples:

      accord reproduce calbench --table 2

      accord reproduce calbench --table 1 --model openai/gpt-5.4-mini --max-cost 60

      accord reproduce grounding --model mock/schema --smoke --yes

      accord reproduce negotiation --model mock/schema --smoke --yes   (the same paper)

      accord reproduce mas-bench --model openrouter/deepseek/deepseek-chat-v3.1 --dry-run

      accord reproduce grounding --model openai-compatible/qwen --model-base-url
      http://127.0.0.1:8000/v1 --smoke
    """
    from accord.reproduce.plan import make_plan

    try:
        chosen = out_path(out)
        paper = paper_id(paper)
        plan = make_plan(
            paper,
            models=model or [],
            tables=table or [],
            figures=figure or [],
            everything=everything,
            smoke=smoke,
        )
        extra = model_options(model_base_url, model_option)
        plan.specs = [
            s.model_copy(update={"agents": with_model_options(s.agents, extra)}) for s in plan.specs
        ]
        out_dir = chosen or Path("runs") / (f"reproduce-{paper}" + ("-smoke" if smoke else ""))
        run_plan = RunPlan(plan.specs, out_dir)
        run_plan.check(models=not dry_run)
        traces = out_dir / "traces"
        if not (resume or dry_run) and traces.is_dir() and any(traces.glob("*.json")):
            raise ConfigError(
                f"{out_dir} already holds a run: add --resume to go on with it, or choose "
                "another --out directory"
            )
        _print_plan(plan, out_dir)
        _estimate(run_plan, pilot, estimate_from, resume, dry_run, yes, concurrency, max_cost)
        if dry_run:
            return
        _confirm(yes, f"Play {len(plan.specs)} games into {out_dir}?")
        report = _play(run_plan, concurrency, resume, max_cost)
    except AccordError as exc:
        raise _fail(exc) from exc
    _finish(plan, out_dir, report)


def paper_id(name: str) -> str:
    """The paper id for `name`: a paper id as it is, or the name of the game a paper's
    benchmark is (``negotiation`` -> ``grounding``), so either may be typed."""
    from accord.core.registry import resolve
    from accord.reproduce.plan import KITS

    if name in KITS:
        return name
    try:
        game = resolve(name)
    except AccordError:
        game = None
    for paper, kit in KITS.items():
        if game is not None and resolve(kit.game) == game:
            return paper
    games = ", ".join(sorted({kit.game for kit in KITS.values()}))
    raise ConfigError(
        f"unknown paper {name!r}; choose one of: {', '.join(KITS)} (or a game: {games})"
    )


def _print_plan(plan: Plan, out: Path) -> None:
    from accord.analysis.power import grid_detectable
    from accord.reproduce.published import load_published

    pub = load_published(plan.paper)
    console.print(f"[bold]Reproduce[/bold] {escape(pub.title)}")
    for tid in plan.tables:
        t = pub.table(tid)
        name = f"Table {tid} ({t.where})" if t.printed else t.where
        console.print(f"  {escape(name)}: {escape(t.caption)}")
    if plan.figures:
        console.print(f"  Figures: {', '.join(plan.figures)} (drawn from the tables above)")
    skipped = [t.id for t in pub.tables if t.not_reproduced]
    if skipped:
        console.print(
            f"  Not reproducible here: Table {', '.join(skipped)} "
            "(each with its reason in reproduction.md)"
        )
    for note in plan.notes:
        console.print(f"  [yellow]{escape(note)}[/yellow]")
    console.print(f"{len(plan.specs)} games -> {escape(str(out))}, by row group:")
    for group, count in plan.groups().items():
        console.print(f"  {count:6d}  {escape(group)}")
    console.print(escape(grid_detectable(plan.groups())))


def _estimate(
    plan: RunPlan,
    pilot: int,
    estimate_from: list[Path] | None,
    resume: bool,
    dry_run: bool,
    yes: bool,
    concurrency: int,
    max_cost: float | None,
) -> None:
    """Measure (earlier runs, this directory, or a pilot) and print the estimate. This
    directory's games come from the plan's scan, which the run then reuses: each is read once."""
    from accord.api import run
    from accord.reproduce.estimate import estimate, measure, needs_payment, pilot_specs

    out = plan.out
    sources = list(estimate_from or [])
    label = "earlier runs" if sources else ""
    own = resume and (out / "traces").is_dir()
    if own:
        label = "earlier runs and this directory" if label else "the games in this directory"
    if not (sources or own) and pilot and not dry_run:
        trial = pilot_specs(plan.specs, pilot)
        paid = needs_payment(trial)
        if paid:
            _confirm(
                yes,
                f"Estimate from a pilot of {len(trial)} games ({pilot} per row group; calls to "
                f"{', '.join(paid)} are billed)?",
            )
        console.print(
            f"Pilot: {len(trial)} games ({pilot} per row group) -> {escape(str(out / 'pilot'))}"
        )
        # Games without hosted models keep this process's one event loop busy: played one at
        # a time, each one's wall time is its real cost, and the estimate adds them up.
        at_once = concurrency if paid else 1
        pilot_plan = RunPlan(trial, out / "pilot", checked=True)  # its seats are the plan's
        tried = run(pilot_plan, concurrency=at_once, resume=True, max_cost=max_cost)
        if tried.failed:
            console.print(
                f"[yellow]Pilot: {len(tried.failed)} of {tried.played} games failed, e.g. "
                f"{escape(tried.failed[0])}; fix the cause before the run.[/yellow]"
            )
        sources.append(out / "pilot")
        label = f"a pilot of {pilot} game{'' if pilot == 1 else 's'} per row group"
    history = measure(
        sources, label or "no earlier games", scanned=plan.scan().pairings if own else None
    )
    est = estimate(plan.specs, history)
    console.print("[bold]Estimate[/bold]")
    for line in est.lines(concurrency):
        console.print(f"  {escape(line)}")
    total = sum(m.usd or 0.0 for m in est.models)
    if max_cost is not None and total > max_cost:
        console.print(
            f"[yellow]The estimate (${total:.2f}) exceeds --max-cost ${max_cost:g}: the run "
            "stops launching games when that is spent; --resume with a higher cap goes on."
            "[/yellow]"
        )


def _confirm(yes: bool, question: str) -> None:
    if yes:
        return
    if not sys.stdin.isatty():
        raise ConfigError(f"{question} Nobody is at the terminal to answer: add --yes to go on.")
    if not typer.confirm(question, default=False):
        console.print("Nothing played.")
        raise typer.Exit(0)


def _play(plan: RunPlan, concurrency: int, resume: bool, max_cost: float | None) -> RunReport:
    from accord.cli.progress import run_with_progress

    options = {"executor": "local", "max_cost": max_cost}
    return run_with_progress(plan, concurrency, resume, options)


def _finish(plan: Plan, out: Path, report: RunReport) -> None:
    """Write the reproduction, say where it is and how it compares; then the exit code."""
    from accord.reproduce.writeup import collect, verdict, write_reproduction

    command = " ".join(
        [
            "accord reproduce",
            plan.paper,
            *(f"--table {t}" for t in plan.tables),
            *(f"--model {shlex.quote(m.model or '')}" for m in plan.models),
            *(["--smoke"] if plan.smoke else []),
            f"--out {shlex.quote(str(out))}",
        ]
    )
    try:
        rep = collect(plan, out)
        write_reproduction(plan, out, command=command, rep=rep)
    except AccordError as exc:
        raise _fail(exc) from exc
    from accord.reproduce.published import load_published

    pub = load_published(plan.paper)
    for tid, comps in rep.tables.items():
        if pub.table(tid).printed:
            line = verdict(comps, rep.complete, pub.table(tid).rows_need)
            rows = f"{len(comps)} row{'' if len(comps) == 1 else 's'}"
            console.print(f"Table {tid}: {rows}; {escape(line)}")
        else:  # a figure the paper draws without numbers: ours only
            console.print(f"{escape(pub.table(tid).where)}: {len(comps)} rows, ours only")
    if report.stopped:
        console.print(f"[yellow]{escape(report.stopped)}[/yellow]")
    failed = sum(rep.failed.values())
    if failed:
        console.print(
            f"[bold red]{failed} games failed[/bold red] (kept out of every value); their "
            "traces say why. Fix the cause and run the same command with --resume."
        )
    console.print(
        f"Reproduction: {escape(str(out / 'reproduction.md'))} (figures in "
        f"{escape(str(out / 'reproduction'))}); browse the games: accord serve {escape(str(out))}"
    )
    if report.interrupted:
        raise typer.Exit(130 if report.interrupted == "SIGINT" else 143)
    if failed:
        raise typer.Exit(1)
