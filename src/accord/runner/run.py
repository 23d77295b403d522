"""Run many games: concurrency, resume, outputs, progress.

Layout of a run directory (DESIGN "Commands")::

    DIR/experiment.json      the expanded list of games (what was asked)
    DIR/traces/<id>.json     one trace per finished game, written atomically
    DIR/results.jsonl        one row per seat per game (rebuilt from the traces)
    DIR/summary.json         per-batch, per-pairing means with 95% bootstrap CIs

A killed run loses at most the games in flight: every finished game's trace is already on
disk, and `resume=True` skips the games whose complete trace exists (and removes temporary
files a kill left behind). Failed games are played again on resume unless `skip_failed`. A run
whose seats cannot be built (an unknown agent, a missing API key) is refused before any game
starts.

Ctrl-C and SIGTERM stop a run cleanly: games in flight are cancelled (their traces are not
written, so a resume plays them again), ``results.jsonl`` and ``summary.json`` are rebuilt
from the traces kept, and the report says the run was interrupted.

A `RunMonitor` sees every model call of the games played in this process as it happens (see
`accord.runner.monitor`); `heartbeat` calls a function every few seconds while games play
(the CLI prints a status line there when its output is not a terminal).

Games run on an executor (`accord.runner.executors`: this process or Ray tasks); this driver
alone launches games, writes traces and rebuilds results, so both behave the same. With
`max_cost`, no game is launched once the run's cost (finished games already in the directory
included) has reached it; games in flight still finish, so the total can pass the cap by
what they cost.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import threading
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from accord.core.errors import ConfigError
from accord.core.ids import check_id
from accord.core.registry import resolve
from accord.index.writer import IndexWriter
from accord.models.batch import BATCH_QUEUE
from accord.models.cache import scrub_secrets
from accord.models.telemetry import observe
from accord.remote.process import RUN_DIR as REMOTE_RUN_DIR
from accord.runner.batch_plan import check_batch, uses_batch
from accord.runner.batch_progress import snapshot
from accord.runner.batch_store import batches_dir
from accord.runner.choose_executor import make_executor
from accord.runner.control import MAX_WORKERS, Control, Limiter, control_store, issue_token
from accord.runner.executors import Executor
from accord.runner.live import LiveRun, playing_into
from accord.runner.lock import RunLock
from accord.runner.monitor import RunMonitor
from accord.runner.otel import UNTRACED
from accord.runner.otel import start as start_tracing
from accord.runner.plan_file import check_plan, write_plan
from accord.runner.play import failed_trace
from accord.runner.results import write_outputs
from accord.runner.run_report import RunReport as RunReport  # where callers found it
from accord.runner.scan import RunScan, scan_run
from accord.runner.server_check import check_server_context
from accord.runner.specs import GameSpec
from accord.runner.steps import StepScheduler
from accord.runner.stored import StoredRun
from accord.traces.events import GameFailed
from accord.traces.io import atomic_write_text, read_trace
from accord.traces.limits import cap_trace
from accord.traces.schema import SeatUsage, Trace

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider

    from accord.remote.spec import RemoteSeatSpec

ProgressFn = Callable[[GameSpec, Trace], None]


def write_run_trace(directory: Path, trace: Trace) -> Path:
    """Write a trace atomically as ``directory/<trace_id>.json``, scrubbed of any secret and
    checked to read back (`write_checked_trace`)."""
    return write_checked_trace(directory, trace)[0]


def write_checked_trace(
    directory: Path, trace: Trace, *, spec: GameSpec | None = None
) -> tuple[Path, Trace]:
    """Write `trace` as `write_run_trace` does, after reading it back with the very reader
    every command uses (`accord.traces.io.read_trace`): a trace that would not read back (a
    non-finite number written as null, say) is written as a ``failed`` game saying why, never
    as ``complete``. Returns the path and the trace as written."""
    path = directory / f"{check_id(trace.trace_id)}.json"
    trace = cap_trace(trace)  # a 50 MB reply must not be stored in full, twice
    problem = _write_readable(path, trace)
    if problem is None:
        return path, trace
    reason = f"the trace would not read back ({problem}); it was written as failed"
    step = max((e.t for e in trace.events), default=0) + 1
    failed = trace.model_copy(
        update={
            "status": "failed",
            "error": f"{trace.error}; {reason}" if trace.error else reason,
            "events": [*trace.events, GameFailed(t=step, error=reason)],
        }
    )
    if _write_readable(path, failed) is None:
        return path, failed
    # Even the record of the failure does not read back: keep only what says why.
    bare = (
        failed_trace(spec, reason)
        if spec is not None
        else failed.model_copy(
            update={
                "events": [GameFailed(t=1, error=reason)],
                "transcripts": {},
                "usage": {"total": SeatUsage()},
            }
        )
    )
    again = _write_readable(path, bare)
    if again is not None:
        raise ConfigError(f"Cannot write a readable trace for {trace.trace_id}: {again}.")
    return path, bare


def _write_readable(path: Path, trace: Trace) -> str | None:
    """Write `trace` to `path` if it reads back; else leave `path` alone and say why."""
    try:
        text = scrub_secrets(trace.model_dump_json(indent=1)) + "\n"
    except (ValueError, RecursionError) as exc:  # pydantic's serialisation errors
        return f"{type(exc).__name__}: {str(exc)[:200]}"
    # A name no reader lists (they read ``*.json``), next to its final place so the rename
    # that publishes it is atomic.
    check = path.with_name(f".{path.name}.check")
    try:
        atomic_write_text(check, text)
        try:
            read_trace(check)
        except ConfigError as exc:
            return str(exc).replace(str(check), "the trace")[:400]
        os.replace(check, path)
    finally:
        check.unlink(missing_ok=True)
    return None


def trace_cost(trace: Trace) -> float:
    """What a trace's model calls cost (calls without a known price count as 0)."""
    total = trace.usage.get("total")
    return total.cost_usd if total is not None else 0.0


