"""`accord replay`: play a game again from its trace (or the model cache), and compare."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from accord.cli.main import _fail, app, console
from accord.cli.options import trace_location
from accord.core.errors import AccordError, ConfigError
from accord.models.cache import ModelCache
from accord.models.recorded import has_replies
from accord.runner.lock import RunLock, run_dir_of
from accord.runner.play import play_game
from accord.runner.replay import default_out, differences, missing_replies, spec_from_trace
from accord.runner.run import write_run_trace
from accord.traces.io import read_trace


@app.command("replay")
def replay(
    trace_path: Annotated[
        Path, typer.Argument(help="A trace file (RUN/traces/<id>.json).", parser=trace_location)
    ],
    cache: Annotated[
        Path | None, typer.Option(help="The model cache the run filled (accord run --cache).")
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Directory for the new trace (default: RUN/replays).")
    ] = None,
    offline: Annotated[
        bool, typer.Option(help="Answer only from the cache; a missing call is an error.")
    ] = False,
    check: Annotated[
        bool, typer.Option(help="Exit with status 1 if the replay differs from the trace.")
    ] = False,
    ask_models: Annotated[
        bool,
        typer.Option(
            help="Call the models for what neither the trace nor --cache holds (a hosted "
            "model charges for that); without it such a replay is refused."
        ),
    ] = False,
) -> None:
    """Re-run a game from its trace and compare the two traces.

    The game, options, seed, seats and labels come from the trace. Model calls are answered
    from the replies the trace stores (every call's messages and reply), recorded failures
    included, so the new trace equals the old one apart from timestamps and latency; a prompt
    that differs from the recorded one stops the replay and says where. With --cache, calls
    are answered from the model cache instead (and, without --offline, missing ones are
    asked). A trace whose stored replies are missing or damaged is refused before any model
    is called, unless --ask-models says to call the models again (replies may then differ).
    An --out that is a run's traces/ folder waits for no one: it is refused while a run holds
    that run's lock.

    Examples:

      accord replay runs/grid/traces/main-p00-g000.json

      accord replay runs/grid/traces/main-p00-g000.json --cache runs/cache

      accord replay runs/grid/traces/main-p00-g000.json --cache runs/cache --offline --check

      accord replay runs/old/traces/g000.json --ask-models
    """
    lock: RunLock | None = None
    try:
        if offline and cache is None:
            raise ConfigError("--offline answers from the cache: give --cache DIR too")
        if offline and ask_models:
            raise ConfigError("--offline never calls a model; drop --ask-models or --offline")
        original = read_trace(trace_path)
        spec = spec_from_trace(original)
        model_cache = ModelCache(cache, replay_errors=True, offline=offline) if cache else None
        missing = missing_replies(original) if model_cache is None else None
        if missing is not None and not ask_models:
            raise ConfigError(
                f"{trace_path}: cannot replay from the trace alone: {missing}. Replaying "
                "would call the models again (a hosted model charges for that): give --cache "
                "DIR with the run's model cache, or --ask-models to call them anyway."
            )
        from_trace = model_cache is None and missing is None and has_replies(original)
        target = out or default_out(trace_path, "replays")
        run = run_dir_of(target)
        if run is not None:  # a replay written into a run's traces/ becomes one of its games
            lock = RunLock.acquire(run)
        fresh = asyncio.run(
            play_game(spec, cache=model_cache, recorded=original if from_trace else None)
        )
        path = write_run_trace(target, fresh)
        # Compared as written (secrets redacted, long replies capped), like the original.
        fresh = read_trace(path)
    except AccordError as exc:
        raise _fail(exc) from exc
    finally:
        if lock is not None:
            lock.release()
    console.print(f"Replayed {original.trace_id} -> {path} ({fresh.status})")
    if model_cache is not None:
        stats = model_cache.stats
        console.print(f"Model cache: {stats.hits} hits, {stats.misses} misses.")
    elif from_trace:
        console.print("Model calls answered from the replies stored in the trace.")
    elif any(a.model for a in spec.agents):
        console.print(
            "The models were asked again (--ask-models): the trace could not answer every "
            "call, so replies may differ."
        )
    if fresh.error:
        console.print(f"[yellow]{escape(fresh.error)}[/yellow]")
    diffs = differences(original, fresh)
    if not diffs:
        console.print("Identical to the original trace (apart from timestamps and latency).")
        return
    console.print("[yellow]Differs from the original trace:[/yellow]")
    for line in diffs:
        console.print(f"  {line}", markup=False)
    if check:
        raise typer.Exit(1)
