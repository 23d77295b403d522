"""`accord run`: play an experiment file or a quick set of games."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from accord.cli.main import _fail, app, console, print_skipped
from accord.cli.options import (
    dollars,
    model_options,
    out_path,
    parse_options,
    with_model_options,
)
from accord.cli.progress import run_with_progress, safe
from accord.cli.sequential_out import lock_analysis, run_sequential, stop_rule
from accord.cli.tables import fit_table, summary_table
from accord.core.errors import AccordError, ConfigError
from accord.runner.cost import estimate, measure, unpriced_models
from accord.runner.planning import RunPlan, plan_run
from accord.runner.run_report import RunReport
from accord.runner.scan import merge_history
from accord.runner.specs import GameSpec
from accord.store import is_location


@app.command("run")
def run(
    target: Annotated[str, typer.Argument(help="An experiment YAML file, or a game name.")],
    out: Annotated[
        str | None,
        typer.Option(
            "--out",
            help="Run directory (default: runs/<name>), or a store location: s3://BUCKET/RUN, "
            "gs://, az://, file:///ABSOLUTE/PATH.",
        ),
    ] = None,
    shard: Annotated[
        str | None,
        typer.Option(
            help="auto: share the run at the store location --out with other drivers started "
            "the same way (each game is played once, by one of them)."
        ),
    ] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Games in flight at once.")] = 8,
    resume: Annotated[bool, typer.Option(help="Skip games already finished in --out.")] = False,
    agents: Annotated[
        str | None, typer.Option(help="Comma-separated seat specs: models (a/b) or agent names.")
    ] = None,
    model: Annotated[str | None, typer.Option(help="One model for every seat.")] = None,
    games: Annotated[
        int, typer.Option(min=1, help="Games to play (quick form); with --suite, games per task.")
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
    max_tokens: Annotated[
        int | None,
        typer.Option(
            help="Completion token cap per call. A model on your own server "
            "(openai-compatible/, hosted_vllm/, any --model-base-url) defaults to the game's "
            "reply budget, written into the trace: 512 tokens for negotiation, 1024 for "
            "calendar and sorting."
        ),
    ] = None,
    action_mode: Annotated[
        str | None,
        typer.Option(
            help="How model seats act: json (one JSON reply), tools (native tool calls) or "
            "auto (tools where the provider supports them); a seat's own action_mode wins."
        ),
    ] = None,
    executor: Annotated[
        str, typer.Option(help="Where games run: local (this process) or ray (Ray tasks).")
    ] = "local",
    batch: Annotated[
        bool,
        typer.Option(
            "--batch",
            help="Answer every model seat through its provider's batch API: half price, games "
            "step together, each step waits for its batch (minutes to hours).",
        ),
    ] = False,
    batch_poll: Annotated[
        float,
        typer.Option(
            min=0.001,
            help="Batch mode: seconds before the first poll of a batch (the wait "
            "grows by half each poll, up to a minute).",
        ),
    ] = 5.0,
    address: Annotated[
        str | None, typer.Option(help="Ray cluster to join (default: start a local instance).")
    ] = None,
    cpus: Annotated[
        int | None, typer.Option(min=1, help="CPUs of a local Ray instance (default: all).")
    ] = None,
    cpus_per_game: Annotated[
        float, typer.Option(help="CPUs each Ray game reserves (LLM games: e.g. 0.25).")
    ] = 1.0,
    cache: Annotated[
        Path | None, typer.Option(help="Model-call cache directory to reuse and fill.")
    ] = None,
    max_cost: Annotated[
        float | None,
        typer.Option(callback=dollars, help="Launch no more games once the run cost this (USD)."),
    ] = None,
    estimate_from: Annotated[
        list[Path] | None,
        typer.Option(help="Earlier run directory to estimate token use from (repeatable)."),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option(help="Print the plan and cost estimate; play nothing.")
    ] = False,
    model_base_url: Annotated[
        str | None,
        typer.Option(help="Server address for every model seat, e.g. http://127.0.0.1:8000/v1."),
    ] = None,
    model_option: Annotated[
        list[str] | None,
        typer.Option(
            "--model-option",
            "-M",
            help="Model option key=value for every model seat (timeout_s=30, api_key_env=X).",
        ),
    ] = None,
    max_failures: Annotated[
        str,
        typer.Option(
            help="Failed games tolerated before the exit code says failure: a count (3) or a "
            "fraction of the games played (0.05)."
        ),
    ] = "0",
    skip_failed: Annotated[
        bool, typer.Option(help="With --resume, keep failed games instead of playing them again.")
    ] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Log every model call and retry.")
    ] = False,
    prompts: Annotated[
        Path | None,
        typer.Option(
            help="Folder of prompt templates laid over the game's defaults (accord prompts GAME "
            "--dump DIR writes them)."
        ),
    ] = None,
    write_report: Annotated[
        bool,
        typer.Option("--report", help="After the run, write its tables and figures to DIR/report."),
    ] = False,
    otel: Annotated[
        bool,
        typer.Option(
            "--otel",
            help="Export OpenTelemetry spans (run, games, steps, model calls) to the OTLP "
            "endpoint of OTEL_EXPORTER_OTLP_ENDPOINT (the OTEL_* variables alone also turn it "
            "on). Needs the otel extra.",
        ),
    ] = False,
    otel_content: Annotated[
        bool,
        typer.Option(
            "--otel-content",
            help="With --otel: also put the messages sent and returned on model-call spans "
            "(secrets scrubbed).",
        ),
    ] = False,
    until_decided: Annotated[
        str | None,
        typer.Option(
            metavar="METRIC",
            help="Play the experiment's two sides in blocks of paired games until an "
            "anytime-valid confidence sequence of METRIC (B - A) decides (the file's stop: "
            "block, or its defaults).",
        ),
    ] = None,
) -> None:
    """Play games and write traces, results.jsonl, summary.json; print a results table.

    Exit code 0 when every game completed (or no more failed than --max-failures), 1 when
    more games failed (each distinct reason is printed with its count), 2 for bad input,
    130 / 143 when stopped by Ctrl-C / SIGTERM (what finished is kept; --resume goes on).

    Examples:

      accord run negotiation --model local/smollm2 --games 3 -o ratio=0.5

      accord run negotiation --agents cooperative,greedy --games 20 --out runs/ref

      accord run calendar --agents imap --suite canonical

      accord run sorting --agents share-all --task prefix_sum -o backend=kv

      accord run experiments/demo.yaml --out runs/demo --concurrency 16 --resume

      accord run experiments/demo.yaml --out runs/demo --report

      accord run negotiation --model mock/schema --prompts my-prompts --out runs/wording

      accord run negotiation --model openai/gpt-5-mini --action-mode tools --games 4

      accord run negotiation --model openai-compatible/qwen --model-base-url
      http://127.0.0.1:8000/v1 -M timeout_s=60 --games 4

      accord run experiments/demo.yaml --executor ray --cache runs/cache

      accord run experiments/demo.yaml --out s3://my-bucket/runs/demo --resume

      accord run experiments/demo.yaml --out s3://my-bucket/runs/demo --shard auto

      accord run experiments/demo.yaml --estimate-from runs/pilot --max-cost 20 --dry-run

      OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 accord run experiments/demo.yaml --otel

      accord run experiments/grid.yaml --batch --out runs/grid   (half price; --resume after
      a crash picks up the batches in flight)
      accord run experiments/imap-vs-dsm.yaml --until-decided success_rate --out runs/seq
    """
    try:
        tolerated = _tolerance(max_failures)
        if skip_failed and not resume:
            raise ConfigError("--skip-failed only applies with --resume")
        extra_model_options = model_options(model_base_url, model_option)
        if shard not in (None, "auto"):
            raise ConfigError(f"--shard takes 'auto', not {shard!r}")
        if shard and out is None:
            raise ConfigError(
                "--shard needs --out to be a store location all drivers reach (s3://BUCKET/RUN, "
                "gs://, az://, or file:///ABSOLUTE/PATH on one machine)."
            )
        plan = plan_run(
            target,
            out=out if out is not None and is_location(out) else out_path(out),
            agents=agents,
            model=model,
            games=games,
            seed=seed,
            options=parse_options([*(option or []), *([f"task={task}"] if task else [])]),
            suite=suite,
            swap_first_speaker=swap_first_speaker,
            temperature=temperature,
            max_tokens=max_tokens,
            prompts=prompts,
            action_mode=action_mode,
        )
        plan.specs = [
            s.model_copy(update={"agents": with_model_options(s.agents, extra_model_options)})
            for s in plan.specs
        ]
        if batch:
            from accord.runner.batch_plan import uses_batch, with_batch

            plan.specs = with_batch(plan.specs)
            if not uses_batch(plan.specs):
                raise ConfigError("--batch: no seat of this run is a model; drop --batch.")
        if executor != "local" and any(a.batch for s in plan.specs for a in s.agents):
            raise ConfigError(
                f"batch mode plays its games in this process, not on the {executor} executor: "
                "drop --executor or --batch."
            )
        # Refuses what a real run refuses before play (a dry run: all but a missing API
        # key); a real run: every model problem at once, in one line, before any game or file.
        plan.check(models=not dry_run, cache=cache, estimate_from=estimate_from or [])
        _preflight(plan, resume, estimate_from, max_cost, dry_run, concurrency)
        if dry_run:
            return
        lock_analysis(target, plan.out, resume=resume)
        rule = stop_rule(target, until_decided)
        if rule is not None:
            options = {"executor": executor, "cache": cache, "max_cost": max_cost}
            run_sequential(
                plan.specs, plan.out, rule, resume=resume, concurrency=concurrency, options=options
            )
            return
        _local_estimate(plan.specs)
        report = run_with_progress(
            plan,
            concurrency,
            resume,
            {
                "executor": executor,
                "address": address,
                "cache": cache,
                "max_cost": max_cost,
                "num_cpus": cpus,
                "cpus_per_game": cpus_per_game,
                "skip_failed": skip_failed,
                "shard": shard is not None,
                **({"otel": True} if otel or otel_content else {}),
                **({"otel_content": True} if otel_content else {}),
                **({"batch_poll_s": batch_poll} if batch_poll != 5.0 else {}),
            },
            verbose=verbose,
            executor=executor,
        )
    except AccordError as exc:
        raise _fail(exc) from exc
    _print_report(report, plan.out, tolerated, write_report, store=plan.store)


def _print_served(served: object) -> None:
    """Flag a seat model whose provider served more than one model id, fingerprint or version."""
    if not isinstance(served, dict):
        return
    for seat, info in served.items():
        if isinstance(info, dict) and info.get("changed"):
            ids = [*info.get("models", {}), *info.get("fingerprints", {})]
            ids += [*info.get("versions", {})]
            console.print(
                f"[yellow]{safe(str(seat))}: the provider served more than one model during "
                f"this run ({safe(', '.join(map(str, ids[:6])))}); its games may not be "
                "comparable (summary.json, 'served').[/yellow]"
            )


def _tolerance(text: str) -> float:
    """``--max-failures``: a count (``3``) or a fraction of games played (``0.05``)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0 or (value >= 1 and not value.is_integer()):
        raise ConfigError(
            f"--max-failures takes a count (e.g. 3) or a fraction below 1 (e.g. 0.05), got {text!r}"
        )
    return value