def _kind(spec: GameSpec) -> str:
    """Games of one kind take about as long as each other: the same game and the same seats
    (the ETA weighs each kind by its own games, `RunMonitor.expect`)."""
    seats = ",".join(str(a.model or a.agent or a.label or "") for a in spec.agents)
    return f"{spec.game}|{seats}"


def check_run(
    specs: Sequence[GameSpec],
    *,
    models: bool = True,
    cache: Path | None = None,
    estimate_from: Sequence[Path] = (),
) -> None:
    """Everything about a run that can be known wrong before its first game, checked alike by
    a real run and by ``--dry-run``: the seats (`check_seats`), each distinct game
    configuration started once (`check_games`: a missing prompt variant, a prompt template that
    does not render), a ``--cache`` that is a file, and ``--estimate-from`` folders that are not
    runs. Each problem is one `ConfigError`, so the run stops with exit code 2 instead of
    failing every game."""
    if cache is not None and cache.exists() and not cache.is_dir():
        where = "it is created if missing"
        raise ConfigError(
            f"cache={cache} is a file; give a directory for the model cache ({where}).",
            cli=f"--cache {cache} is a file; give a directory for the model cache ({where}).",
        )
    for d in estimate_from:
        if not (d / "traces").is_dir():
            what = "is not a run directory (no traces/ inside); give a directory an earlier "
            raise ConfigError(
                f"estimate_from {d} {what}accord run wrote.",
                cli=f"--estimate-from {d} {what}accord run wrote.",
            )
    check_seats(specs, models=models)
    check_games(specs)


def check_games(specs: Sequence[GameSpec]) -> None:
    """Build and start one game of each distinct configuration (game and options), so an
    option that only fails when a game is built or first asks its seats (a prompt variant file
    that is not there, an override template that does not render, or loops too long) stops
    the run before it starts. Only `ConfigError` counts: anything else is the game's own to
    report when it is played."""
    from accord.core.registry import make

    seen: set[tuple[str, str]] = set()
    for spec in specs:
        ident = (spec.game, json.dumps(spec.options, sort_keys=True, default=str))
        if ident in seen:
            continue
        seen.add(ident)
        try:
            game = make(spec.game, spec.options)
            game.bind_models([a.model for a in spec.agents])
            game.reset(spec.seed)
            game.pending()
        except ConfigError as exc:
            raise ConfigError(f"game {spec.trace_id}: {exc}") from exc


