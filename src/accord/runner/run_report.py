"""`RunReport`: what a run did (`accord.run`, `accord.runner.run.run_specs`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from accord.models.cache import CacheStats


@dataclass
class RunReport:
    """What a run did."""

    out: Path
    planned: int
    skipped: int = 0
    played: int = 0
    failed: list[str] = field(default_factory=list)
    summary: dict[str, object] = field(default_factory=dict)
    executor: str = "local"
    spent_usd: float = 0.0
    """Cost of the games played now; with `max_cost`, of every game in the directory."""
    not_launched: list[str] = field(default_factory=list)
    """Games left unplayed because `max_cost` was reached."""
    stopped: str | None = None
    """Why games were left unplayed, in words."""
    cache: CacheStats | None = None
    """Model-cache hits and misses, when a cache was used."""
    interrupted: str | None = None
    """``"SIGINT"`` or ``"SIGTERM"`` when the run was stopped before its end."""
    in_flight_cancelled: int = 0
    """Games that were playing when the run was interrupted (played again on resume)."""
    batches: dict[str, object] = field(default_factory=dict)
    """Batch mode: batches done, failed, their sizes and queue time, calls resubmitted and
    calls answered from batches an earlier attempt paid for (`accord.runner.steps`)."""
    statuses: dict[str, str] = field(default_factory=dict)
    """Status (``complete`` or ``failed``) of every readable trace in the directory after
    the run, by trace id: the games played now and those kept from before."""

    @property
    def traces_dir(self) -> Path:
        """The folder of the run's traces, one ``<trace_id>.json`` per game."""
        return self.out / "traces"

    @property
    def results_path(self) -> Path:
        """``results.jsonl``: one row per seat per game."""
        return self.out / "results.jsonl"

    @property
    def summary_path(self) -> Path:
        """``summary.json``: per-group means with 95% bootstrap CIs."""
        return self.out / "summary.json"

    @property
    def failures(self) -> list[dict[str, object]]:
        """Why games failed: ``[{"reason", "count"}]``, most common first (from the summary)."""
        items = self.summary.get("failures")
        return list(items) if isinstance(items, list) else []