def _print_report(
    report: RunReport,
    out_dir: Path,
    tolerated: float,
    write_report: bool = False,
    *,
    store: str | None = None,
) -> None:
    """The results table, what failed and why, where the files are, the report when asked
    for; then the exit code."""
    console.print(fit_table(summary_table(report.summary), console.width))
    unreadable = report.summary.get("unreadable")
    print_skipped([str(u.get("error")) for u in unreadable] if isinstance(unreadable, list) else [])
    if report.skipped:
        console.print(f"Skipped {report.skipped} games already finished (--resume).")
    _print_served(report.summary.get("served"))
    if report.cache is not None:
        console.print(f"Model cache: {report.cache.hits} hits, {report.cache.misses} misses.")
    if report.spent_usd > 0:
        console.print(f"Model cost of the games played: ${report.spent_usd:.4f}")
    if report.stopped:
        console.print(f"[yellow]{report.stopped}[/yellow]")
    summary: dict[str, Any] = dict(report.summary)
    failures: list[dict[str, Any]] = list(summary.get("failures", []))
    failed_total = int(summary.get("failed", 0) or 0)
    if failures:
        console.print(
            f"[bold red]{failed_total} games failed[/bold red] (kept out of every mean; "
            "their traces say why):"
        )
        for item in failures:
            console.print(f"  [red]{item['count']} x[/red] {safe(str(item['reason']))}")
        console.print(
            "  Fix the cause, then run the same command with --resume to play them again."
        )
    where = store or str(out_dir)
    console.print(
        f"Traces: {escape(where + '/traces')}\n"
        f"Results: {escape(where + '/results.jsonl')}\n"
        f"Summary: {escape(where + '/summary.json')}"
    )
    if report.interrupted:
        games = int(summary.get("games", 0) or 0)
        console.print(
            f"[bold yellow]Stopped by {report.interrupted}[/bold yellow]: {games} finished "
            f"games are kept in {escape(where)}; {report.in_flight_cancelled} games in "
            "flight were dropped. Run the same command with --resume to finish."
        )
        raise typer.Exit(130 if report.interrupted == "SIGINT" else 143)
    if write_report:
        _write_report(out_dir, store)
    played = max(report.played, 1)
    limit = tolerated * played if 0 < tolerated < 1 else tolerated
    if len(report.failed) > limit:
        raise typer.Exit(1)