def check_seats(specs: Sequence[GameSpec], *, models: bool = True) -> None:
    """Refuse a run whose seats cannot be built (unknown agent, unknown provider, bad model
    options, missing API key, missing base_url, a ``command:`` seat whose program is not
    there) before any game starts, rather than fail every game of it.

    The bundled local model is not loaded here: that is heavy, and each game reports it. With
    ``models=False`` (a dry run) everything is checked but the API keys: a plan may be priced
    on a machine without them.
    """
    from accord.agents.reference import make_reference
    from accord.core.errors import MissingAPIKeyError
    from accord.models import get_model

    seen: set[tuple[str, str]] = set()
    for spec in specs:
        game_id = resolve(spec.game)
        for agent in spec.agents:
            ident = (game_id, agent.model_dump_json())
            if ident in seen:
                continue
            seen.add(ident)
            missing = agent.remote.missing_program() if agent.remote is not None else None
            if missing is not None:
                raise ConfigError(missing)
            if agent.agent is not None and not agent.is_human and agent.remote is None:
                make_reference(game_id, agent.agent)
            elif agent.model is not None and not agent.model.startswith("local/"):
                try:
                    get_model(agent.model, **agent.options)  # builds a client; calls nothing
                except MissingAPIKeyError:
                    if models:
                        raise
    check_batch(specs)  # batch seats: a provider with a batch API, no person at the table


def prepare_out(
    out: Path,
    specs: Sequence[GameSpec],
    *,
    resume: bool,
    skip_failed: bool = False,
    scan: RunScan | None = None,
) -> set[str]:
    """Create the run directory; refuse to mix runs unless resuming. Returns ids to skip
    (from `scan` when given: the traces are not read again)."""
    traces = out / "traces"
    existing = list(traces.glob("*.json")) if traces.exists() else []
    if existing and not resume:
        held = f"{out} already holds {len(existing)} traces."
        raise ConfigError(
            f"{held} Pass resume=True to continue that run, or choose another out directory.",
            cli=f"{held} Use --resume to continue that run, or choose another --out directory.",
        )
    # Written and compared one game at a time (`accord.runner.plan_file`): memory stays flat.
    if resume:
        check_plan(out / "experiment.json", specs)
    traces.mkdir(parents=True, exist_ok=True)
    if resume:
        # A kill during an atomic write leaves its temporary file behind; the game is replayed.
        for stale in [*traces.glob(".*.tmp"), *out.glob(".*.tmp")]:
            stale.unlink(missing_ok=True)
    write_plan(out / "experiment.json", specs, resume=False)
    if not resume:
        return set()
    return (scan or scan_run(out)).finished(include_failed=skip_failed)


