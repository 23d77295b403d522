"""The run index: each run's games, seats and messages as columnar tables beside its traces.

Derived from the traces and checked against them whenever it is used (`run_index.sync`), so
a command reading it sees exactly the games (and the skipped files) a read of every trace
would; the runner keeps it up to date as games finish (`writer.IndexWriter`), and
``accord index RUN`` rebuilds it. `accord query` reads its ``games``, ``seats`` and
``messages`` views from it.

Nothing is imported here: the runner loads `accord.index.writer` alone, so a run that never
writes an index never imports DuckDB.
"""
