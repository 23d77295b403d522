"""A run's progress on the terminal: the bar and live counts, or a line per game and a
status line when the output is not a terminal. Shared by `accord run` and `accord reproduce`;
the run itself is `accord.api.run`."""

from __future__ import annotations

import time
from typing import Any

from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task
from rich.text import Text

from accord.api import run as api_run
from accord.cli.main import console
from accord.core.secrets import scrub_secrets
from accord.runner.monitor import ModelErrorReport, RunMonitor
from accord.runner.planning import RunPlan
from accord.runner.run_report import RunReport
from accord.runner.specs import GameSpec
from accord.traces.schema import Trace

STATUS_EVERY_S = 30.0
"""A run whose output is not a terminal prints a status line at least this often."""


def safe(text: str) -> str:
    """Game, model or server text for the console: secrets redacted, rich markup escaped."""
    return escape(scrub_secrets(text))


def mmss(seconds: float) -> str:
    """``m:ss`` of a duration."""
    minutes, secs = divmod(int(max(seconds, 0)), 60)
    return f"{minutes}:{secs:02d}"


class MonitorColumn(ProgressColumn):
    """The run's live counts beside the bar (re-rendered on every refresh)."""

    def __init__(self, monitor: RunMonitor) -> None:
        super().__init__()
        self.monitor = monitor

    def render(self, task: Task) -> Text:
        m = self.monitor
        return Text(
            f"failed {m.failed} · in flight {m.in_flight} · calls {m.calls} · retries "
            f"{m.retries} · errors {m.errors} · tokens {m.input_tokens + m.output_tokens:,} · "
            f"{m.cost_text()} · {mmss(m.elapsed_s())} elapsed · ETA {m.eta_text()}"
            + (f" · {m.batch_status()}" if m.batch_status is not None else "")
        )


def run_with_progress(
    plan: RunPlan,
    concurrency: int,
    resume: bool,
    options: dict[str, Any],
    *,
    verbose: bool = False,
    executor: str = "local",
) -> RunReport:
    """`accord.api.run` of `plan` with the progress display; `options` are its keyword
    options (executor, cache, max_cost, ...)."""
    specs, out = plan.specs, plan.out
    # On --resume the bar starts at the games already finished, so it ends at the total.
    kept = plan.finished(skip_failed=bool(options.get("skip_failed"))) if resume else set()
    already = len(kept)
    left = len(specs) - already
    console.print(
        f"Playing {left} games -> {escape(plan.store or str(out))} ({executor} executor)"
        + (f"; {already} of {len(specs)} already finished" if already else "")
    )

    def show_error(report: ModelErrorReport) -> None:
        style = "yellow" if report.transient else "bold red"
        console.print(f"[{style}]model error:[/{style}] {safe(report.line())}")

    def log(line: str) -> None:
        console.print(safe(line), highlight=False)

    monitor = RunMonitor(
        total=len(specs), already=already, on_error=show_error, log=log if verbose else None
    )
    if not console.is_terminal:
        last = [time.monotonic()]

        def done(spec: GameSpec, trace: Trace) -> None:
            n = monitor.already + monitor.done + monitor.failed
            note = f": {safe(trace.error)}" if trace.error else ""
            console.print(f"[{n}/{len(specs)}] {escape(spec.trace_id)}: {trace.status}{note}")

        def status() -> None:
            if time.monotonic() - last[0] >= STATUS_EVERY_S - 0.5:
                last[0] = time.monotonic()
                console.print(escape(monitor.status_line()), highlight=False)

        return api_run(
            plan,
            concurrency=concurrency,
            resume=resume,
            on_game=done,
            monitor=monitor,
            heartbeat=(STATUS_EVERY_S, status),
            **options,
        )
    with Progress(
        BarColumn(),
        MofNCompleteColumn(),
        MonitorColumn(monitor),
        console=console,
        transient=False,
    ) as progress:
        task = progress.add_task("games", total=len(specs), completed=already)

        def tick(*_: object) -> None:
            # From the monitor, not +1 a game: with --shard it counts other drivers' games too.
            progress.update(task, completed=monitor.already + monitor.done + monitor.failed)

        return api_run(
            plan,
            concurrency=concurrency,
            resume=resume,
            on_game=tick,
            monitor=monitor,
            heartbeat=(1.0, tick),
            **options,
        )