async def run_specs(
    specs: Sequence[GameSpec],
    out: Path,
    *,
    concurrency: int = 8,
    resume: bool = False,
    on_done: ProgressFn | None = None,
    executor: str | Executor = "local",
    address: str | None = None,
    cache: Path | None = None,
    max_cost: float | None = None,
    num_cpus: int | None = None,
    cpus_per_game: float = 1.0,
    skip_failed: bool = False,
    monitor: RunMonitor | None = None,
    heartbeat: tuple[float, Callable[[], None]] | None = None,
    live: bool = True,
    scan: RunScan | None = None,
    store: str | None = None,
    shard: bool = False,
    batch_poll_s: float = 5.0,
    only: Collection[str] | None = None,
    otel: bool | TracerProvider | None = None,
    otel_content: bool = False,
) -> RunReport:
    """Play every spec (at most `concurrency` at once) and write all outputs.

    Args:
        executor: ``"local"`` (this process), ``"ray"``, or an `Executor`.
        address: the Ray cluster to join (``None``: a local instance).
        cache: a model-cache directory to answer calls from and fill.
        max_cost: launch no game once the run has cost this many US dollars.
        num_cpus / cpus_per_game: size of a local Ray instance / CPUs each Ray game reserves.
        skip_failed: with `resume`, keep failed games as they are instead of playing them again.
        monitor: live counts of the run (games, calls, retries, errors, tokens, cost).
        heartbeat: ``(seconds, fn)``: call `fn` every `seconds` while games play.
        live: write ``DIR/live`` (progress and each game's events as they happen) for
            `accord serve` (`accord.runner.live`).
        scan: the directory's traces as already read (`accord.runner.scan`), so a resumed
            run reads each of them once; by default they are read here.
        store: the object-store location the run is kept at (`accord.runner.stored`); `out`
            is then the local working folder of this process.
        shard: with `store`, share the run with other drivers (each game played once).
        batch_poll_s: batch mode: the first wait between two polls of a batch (it grows by
            half each poll, up to a minute).
        only: play just these trace ids now (the plan file still holds every spec): a
            sequential comparison plays its plan block by block.
        otel / otel_content: OpenTelemetry spans of the run, its games, steps and model
            calls (`accord.runner.otel`): on, off, or ``None`` as the ``OTEL_*`` environment
            says (or a `TracerProvider` to send them to); message content only with
            `otel_content`.

    With `store` and the Ray executor, each worker writes its game's trace into the store
    and `on_done` gets the trace's header (no events or transcripts: read them from the
    store); the driver copies the traces once, at the end, to rebuild the results.
    """
    if concurrency < 1:
        raise ConfigError("concurrency must be at least 1", cli="--concurrency must be at least 1")
    if max_cost is not None and not 0 <= max_cost < float("inf"):
        why = f"must be a number of dollars, zero or more (got {max_cost})"
        raise ConfigError(f"max_cost {why}", cli=f"--max-cost {why}")
    check_batch(specs, executor if isinstance(executor, str) else executor.name)
    runner = make_executor(
        executor, address=address, cache_dir=cache, num_cpus=num_cpus, cpus_per_game=cpus_per_game
    )
    if runner.name != "local" and any(a.remote is not None for s in specs for a in s.agents):
        raise ConfigError("remote agent seats are served by this process: use the local executor")
    if any(a.is_human for s in specs for a in s.agents):
        if runner.name != "local":
            raise ConfigError("a person plays at this terminal: use the local executor")
        concurrency = 1  # a person can only sit at one table at a time
    check_run(specs, cache=cache)
    check_server_context(specs)
    if shard and store is None:
        raise ConfigError(
            "shard needs a store location all drivers reach as out (s3://, gs://, az:// or "
            "file:///...).",
            cli="--shard needs --out to be a store location all drivers reach (s3://BUCKET/RUN, "
            "gs://, az://, or file:///ABSOLUTE/PATH on one machine).",
        )
    tracing = start_tracing(_run_id(store, out), otel, content=otel_content)
    try:
        lock = RunLock.acquire(out)  # released in the finally below, or when this process ends
    except BaseException:
        if tracing is not None:
            tracing.shutdown()
        raise
    stored: StoredRun | None = None
    try:
        if store is not None:
            stored = StoredRun.open(store, out, specs, resume=resume, shard=shard)
            resume = resume or shard
            scan = None  # the store's traces are in `out` now
        if resume and scan is None:
            scan = scan_run(out)  # once: what to skip and what it cost
        skip = prepare_out(out, specs, resume=resume, skip_failed=skip_failed, scan=scan)
        if stored is not None and scan is not None:
            stored.set_replay(scan.present - skip)
    except BaseException:
        lock.release()
        if stored is not None:
            stored.release()
        if tracing is not None:
            tracing.shutdown()
        raise
    todo = [s for s in specs if s.trace_id not in skip and (only is None or s.trace_id in only)]
    if stored is not None:
        todo = stored.order(todo)
    report = RunReport(
        out=out, planned=len(specs), skipped=len(specs) - len(todo), executor=runner.name
    )
    if max_cost is not None and scan is not None:
        report.spent_usd = scan.cost_of(skip)
    limiter = Limiter(concurrency)  # `accord ctl RUN concurrency N` retunes it
    control = Control(
        control_store(store if store is not None else out),
        limiter,
        stored.lease.name if stored is not None else _driver_name(),
    )
    control.skip_existing()  # records left by earlier runs of this directory are history
    issue_token(control.store)  # for the web page's buttons; kept apart from the run's files
    held_back: list[str] = []
    traces_dir = out / "traces"
    # Batch seats' calls wait in the step scheduler, which sends each step's calls as one
    # provider batch and records every batch in DIR/batches (`accord.runner.steps`).
    steps = StepScheduler(batches_dir(out), poll_s=batch_poll_s) if uses_batch(todo) else None
    if monitor is None and live:
        monitor = RunMonitor(total=len(specs), already=report.skipped)
    live_run = LiveRun(out, monitor, games=runner.live_events) if live and monitor else None
    if monitor is not None:
        monitor.expect(_kind(s) for s in todo)
    if monitor is not None and steps is not None:
        shown = monitor  # the line shows the steps, batches and a batch ETA

        def batch_line() -> str:
            return steps.status(shown.unstarted())

        monitor.batch_status = batch_line

    index = IndexWriter(out)  # the run index, kept current as games finish (accord.index)

    async def one(spec: GameSpec) -> None:
        async with limiter:
            if not await control.admit():  # waits while paused
                held_back.append(spec.trace_id)
                return
            if max_cost is not None and report.spent_usd >= max_cost:
                report.not_launched.append(spec.trace_id)
                return
            if stored is not None and not await stored.claim(spec):
                if monitor is not None:
                    monitor.already += 1  # played by another driver: the bar shows the run
                return
            if monitor is not None:
                monitor.game_started(spec.trace_id, _kind(spec))
            log = live_run.game(spec, _seats(spec)) if live_run is not None else None
            REMOTE_RUN_DIR.set(out)  # agent processes keep their stderr here (this task only)
            written = False  # by the worker that played it, into the store
            try:
                with (
                    playing_into(log),
                    steps.game(spec.trace_id) if steps else nullcontext(),
                    tracing.game(spec) if tracing is not None else UNTRACED as span,
                ):
                    if stored is not None and runner.writes_store:
                        replay = spec.trace_id in stored.replay
                        where = stored.store.location
                        trace, written = await runner.play_stored(
                            spec, where, replay, write_checked_trace
                        )
                    else:
                        trace = await runner.play(spec)
                    span.result(trace)
            except Exception as exc:
                # An executor bug must not take the other games down with it.
                trace = failed_trace(spec, f"{type(exc).__name__}: {exc}")
            except asyncio.CancelledError:
                report.in_flight_cancelled += 1
                if log is not None and live_run is not None:
                    live_run.done(log)  # played again on resume
                raise
            if written and stored is not None:
                stored.written(trace.trace_id, by_worker=True)
            else:
                path, trace = write_checked_trace(traces_dir, trace, spec=spec)
                index.add(path)
                if stored is not None:
                    await stored.store_trace(trace.trace_id, path)
            if log is not None and live_run is not None:
                live_run.done(log)  # the trace replaces it
            if monitor is not None:
                monitor.game_finished(trace)
            if live_run is not None:
                live_run.progress()
            report.played += 1
            report.spent_usd += trace_cost(trace)
            if trace.status != "complete":
                report.failed.append(scrub_secrets(f"{spec.trace_id}: {trace.error}"))
            if on_done is not None:
                on_done(spec, trace)

    if monitor is not None:
        monitor.live_calls = runner.name == "local"
    pulse = live_pulse = steering = None
    main_task = asyncio.current_task()

    def stop_now() -> None:
        report.interrupted = "accord ctl stop"
        if main_task is not None:
            main_task.cancel()

    queue_token = BATCH_QUEUE.set(steps) if steps is not None else None
    try:
        with (
            _stop_on_sigterm(report),
            observe(monitor),
            tracing.run(len(specs)) if tracing is not None else nullcontext(),
        ):
            if heartbeat is not None:
                pulse = asyncio.ensure_future(_pulse(*heartbeat))
            if live_run is not None:
                live_pulse = asyncio.ensure_future(_pulse(live_run.every_s, live_run.pulse))
            steering = asyncio.ensure_future(control.run(stop_now))
            remote = [a.remote for s in todo for a in s.agents if a.remote is not None]
            try:
                await runner.start(todo)
                # `concurrency` workers share one iterator: no task object per game, so memory
                # does not grow with the size of the run (20,000 games, a task each, did).
                pending = iter(todo)

                async def worker() -> None:
                    for spec in pending:
                        await one(spec)

                # Workers beyond the concurrency wait in the limiter, so `accord ctl` can raise
                # it while the run plays (up to MAX_WORKERS, or the starting concurrency).
                workers = min(max(concurrency, MAX_WORKERS), len(todo))
                async with _seat_servers(remote):
                    await asyncio.gather(*(worker() for _ in range(workers)))
            except asyncio.CancelledError:
                # Ctrl-C (asyncio cancels the main task) or SIGTERM (`_stop_on_sigterm`).
                report.interrupted = report.interrupted or "SIGINT"
    finally:
        for task in (pulse, live_pulse, steering):
            if task is not None:
                task.cancel()
        if steps is not None:
            await steps.aclose()  # batches still running stay recorded for --resume
            report.batches = snapshot(steps.progress)
        if queue_token is not None:
            BATCH_QUEUE.reset(queue_token)
        await runner.close()
        if stored is not None:
            stored.finish()
        # Even an interrupted run leaves consistent results for the games that finished.
        report.summary = write_outputs(
            out,
            [s.trace_id for s in specs],
            statuses=report.statuses,
            known=scan.records if scan is not None else None,  # kept traces: not read again
        )
        index.close()
        if live_run is not None:
            live_run.progress(finished=True, interrupted=report.interrupted)
        if stored is not None:
            try:
                stored.send_outputs()
            finally:
                stored.release()
        lock.release()
        if tracing is not None:
            tracing.shutdown()
    if cache is not None:
        report.cache = runner.cache_stats
    if held_back and report.stopped is None:
        report.stopped = (
            f"Stopped by accord ctl stop --drain: the games in flight finished; "
            f"{len(held_back)} games were not started. Run again with --resume to finish."
        )
    if report.not_launched:
        report.stopped = (
            f"Stopped launching games: the run has cost ${report.spent_usd:.4f}, reaching "
            f"--max-cost ${max_cost:g}; {len(report.not_launched)} games were not played. "
            "Run again with --resume and a higher --max-cost to finish."
        )
    return report


