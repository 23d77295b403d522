"""`accord fork`: replay a game up to a point, then change who plays one seat."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from accord.cli.main import _fail, app, console
from accord.cli.options import deprecated_model_option, model_options, trace_location
from accord.core.errors import AccordError, ConfigError
from accord.core.registry import game_class
from accord.core.secrets import scrub_secrets
from accord.models.cache import ModelCache
from accord.models.recorded import has_replies
from accord.runner.fork import ForkCounts, fork_spec, parse_at, seat_index
from accord.runner.lock import RunLock, run_dir_of
from accord.runner.play import play_game
from accord.runner.replay import default_out, spec_from_trace
from accord.runner.run import write_run_trace
from accord.runner.specs import parse_agent, with_action_mode
from accord.traces.io import read_trace
from accord.traces.schema import Trace


@app.command("fork")
def fork(
    trace_path: Annotated[
        Path, typer.Argument(help="The parent trace (RUN/traces/<id>.json).", parser=trace_location)
    ],
    at: Annotated[str, typer.Option(help="Fork point ROUND/TURN (or ROUND), e.g. 2/1.")],
    seat: Annotated[str, typer.Option(help="Seat to hand over: index (0) or name (A).")],
    model: Annotated[
        str | None, typer.Option(help="Model that plays the seat from the fork point.")
    ] = None,
    agent: Annotated[
        str | None, typer.Option(help="Reference agent that plays it instead of a model.")
    ] = None,
    option: Annotated[
        list[str] | None,
        typer.Option(
            "--model-option",
            "-M",
            help="Option of the new model, key=value (timeout_s=60, base_url=...), as -M of run.",
        ),
    ] = None,
    old_option: Annotated[
        list[str] | None,
        typer.Option("--option", "-o", hidden=True, help="Deprecated spelling of -M."),
    ] = None,
    model_base_url: Annotated[
        str | None, typer.Option(help="Server address of the new model (…/v1).")
    ] = None,
    cache: Annotated[
        Path | None,
        typer.Option(
            help="A model cache: new calls are stored in it (and, for traces without "
            "stored replies, earlier ones are answered from it)."
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Directory for the forked trace (default: RUN/forks).")
    ] = None,
    action_mode: Annotated[
        str | None,
        typer.Option(help="How the new model acts: json, tools or auto (see accord run)."),
    ] = None,
) -> None:
    """Replay a game up to ROUND/TURN, then let another model or agent play one seat.

    Requests before the fork point are answered from the replies the parent trace stores (as
    `accord replay` does), so no model is called before it; a trace that cannot answer them
    is refused before any call (older traces without stored replies need --cache, the model
    cache their run filled). From the point on, the seat's new player answers (a new model
    continues the seat's conversation), and the other seats' models answer from the trace
    until the game leaves the parent's path. Each round is printed as it is reached. The
    forked trace records its parent trace id and the fork point in run.fork, and a `fork`
    event marks the switch. Written into a run's traces/ folder (--out RUN/traces), the fork
    holds that run's lock while it plays, as `accord run` does.

    Examples:

      accord fork runs/g/traces/b-g000.json --at 2/1 --seat A --model openai/gpt-5-mini --cache c

      accord fork runs/g/traces/b-g000.json --at 3 --seat 1 --agent greedy --cache c
    """
    lock: RunLock | None = None
    try:
        option = deprecated_model_option(option, old_option)
        if (model is None) == (agent is None):
            raise ConfigError("give exactly one of --model (provider/model) or --agent (a name)")
        parent = read_trace(trace_path)
        if model is not None:
            if "/" not in model:
                raise ConfigError(f"--model {model!r} must look like provider/model")
            new_player = parse_agent(
                {"model": model, "options": model_options(model_base_url, option)}
            )
            if action_mode is not None:
                (new_player,) = with_action_mode([new_player], action_mode)
        else:
            if option or model_base_url or action_mode:
                raise ConfigError(
                    "-M / --model-base-url / --action-mode set up a model; they need --model"
                )
            new_player = parse_agent(str(agent))
        spec = fork_spec(
            spec_from_trace(parent), parent, parse_at(at), seat_index(parent, seat), new_player
        )
        from_trace = has_replies(parent)
        if not from_trace and cache is None and any(a.model for a in spec.agents):
            raise ConfigError(
                f"{parent.trace_id} stores no model replies (it was written before traces "
                "held conversations), so the requests before the fork point could only be "
                "asked again: give --cache DIR with the model cache its run filled"
            )
        model_cache = ModelCache(cache, replay_errors=True) if cache is not None else None
        target = out or default_out(trace_path, "forks")
        run = run_dir_of(target)
        if run is not None:  # a fork written into a run's traces/ becomes one of its games
            lock = RunLock.acquire(run)
        counts = ForkCounts()
        progress = _Progress(counts, parse_at(at))
        forked = asyncio.run(
            play_game(
                spec,
                cache=model_cache,
                parent=(parent, counts) if from_trace else None,
                sink=progress,
            )
        )
        path = write_run_trace(target, forked)
    except AccordError as exc:
        raise _fail(exc) from exc
    finally:
        if lock is not None:
            lock.release()
    progress.finish()
    console.print(f"Forked {parent.trace_id} -> {path} ({forked.status})")
    if from_trace:
        console.print(
            f"Model calls: {counts.from_trace} answered from the parent trace, "
            f"{counts.asked} asked of models."
        )
    if forked.error:
        console.print(scrub_secrets(forked.error), style="yellow", markup=False)
    if model_cache is not None:
        stats = model_cache.stats
        console.print(f"Model cache: {stats.hits} hits, {stats.misses} new calls.")
    console.print(_compare(parent, forked))


class _Progress:
    """Prints each round as the fork reaches it, with the model calls so far."""

    def __init__(self, counts: ForkCounts, at: tuple[int, int]) -> None:
        self.counts = counts
        self.at = at
        self.round: int | None = None

    def begin(self, game_id: str, seat_names: list[str]) -> None:
        console.print(
            f"Playing {game_id}: requests before {self.at[0]}/{self.at[1]} are answered from "
            "the parent trace.",
            markup=False,
        )

    def events(self, batch: list[dict[str, Any]]) -> None:
        for event in batch:
            if event.get("type") == "fork":
                console.print(
                    f"  fork point {self.at[0]}/{self.at[1]} reached: {event.get('by')} plays "
                    "the seat from here",
                    markup=False,
                )
        rounds = [e["round"] for e in batch if isinstance(e.get("round"), int)]
        if rounds and max(rounds) != self.round:
            self.round = max(rounds)
            self._line(f"round {self.round}")

    def _line(self, what: str) -> None:
        console.print(
            f"  {what}: {self.counts.from_trace} model calls answered from the trace, "
            f"{self.counts.asked} asked",
            markup=False,
        )

    def finish(self) -> None:
        self._line("game over")


def _compare(parent: Trace, forked: Trace) -> Table:
    table = Table(title="Parent vs fork")
    table.add_column("metric")
    table.add_column("parent", justify="right")
    table.add_column("fork", justify="right")
    for key, label, percent in game_class(parent.game_id).summary_metrics:
        cells = []
        for t in (parent, forked):
            value = t.metrics.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                cells.append(f"{value * (100 if percent else 1):.1f}")
            else:
                cells.append("–")
        table.add_row(label + (" %" if percent else ""), *cells)
    return table
