"""Batch mode in numbers: what the batched calls of a run cost, what they would have cost live,
and how long their batches took (for ``summary.json`` and the estimate of a batch run).

Each batched ``model_call`` event carries ``batch: {id, queue_s, live_cost_usd}``
(`accord.models.batched`); everything here is derived from those, so it is rebuilt from the
traces like every other summary number: every rebuild of ``summary.json`` (a resumed run, a
run played live afterwards into the same folder, `accord verify`) carries the same ``batch``
block (`accord.runner.results.SummaryBuilder`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from accord.traces.schema import Trace


@dataclass(frozen=True, slots=True)
class BatchCounts:
    """The batched calls of one trace (what the run summary keeps of it, `batch_counts`)."""

    calls: int
    cost_usd: float
    live_cost_usd: float
    cost_known: bool
    queue_s: tuple[tuple[str, float], ...]
    """Seconds at the provider of each batch that answered a call, by batch id."""
    batches: int
    """Batches that answered the game's calls (its steps in batch mode)."""


def batch_counts(trace: Trace) -> BatchCounts | None:
    """The batched calls of `trace` (None when it has none)."""
    calls, cost, live_cost, known = 0, 0.0, 0.0, True
    queue: dict[str, float] = {}
    seen: set[str] = set()
    for event in trace.events:
        record = event.get("batch") if event.get("type") == "model_call" else None
        if not isinstance(record, dict):
            continue
        calls += 1
        spent, live = event.get("cost_usd"), record.get("live_cost_usd")
        if isinstance(spent, int | float) and isinstance(live, int | float):
            cost += float(spent)
            live_cost += float(live)
        else:
            known = False
        batch_id = str(record.get("id", ""))
        if batch_id == "live":  # answered live after its batch failed it: no batch time
            continue
        seen.add(batch_id)
        waited = record.get("queue_s")
        if isinstance(waited, int | float):
            queue[batch_id] = float(waited)
    if not calls:
        return None
    return BatchCounts(calls, cost, live_cost, known, tuple(sorted(queue.items())), len(seen))


@dataclass
class BatchTally:
    """Batched calls counted over traces.

    Attributes:
        calls: batched calls answered.
        cost_usd / live_cost_usd: what they cost, and what they would have cost live.
        cost_known: False when some call's price was unknown (the sums are then partial).
        queue_s: each batch's seconds at the provider, by batch id.
        steps: batches per game, summed over games (a game's steps in batch mode).
        games: games with at least one batched call.
    """

    calls: int = 0
    cost_usd: float = 0.0
    live_cost_usd: float = 0.0
    cost_known: bool = True
    queue_s: dict[str, float] = field(default_factory=dict)
    steps: int = 0
    games: int = 0

    def add(self, trace: Trace) -> None:
        """Count the batched calls of one trace."""
        self.add_counts(batch_counts(trace))

    def add_counts(self, counts: BatchCounts | None) -> None:
        """Count what `batch_counts` kept of one trace (the same as `add`)."""
        if counts is None:
            return
        self.calls += counts.calls
        self.cost_usd += counts.cost_usd
        self.live_cost_usd += counts.live_cost_usd
        self.cost_known = self.cost_known and counts.cost_known
        self.queue_s.update(counts.queue_s)
        if counts.batches:
            self.games += 1
            self.steps += counts.batches

    @property
    def turnaround_s(self) -> float | None:
        """Mean seconds a batch spent at the provider (``None`` before any batch)."""
        return sum(self.queue_s.values()) / len(self.queue_s) if self.queue_s else None

    def as_dict(self) -> dict[str, Any]:
        """The ``batch`` block of ``summary.json``."""
        return {
            "calls": self.calls,
            "batches": len(self.queue_s),
            "cost_usd": round(self.cost_usd, 6),
            "live_cost_usd": round(self.live_cost_usd, 6),
            "saved_usd": round(self.live_cost_usd - self.cost_usd, 6),
            "cost_known": self.cost_known,
            "mean_turnaround_s": self.turnaround_s,
            "steps_per_game": self.steps / self.games if self.games else None,
        }


def tally(traces: Iterable[Trace]) -> BatchTally:
    """The batched calls of `traces`."""
    out = BatchTally()
    for trace in traces:
        out.add(trace)
    return out
