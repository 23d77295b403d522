"""What a run shows while it plays: live counts, each new model error once, a periodic status.

`RunMonitor` is the run's `accord.models.telemetry.CallObserver` (games played in this process
report every model call, retry and failure as it happens) and is told when games start and
end. It keeps the counts the progress display shows (games done / failed / in flight, model
calls, retries, errors, tokens, cost, elapsed time, ETA) and hands each *distinct* model error
to `on_error` the first time it is seen, so a dead server or a bad key is on the screen within
one call rather than only inside a trace. Games played elsewhere (Ray workers) are counted from
their traces when they come back.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from accord.core.errors import ModelError
from accord.traces.events import ModelErrorEvent

if TYPE_CHECKING:
    from accord.models.base import Completion
    from accord.traces.schema import Trace

ErrorFn = Callable[["ModelErrorReport"], None]
LogFn = Callable[[str], None]


@dataclass(frozen=True)
class ModelErrorReport:
    """One distinct model error, as first seen."""

    spec: str
    status: int | None
    message: str
    transient: bool
    hint: str

    def line(self) -> str:
        """One readable line: provider, status, message and what to do."""
        message = self.message.removeprefix(f"{self.spec}: ")
        status = f"HTTP {self.status}, " if self.status is not None else ""
        kind = "retrying" if self.transient else "failed for good"
        hint = f" -> {self.hint}" if self.hint else ""
        return f"{self.spec} ({status}{kind}): {message}{hint}"


_HINTS: dict[int, str] = {
    401: "check the API key in the provider's environment variable",
    403: "the key lacks access to this model",
    404: "check the model name and that base_url ends with /v1",
    429: "rate limited: the adaptive limit backs off (a pinned max_concurrency: lower it)",
    500: "the server failed; check its log",
    502: "the server or a proxy in front of it is down",
    503: "the server is overloaded or starting; it is retried",
}


def hint_for(error: ModelError) -> str:
    """What to do about `error`, from its status or message."""
    if error.status is not None and error.status in _HINTS:
        return _HINTS[error.status]
    text = str(error).lower()
    if "connection" in text and ("refused" in text or "failed" in text):
        return "is the server running at base_url?"
    if "no reply within" in text or "timed out" in text:
        return "the server is slow or stuck; raise timeout_s or check it"
    return ""


_NUMBERS = re.compile(r"\d+(\.\d+)?")


def error_key(spec: str, error: ModelError) -> str:
    """Errors that differ only in numbers (waits, attempt counts, ids) are one error."""
    return f"{spec}|{error.status}|{_NUMBERS.sub('#', str(error))[:200]}"


@dataclass
class RunMonitor:
    """Live counts of one run.

    Args:
        total: games planned in this run (already finished ones included).
        already: games finished before this run started (``--resume``).
        on_error: called with each distinct model error the first time it happens.
        log: where ``--verbose`` lines go (every call, retry and failure); ``None``: quiet.
        clock: monotonic clock (tests pass a fake).
    """

    total: int
    already: int = 0
    on_error: ErrorFn | None = None
    log: LogFn | None = None
    clock: Callable[[], float] = time.monotonic
    done: int = 0
    failed: int = 0
    in_flight: int = 0
    calls: int = 0
    calls_in_flight: int = 0
    retries: int = 0
    errors: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    cost_known: bool = True
    started: float = field(default=0.0)
    last_done: float | None = None
    """Clock time of the latest complete game."""
    wave: int = 0
    """The most games in flight at once so far."""
    seen_errors: dict[str, ModelErrorReport] = field(default_factory=dict)
    failure_reasons: Counter[str] = field(default_factory=Counter)
    live_calls: bool = True
    """False when games run in other processes: their calls are counted from traces."""
    planned: Counter[str] = field(default_factory=Counter)
    """Games this run will play, per kind (`expect`); empty: every game is alike."""
    kind_ended: Counter[str] = field(default_factory=Counter)
    kind_times: dict[str, tuple[float, int]] = field(default_factory=dict)
    """Seconds the complete games of each kind took, summed, and how many: a running total,
    so the monitor of a 100,000-game run stays as small as one of ten games."""
    kind_failed_times: dict[str, tuple[float, int]] = field(default_factory=dict)
    """The same for failed games: a kind none of whose games completes is timed by them
    (failed work is work done), so its ETA is not unknown for the whole run."""
    began: dict[str, tuple[str, float]] = field(default_factory=dict)
    """Games in flight: trace id -> (kind, clock time it started)."""

    def __post_init__(self) -> None:
        self.started = self.clock()

    # -- games -----------------------------------------------------------------------------
    def expect(self, kinds: Iterable[str]) -> None:
        """The kind of each game this run is about to play (say, its game and seats). Kinds
        differ in length (a reference protocol's game takes a second, a CPU model's minutes),
        so the ETA stays unknown while a kind with games left has none complete, and weighs
        each kind by the durations of its own complete games."""
        self.planned.update(kinds)

    def game_started(self, trace_id: str | None = None, kind: str = "") -> None:
        """A game was launched (its trace id and kind, when the run told `expect` its kinds)."""
        self.in_flight += 1
        self.wave = max(self.wave, self.in_flight)
        if trace_id is not None:
            self.began[trace_id] = (kind, self.clock())

    def game_finished(self, trace: Trace) -> None:
        """A game ended (complete or failed) and its trace is on disk."""
        self.in_flight = max(0, self.in_flight - 1)
        began = self.began.pop(str(getattr(trace, "trace_id", "")), None)
        if began is not None:
            kind, at = began
            self.kind_ended[kind] += 1
            took = self.clock() - at
            times = self.kind_times if trace.status == "complete" else self.kind_failed_times
            total, count = times.get(kind, (0.0, 0))
            times[kind] = (total + took, count + 1)
        if trace.status == "complete":
            self.done += 1
            self.last_done = self.clock()
        else:
            self.failed += 1
            self.failure_reasons[trace.error or "unknown error"] += 1
        if not self.live_calls:
            self._absorb(trace)

    def _absorb(self, trace: Trace) -> None:
        from accord.models.base import Usage

        total = trace.usage.get("total")
        if total is not None:
            self.calls += total.calls
            self.retries += max(0, total.attempts - total.calls)
            Usage.of(total).add_to(self)
            self.cost_usd += total.cost_usd
            self.cost_known = self.cost_known and total.cost_known
        models = {s.seat: s.identity for s in trace.seats}
        for event in trace.events:
            if isinstance(event, ModelErrorEvent):
                self.errors += 1
                error = ModelError(event.error, status=event.status)
                spec = str(models.get(-1 if event.seat is None else event.seat, "model"))
                self._first_seen(spec, error, transient=False)

    # -- model calls (CallObserver) --------------------------------------------------------
    def call_started(self, spec: str) -> None:
        """Count a call in flight."""
        self.calls_in_flight += 1

    def call_finished(self, spec: str, completion: Completion) -> None:
        """Count a successful call and its tokens and cost."""
        self.calls_in_flight = max(0, self.calls_in_flight - 1)
        self.calls += 1
        completion.usage.add_to(self)
        if completion.cost_usd is None:
            self.cost_known = False
        else:
            self.cost_usd += completion.cost_usd
        if self.log is not None:
            self.log(
                f"call {spec}: {completion.usage.input_tokens} in / "
                f"{completion.usage.output_tokens} out tokens, {completion.latency_s:.2f} s, "
                f"{completion.attempts} attempt(s)"
            )

    def call_retried(self, spec: str, attempt: int, error: ModelError, wait_s: float) -> None:
        """Count a retry; report the error if it is new."""
        self.retries += 1
        self._first_seen(spec, error, transient=True)
        if self.log is not None:
            self.log(f"retry {spec}: attempt {attempt} failed ({error}); waiting {wait_s:.1f} s")

    def call_failed(self, spec: str, error: ModelError) -> None:
        """Count a call that failed for good; report the error if it is new."""
        self.calls_in_flight = max(0, self.calls_in_flight - 1)
        self.errors += 1
        self._first_seen(spec, error, transient=False)
        if self.log is not None:
            self.log(f"failed {spec}: {error}")

    def _first_seen(self, spec: str, error: ModelError, *, transient: bool) -> None:
        key = error_key(spec, error)
        if key in self.seen_errors:
            return
        report = ModelErrorReport(
            spec=spec,
            status=error.status,
            message=" ".join(str(error).split())[:300],
            transient=transient,
            hint=hint_for(error),
        )
        self.seen_errors[key] = report
        if self.on_error is not None:
            self.on_error(report)

    # -- display ---------------------------------------------------------------------------
    def elapsed_s(self) -> float:
        """Seconds since the run started."""
        return self.clock() - self.started

    def eta_s(self) -> float | None:
        """Seconds left, estimated from the pace of this run's complete games, or None
        (unknown) while that pace says nothing yet.

        The pace is games completed per second up to the latest completion: with several
        games in flight it already counts the concurrency. It is unknown until a full wave has
        completed (as many complete games as were in flight at once), since the first games
        to end are the quickest of their wave; failed games do not count (they often end at
        once and would make the rest look fast); and an estimate that the time since the
        latest completion has already used up is unknown too, not "0:00".
        """
        left = self.total - self.already - self.done - self.failed
        if left <= 0:
            return 0.0
        if self.planned:
            return self._eta_by_kind()
        if self.last_done is None or self.done < max(1, self.wave):
            return None
        span = self.last_done - self.started
        if span <= 0:
            return None
        estimate = span / self.done * left - (self.clock() - self.last_done)
        return estimate if estimate > 0 else None

    def _eta_by_kind(self) -> float | None:
        """Work left per kind (its games left times the mean duration of its complete games),
        less what the games in flight have already done, spread over the games played at
        once; None while a kind with games left has no ended game (complete, or failed when
        none completed)."""
        means: dict[str, float] = {}
        work = 0.0
        for kind, planned in self.planned.items():
            left = planned - self.kind_ended[kind]
            if left <= 0:
                continue
            # A kind's complete games time it; one that has only failed so far is timed by
            # its failures (the next ones will likely fail alike), never left unknown.
            total, count = self.kind_times.get(kind) or self.kind_failed_times.get(kind) or (0, 0)
            if not count:
                return None
            means[kind] = total / count
            work += left * means[kind]
        now = self.clock()
        work -= sum(min(now - at, means.get(kind, 0.0)) for kind, at in self.began.values())
        estimate = work / max(1, self.wave)
        return estimate if estimate > 0 else None

    def eta_text(self) -> str:
        """``~m:ss`` (a rough estimate), ``0:00`` when done, or ``unknown``."""
        eta = self.eta_s()
        if eta is None:
            return "unknown"
        return _clock_text(eta) if eta == 0 else "~" + _clock_text(eta)

    def cost_text(self) -> str:
        """The cost so far, or 'unknown' when some call had no known price."""
        if not self.cost_known:
            known = f" (${self.cost_usd:.4f} known)" if self.cost_usd else ""
            return "cost unknown" + known
        return f"${self.cost_usd:.4f}"

    def status_line(self) -> str:
        """Everything the display shows, in one line."""
        return (
            f"games {self.already + self.done + self.failed}/{self.total} "
            f"(failed {self.failed}, in flight {self.in_flight}) | calls {self.calls} "
            f"(retries {self.retries}, errors {self.errors}) | tokens "
            f"{self.input_tokens + self.output_tokens:,} | {self.cost_text()} | "
            f"elapsed {_clock_text(self.elapsed_s())} | ETA {self.eta_text()}"
            + (f" | {self.batch_status()}" if self.batch_status is not None else "")
        )

    batch_status: Callable[[], str] | None = None
    """Batch mode: the step scheduler's progress line (`accord.runner.steps`)."""

    def unstarted(self) -> int:
        """Games of the run not started yet."""
        return max(self.total - self.already - self.done - self.failed - self.in_flight, 0)


def _clock_text(seconds: float) -> str:
    seconds = int(max(seconds, 0))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