def _write_report(out_dir: Path, store: str | None = None) -> None:
    """`accord report DIR` after a run, and how to look at it (`--report`, ``make run``)."""
    from accord.analysis.report import build_report

    try:
        written = build_report([out_dir], out_dir / "report")
        if store is not None:
            from accord.store import open_store

            kept = open_store(store)
            for path in written:
                kept.put(path.relative_to(out_dir).as_posix(), path.read_bytes())
    except AccordError as exc:
        console.print(f"[yellow]No report:[/yellow] {safe(str(exc))}")
        return
    shown = store or str(out_dir)
    figures = [p for p in written if p.suffix in (".png", ".svg")]
    tables = [p for p in written if p.suffix in (".md", ".csv")]
    console.print(
        f"Report: {escape(shown + '/report')} ({len(tables)} tables, "
        f"{len(figures)} figures: Markdown and CSV tables, PNG and SVG figures)"
    )
    console.print(
        f"Browse the games: accord serve {escape(shown)}  (then open http://127.0.0.1:8765/)"
    )


def _preflight(
    plan: RunPlan,
    resume: bool,
    estimate_from: list[Path] | None,
    max_cost: float | None,
    dry_run: bool,
    concurrency: int = 1,
) -> None:
    """Print what will be played, what it should cost and how long it should take (before any
    game starts). On --resume the directory's traces are read here, once (`RunPlan.scan`)."""
    specs, out = plan.specs, plan.out
    done = plan.scan().finished() if resume else set()
    todo = [s for s in specs if s.trace_id not in done]
    if dry_run:
        console.print(
            f"Would play {len(todo)} games -> {out}"
            + (f" ({len(done)} already finished)" if done else "")
        )
    sources = list(estimate_from or [])
    if any(a.model for s in todo for a in s.agents) and (done or sources or dry_run or max_cost):
        history = measure(sources)
        if done:  # the games already played here measure the rest best
            merge_history(history, plan.scan().history)
        est = estimate(todo, history, _batch_history(todo, sources))
        console.print(est.describe(concurrency))
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


def _batch_history(todo: list[GameSpec], sources: list[Path]) -> Any:
    """The batched calls of the --estimate-from runs (turnaround, steps), for a batch run."""
    from accord.runner.batch_cost import tally
    from accord.runner.batch_plan import uses_batch
    from accord.traces.io import readable_traces

    if not uses_batch(todo):
        return None
    return tally(t for d in sources for t in readable_traces(d / "traces", []))


def _local_estimate(specs: list[GameSpec]) -> None:
    """Before a run of the bundled model: a rough time from its speed measured here."""
    from accord.runner.local_estimate import estimate_text, first_local, local_work, measure_speed

    seat = first_local(specs)
    if seat is None or seat.model is None:
        return
    console.print("Measuring the bundled model's speed for a time estimate...", markup=False)
    try:
        work = local_work(specs)
        speed = measure_speed(seat.model, **seat.options)
    except (AccordError, ImportError) as exc:
        console.print(f"(no estimate: {exc})", markup=False)
        return
    if work is not None:
        console.print(estimate_text(work, speed), markup=False)
