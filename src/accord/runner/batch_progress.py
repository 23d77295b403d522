"""What the batches of a run are doing: the counts behind a batch run's progress line and the
run report's ``batches`` block (`accord.runner.steps`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class BatchProgress:
    """What the batches of a run are doing (for progress lines and the run report).

    Attributes:
        waiting: calls waiting for the next batch.
        submitting / running / done / failed: batches in each state (this process).
        requests: size of each batch submitted, in order.
        queue_s: seconds each finished batch spent at the provider.
        resubmitted: calls asked again after a batch failed them.
        reused: calls answered from a batch an earlier attempt of the run had paid for.
        followed: batches of an earlier attempt followed to their end on resume.
    """

    waiting: int = 0
    submitting: int = 0
    running: int = 0
    done: int = 0
    failed: int = 0
    requests: list[int] = field(default_factory=list)
    queue_s: list[float] = field(default_factory=list)
    resubmitted: int = 0
    reused: int = 0
    followed: int = 0

    def line(self) -> str:
        """One status line: batches by state, requests per batch, queue time."""
        mean_q = sum(self.queue_s) / len(self.queue_s) if self.queue_s else None
        size = self.requests[-1] if self.requests else 0
        queue = f"{mean_q:.0f}s" if mean_q is not None else "unknown"
        return (
            f"batches: {self.submitting + self.running} running, {self.done} done"
            + (f", {self.failed} failed" if self.failed else "")
            + f"; {self.waiting} calls waiting; last batch {size} requests; "
            f"mean queue {queue}"
            + (f"; {self.resubmitted} resubmitted" if self.resubmitted else "")
            + (f"; {self.reused} answered from earlier batches" if self.reused else "")
        )


def duration(seconds: float) -> str:
    """``42 s``, ``17 min`` or ``2.5 h``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def snapshot(progress: BatchProgress | None) -> dict[str, Any]:
    """The scheduler's progress as plain data (for the live files)."""
    if progress is None:
        return {}
    p = progress
    return {
        "waiting": p.waiting,
        "running": p.submitting + p.running,
        "done": p.done,
        "failed": p.failed,
        "last_requests": p.requests[-1] if p.requests else 0,
        "mean_queue_s": (sum(p.queue_s) / len(p.queue_s)) if p.queue_s else None,
        "resubmitted": p.resubmitted,
        "reused": p.reused,
    }
