"""Where a run's index lives: ``RUN/index/run.duckdb`` and its stamp ``RUN/index/index.json``
(`accord.index.run_index`)."""

from __future__ import annotations

FOLDER = "index"
"""The index folder, beside ``traces/``."""
DATABASE = "run.duckdb"
"""The DuckDB file holding the tables."""
STAMP = "index.json"
"""The index's format, code signature and the database file's own size and time."""
LOCK = ".lock"
"""The file a process locks while it checks or changes the index (never deleted)."""
