"""Keeping a run's index up to date while it plays (`IndexWriter`, used by the runner).

Games are added in batches of `FLUSH_EVERY` as their traces are written, so a long run has
an index that is nearly current at any time and the commands reading it mid-run (or after a
kill) only index the few traces written since. A run that never reaches one batch writes no
index: the first command that reads it builds it (the index is derived, never required).
A failure to write the index never stops the run: the next reader checks the index against
the traces anyway and rebuilds what it lacks.
"""

from __future__ import annotations

from pathlib import Path

from accord.core.errors import ConfigError
from accord.index.layout import FOLDER

FLUSH_EVERY = 200
"""Traces written between two updates of the index."""


class IndexWriter:
    """Adds the traces a run writes to its index, `FLUSH_EVERY` at a time."""

    def __init__(self, run_dir: Path, every: int | None = None) -> None:
        self.run_dir = Path(run_dir)
        self.every = every or FLUSH_EVERY
        self.pending: list[Path] = []
        self.broken = False
        """Set when an update failed: the rest of the run leaves the index to its readers."""

    def add(self, path: Path) -> None:
        """Note that the trace at `path` was written (indexed with the next batch)."""
        self.pending.append(path)
        if len(self.pending) >= self.every:
            self.flush()

    def flush(self) -> None:
        """Index the traces noted so far."""
        if not self.pending or self.broken:
            self.pending.clear()
            return
        import duckdb  # only once a batch is written: a short run never imports it

        from accord.index.run_index import sync

        try:
            sync(self.run_dir, only=self.pending)
        except (OSError, ConfigError, duckdb.Error):
            self.broken = True  # whoever reads the index next rebuilds what it lacks
        self.pending.clear()

    def close(self) -> None:
        """At the end of the run: bring an index that exists up to date with every trace."""
        self.pending.clear()
        if self.broken or not (self.run_dir / FOLDER).is_dir():
            return
        import duckdb

        from accord.index.run_index import sync

        try:
            sync(self.run_dir)
        except (OSError, ConfigError, duckdb.Error):
            self.broken = True
