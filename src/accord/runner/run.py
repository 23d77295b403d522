"""Run many games: concurrency, resume, outputs, progress.

Layout of a run directory (DESIGN "Commands")::

    DIR/experiment.json      the expanded list of games (what was asked)
    DIR/traces/<id>.json     one trace per finished game, written atomically
    DIR/results.jsonl        one row per seat per game (rebuilt from the traces)
    DIR/summary.json         per-batch, per-pairing means with 95% bootstrap CIs

A killed run loses at most the games in flight: every finished game's trace is already on
disk, and `resume=True` skips the games whose complete trace exists. Failed games are played
again on resume.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from accord.core.errors import ConfigError
from accord.runner.play import play_game
from accord.runner.results import write_outputs
from accord.runner.specs import GameSpec
from accord.traces.io import atomic_write_json, read_trace, write_trace
from accord.traces.schema import Trace

ProgressFn = Callable[[GameSpec, Trace], None]


@dataclass
class RunReport:
    """What a run did."""

    out: Path
    planned: int
    skipped: int = 0
    played: int = 0
    failed: list[str] = field(default_factory=list)
    summary: dict[str, object] = field(default_factory=dict)


def finished_ids(traces_dir: Path) -> set[str]:
    """Trace ids with a complete trace on disk (unreadable files are treated as missing)."""
    done: set[str] = set()
    for path in traces_dir.glob("*.json"):
        try:
            if read_trace(path).status == "complete":
                done.add(path.stem)
        except ConfigError:
            continue
    return done


def prepare_out(out: Path, specs: Sequence[GameSpec], *, resume: bool) -> set[str]:
    """Create the run directory; refuse to mix runs unless resuming. Returns ids to skip."""
    traces = out / "traces"
    existing = list(traces.glob("*.json")) if traces.exists() else []
    if existing and not resume:
        raise ConfigError(
            f"{out} already holds {len(existing)} traces. Use --resume to continue that run, "
            "or choose another --out directory."
        )
    plan_path = out / "experiment.json"
    plan = [s.model_dump(mode="json") for s in specs]
    if resume and plan_path.exists():
        try:
            previous = json.loads(plan_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            previous = None
        if previous is not None and previous != plan:
            raise ConfigError(
                f"{out} was started with a different experiment; --resume needs the same "
                "config and options (or use another --out)."
            )
    traces.mkdir(parents=True, exist_ok=True)
    atomic_write_json(plan_path, plan)
    return finished_ids(traces) if resume else set()


async def run_specs(
    specs: Sequence[GameSpec],
    out: Path,
    *,
    concurrency: int = 8,
    resume: bool = False,
    on_done: ProgressFn | None = None,
) -> RunReport:
    """Play every spec (at most `concurrency` at once) and write all outputs."""
    if concurrency < 1:
        raise ConfigError("--concurrency must be at least 1")
    if any(a.is_human for s in specs for a in s.agents):
        concurrency = 1  # a person can only sit at one table at a time
    skip = prepare_out(out, specs, resume=resume)
    todo = [s for s in specs if s.trace_id not in skip]
    report = RunReport(out=out, planned=len(specs), skipped=len(specs) - len(todo))
    sem = asyncio.Semaphore(concurrency)
    traces_dir = out / "traces"

    async def one(spec: GameSpec) -> None:
        async with sem:
            trace = await play_game(spec)
            write_trace(traces_dir, trace)
            report.played += 1
            if trace.status != "complete":
                report.failed.append(f"{spec.trace_id}: {trace.error}")
            if on_done is not None:
                on_done(spec, trace)

    try:
        await asyncio.gather(*(one(s) for s in todo))
    finally:
        # Even an interrupted run leaves consistent results for the games that finished.
        report.summary = write_outputs(out, [s.trace_id for s in specs])
    return report


def run_sync(
    specs: Sequence[GameSpec],
    out: Path,
    *,
    concurrency: int = 8,
    resume: bool = False,
    on_done: ProgressFn | None = None,
) -> RunReport:
    """`run_specs` for callers without an event loop."""
    return asyncio.run(
        run_specs(specs, out, concurrency=concurrency, resume=resume, on_done=on_done)
    )
