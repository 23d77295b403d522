"""The public Python API: run experiments, play one game, load a run (DESIGN principle 9).

The ``accord`` command is a client of these functions: ``accord run`` plans with `plan`, runs
with `run` and adds a progress bar and the printed tables; everything a command can do with
a run, a script or a notebook can do here, with the same checks and the same errors (each an
`accord.core.errors.AccordError` whose one-line message says what to do).

    import accord

    report = accord.run("negotiation", agents="cooperative,greedy", games=4, out="runs/ref")
    data = accord.load(report.out)
    trace = accord.play("negotiation", "cooperative,greedy", seed=3)

`run` and `play` work inside a running event loop too (a notebook): the games then play on
a worker thread. Use `run_async` to await a run in your own loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar, Unpack

from accord.runner.planning import AgentsArg, RunPlan, plan_run
from accord.runner.run import ProgressFn, run_specs
from accord.runner.run_report import RunReport

if TYPE_CHECKING:
    from accord.analysis.drift import DriftReport
    from accord.analysis.records import RunData
    from accord.runner.config import Experiment
    from accord.runner.monitor import RunMonitor
    from accord.traces.schema import Trace

__all__ = ["RunPlan", "RunReport", "drift", "load", "plan", "play", "run", "run_async"]

T = TypeVar("T")

plan = plan_run
"""`accord.runner.planning.plan_run`: the games a run will play and its directory."""


class RunOptions(TypedDict, total=False):
    """The keyword arguments of `run` (those of `run_async`)."""

    game: str | None
    agents: AgentsArg | None
    model: str | None
    games: int
    seed: int | None
    options: Mapping[str, Any] | None
    suite: str | None
    task: str | None
    swap_first_speaker: bool
    temperature: float | None
    max_tokens: int | None
    action_mode: str | None
    prompts: str | Path | None
    out: str | Path | None
    concurrency: int
    resume: bool
    skip_failed: bool
    max_cost: float | None
    executor: str
    address: str | None
    cache: str | Path | None
    num_cpus: int | None
    cpus_per_game: float
    on_game: ProgressFn | None
    monitor: RunMonitor | None
    heartbeat: tuple[float, Callable[[], None]] | None
    live: bool
    shard: bool
    batch: bool
    batch_poll_s: float
    otel: bool | None
    otel_content: bool


async def run_async(
    target: str | Path | Experiment | RunPlan | None = None,
    *,
    game: str | None = None,
    agents: AgentsArg | None = None,
    model: str | None = None,
    games: int = 1,
    seed: int | None = None,
    options: Mapping[str, Any] | None = None,
    suite: str | None = None,
    task: str | None = None,
    swap_first_speaker: bool = False,
    temperature: float | None = None,
    max_tokens: int | None = None,
    action_mode: str | None = None,
    prompts: str | Path | None = None,
    out: str | Path | None = None,
    concurrency: int = 8,
    resume: bool = False,
    skip_failed: bool = False,
    max_cost: float | None = None,
    executor: str = "local",
    address: str | None = None,
    cache: str | Path | None = None,
    num_cpus: int | None = None,
    cpus_per_game: float = 1.0,
    on_game: ProgressFn | None = None,
    monitor: RunMonitor | None = None,
    heartbeat: tuple[float, Callable[[], None]] | None = None,
    live: bool = True,
    shard: bool = False,
    batch: bool = False,
    batch_poll_s: float = 5.0,
    otel: bool | None = None,
    otel_content: bool = False,
) -> RunReport:
    """Play a run and write its directory; return what happened.

    What to play is an experiment file, an `Experiment`, a `RunPlan`, or the quick form: a
    game (as `target` or `game`) with its seats (`agents`, or one `model` for every seat),
    `games`, `seed`, game `options`, `suite` or `task` (see `accord.runner.planning.plan_run`).
    The directory gets ``traces/<id>.json`` per game, ``results.jsonl``, ``summary.json``
    and ``experiment.json``; a directory that already holds traces is refused unless
    `resume` (then finished games are skipped, failed ones played again unless
    `skip_failed`).

    Args:
        action_mode: ``json``, ``tools`` or ``auto`` for every model seat that sets none
            itself (`accord.agents.tools`).
        concurrency: games in flight at once.
        max_cost: launch no more games once the run has cost this many US dollars.
        executor / address / num_cpus / cpus_per_game: ``"local"`` or ``"ray"`` and its
            cluster (`accord.runner.executors`).
        cache: a model-call cache directory to answer calls from and fill.
        on_game: called with each finished game's spec and trace (a progress display).
        monitor: live counts of the run (`accord.runner.monitor.RunMonitor`).
        heartbeat: ``(seconds, fn)``: call `fn` that often while games play.
        live: write ``DIR/live`` for `accord serve` to follow.
        out: a directory, or a store location (``s3://bucket/runs/demo``, ``gs://``,
            ``az://``, ``file:///abs/path``: `accord.runner.stored`).
        shard: share the run at the store location `out` with other drivers started the
            same way: each game is played once, by one of them.
        batch: answer every model seat through its provider's batch API (half price; the
            games step together, `accord.runner.steps`); a seat's own ``batch`` wins.
        batch_poll_s: the first wait between two polls of a batch.
        otel: OpenTelemetry spans of the run, each game, step and model call
            (`accord.runner.otel`, the ``otel`` extra): ``None`` as the ``OTEL_*``
            environment says, ``True`` on, ``False`` off.
        otel_content: put the messages sent and returned on the model-call spans.

    Returns:
        `RunReport`: the games planned, played, skipped and failed, each game's status, the
        summary, the cost, and the paths of the files written.

    Raises:
        ConfigError: bad input (a missing file, an unknown game or agent, a missing API key,
            a directory of another run), before any game is played or file written.
    """
    the_plan = plan_run(
        target,
        game=game,
        agents=agents,
        model=model,
        games=games,
        seed=seed,
        options=options,
        suite=suite,
        task=task,
        swap_first_speaker=swap_first_speaker,
        temperature=temperature,
        max_tokens=max_tokens,
        prompts=prompts,
        out=out,
        action_mode=action_mode,
    )
    if batch:
        from accord.runner.batch_plan import with_batch

        the_plan.specs = with_batch(the_plan.specs)
        the_plan.checked = False
    if not the_plan.checked:
        the_plan.check()
    return await run_specs(
        the_plan.specs,
        the_plan.out,
        concurrency=concurrency,
        resume=resume,
        on_done=on_game,
        executor=executor,
        address=address,
        cache=Path(cache) if cache is not None else None,
        max_cost=max_cost,
        num_cpus=num_cpus,
        cpus_per_game=cpus_per_game,
        skip_failed=skip_failed,
        monitor=monitor,
        heartbeat=heartbeat,
        live=live,
        scan=the_plan.scan() if resume else None,
        store=the_plan.store,
        shard=shard,
        batch_poll_s=batch_poll_s,
        otel=otel,
        otel_content=otel_content,
    )


def run(
    target: str | Path | Experiment | RunPlan | None = None, **kwargs: Unpack[RunOptions]
) -> RunReport:
    """`run_async` for callers without an event loop of their own (same arguments).

    Example: ``accord.run("experiments/demo.yaml", out="runs/demo", concurrency=16)``.
    """
    return _complete(run_async(target, **kwargs))


def play(
    game: str,
    agents: AgentsArg,
    *,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
) -> Trace:
    """Play one game and return its trace; nothing is written to disk.

    Example: ``accord.play("negotiation", ["cooperative", "greedy"], seed=3).metrics``.

    Raises:
        ConfigError: an unknown game or agent, a wrong number of seats, bad options or
            arguments, a missing API key: the checks `run` makes, before any model is called
            (a model that fails while playing gives a trace with ``status: failed`` instead).
    """
    from accord.core.registry import resolve
    from accord.runner.play import play_game

    # The same plan and checks as `run` (game, seats, options, keys, models), so `play`
    # raises the typed errors `run` raises, before any model is called.
    the_plan = plan_run(
        game=game, agents=agents, games=1, seed=seed, options=options, out="unused-by-play"
    )
    if not the_plan.checked:
        the_plan.check()
    (planned,) = the_plan.specs
    # Exactly the seed given (a run derives each game's seed from its base seed).
    spec = planned.model_copy(update={"trace_id": f"{resolve(game)}-s{seed}", "seed": seed})
    return _complete(play_game(spec))


def drift(
    baseline: str | Path,
    *,
    games: int | None = None,
    out: str | Path | None = None,
    alpha: float = 0.05,
    metrics: list[str] | None = None,
    concurrency: int = 8,
    batch: bool = False,
    batch_poll_s: float = 5.0,
    on_game: ProgressFn | None = None,
    live: bool = False,
) -> DriftReport:
    """Replay a baseline run's games now (a canary) and say whether the models changed.

    The canary plays the baseline's planned games whose traces are complete (the first
    `games` of them), with the same scenarios, seeds and seats, into `out` (default: beside
    the baseline, ``<name>-drift-<UTC time>``), then pairs its games with the baseline's and
    tests each headline metric at `alpha`, with the minimum detectable difference of the
    baseline's noise floor, and compares what the providers said they served
    (`accord.analysis.drift`). The result is also written to ``OUT/drift.json``.

    Example: ``accord.drift("runs/demo", games=40).drifted``.

    Raises:
        ConfigError: `baseline` is not a run, has fewer than 2 complete games, `out` holds
            files, or the seats cannot run now (before anything is written).
        ModelError: fewer than 2 canary games completed.
    """
    from accord.analysis.drift import canary_plan, check_alpha, drift_report, write_drift

    check_alpha(alpha)
    base = Path(baseline)
    the_plan = canary_plan(base, games=games, out=Path(out) if out is not None else None)
    if batch:
        from accord.runner.batch_plan import with_batch

        the_plan.specs = with_batch(the_plan.specs)
    the_plan.check()
    _complete(
        run_async(
            the_plan,
            concurrency=concurrency,
            on_game=on_game,
            live=live,
            batch_poll_s=batch_poll_s,
        )
    )
    result = drift_report(base, the_plan.out, alpha=alpha, metrics=metrics)
    write_drift(result, the_plan.out)
    return result


def load(run_dir: str | Path) -> RunData:
    """The games, seats and events of a run directory as records (`RunData`), with
    ``.to_pandas()`` and ``.to_polars()`` when those are installed. `run_dir` may be a store
    location (``s3://bucket/runs/demo``): its traces are read in place, one at a time, with
    no copy on disk.

    Raises:
        ConfigError: `run_dir` is not a run directory (a damaged trace is listed in
            ``RunData.skipped`` instead).
    """
    from accord.analysis.records import load_run
    from accord.core.errors import ConfigError
    from accord.store import StoredTraces, is_location, open_store

    if is_location(run_dir):
        store = open_store(str(run_dir))
        if not store.list("traces") and not store.exists("experiment.json"):
            raise ConfigError(f"{store.location} holds no run (no traces/ in it); check it.")
        return load_run(StoredTraces(store))
    return load_run(Path(run_dir))


def _complete(coro: Coroutine[Any, Any, T]) -> T:
    """Run `coro` to its end: here, or on a worker thread when this thread already runs an
    event loop (a notebook cell), since a loop cannot be started inside another."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()
