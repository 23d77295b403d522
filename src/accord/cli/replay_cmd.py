"""`accord replay`: play a game again from its trace and the model cache, and compare."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from accord.cli.main import _fail, app, console
from accord.core.errors import AccordError, ConfigError
from accord.models.cache import ModelCache
from accord.runner.play import play_game
from accord.runner.replay import default_out, differences, spec_from_trace
from accord.runner.run import write_run_trace
from accord.traces.io import read_trace


@app.command("replay")
def replay(
    trace_path: Annotated[Path, typer.Argument(help="A trace file (RUN/traces/<id>.json).")],
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
) -> None:
    """Re-run a game from its trace (and the model cache) and compare the two traces.

    The game, options, seed, seats and labels come from the trace; model calls are answered
    from --cache, recorded failures included, so the new trace equals the old one apart from
    timestamps and latency. Without --cache, models are called again.

    Examples:

      accord replay runs/grid/traces/main-p00-g000.json --cache runs/cache

      accord replay runs/grid/traces/main-p00-g000.json --cache runs/cache --offline --check
    """
    try:
        if offline and cache is None:
            raise ConfigError("--offline answers from the cache: give --cache DIR too")
        original = read_trace(trace_path)
        spec = spec_from_trace(original)
        model_cache = ModelCache(cache, replay_errors=True, offline=offline) if cache else None
        fresh = asyncio.run(play_game(spec, cache=model_cache))
        path = write_run_trace(out or default_out(trace_path, "replays"), fresh)
    except AccordError as exc:
        raise _fail(exc) from exc
    console.print(f"Replayed {original.trace_id} -> {path} ({fresh.status})")
    if model_cache is not None:
        stats = model_cache.stats
        console.print(f"Model cache: {stats.hits} hits, {stats.misses} misses.")
    elif any(a.model for a in spec.agents):
        console.print("No --cache: the models were asked again, so replies may differ.")
    diffs = differences(original, fresh)
    if not diffs:
        console.print("Identical to the original trace (apart from timestamps and latency).")
        return
    console.print("[yellow]Differs from the original trace:[/yellow]")
    for line in diffs:
        console.print(f"  {line}", markup=False)
    if check:
        raise typer.Exit(1)