def _seat_servers(remote: list[RemoteSeatSpec]) -> contextlib.AbstractAsyncContextManager[None]:
    """The run's remote seat servers, held from its first game to its last (one start per
    run, not per game: `accord.remote.hub.hold`); nothing without remote seats."""
    if not remote:
        return contextlib.nullcontext()
    from accord.remote.hub import hold

    return hold(remote)


def _run_id(store: str | None, out: Path) -> str:
    """The run's name in its spans: the last part of its store location or folder."""
    return (store.rstrip("/").rsplit("/", 1)[-1] if store else "") or out.resolve().name


def _driver_name() -> str:
    """This process, as a safe name for the acknowledgements in a control log."""
    host = re.sub(r"[^A-Za-z0-9_.-]", "-", socket.gethostname())[:60] or "host"
    return f"{host.lstrip('.-') or 'host'}-{os.getpid()}"


def _seats(spec: GameSpec) -> list[dict[str, Any]]:
    return [{"seat": i, "agent": a.display, "model": a.model} for i, a in enumerate(spec.agents)]


async def _pulse(seconds: float, fn: Callable[[], None]) -> None:
    while True:
        await asyncio.sleep(seconds)
        fn()


@contextlib.contextmanager
def _stop_on_sigterm(report: RunReport) -> Iterator[None]:
    """Turn SIGTERM into a cancellation of the running task, as asyncio does for Ctrl-C."""
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    if task is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop() -> None:
        report.interrupted = "SIGTERM"
        task.cancel()

    try:
        loop.add_signal_handler(signal.SIGTERM, stop)
    except (NotImplementedError, RuntimeError, ValueError):  # not on this platform / loop
        yield
        return
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGTERM)


def run_sync(
    specs: Sequence[GameSpec],
    out: Path,
    *,
    concurrency: int = 8,
    resume: bool = False,
    on_done: ProgressFn | None = None,
    **options: Any,
) -> RunReport:
    """`run_specs` for callers without an event loop (same keyword options)."""
    return asyncio.run(
        run_specs(specs, out, concurrency=concurrency, resume=resume, on_done=on_done, **options)
    )
