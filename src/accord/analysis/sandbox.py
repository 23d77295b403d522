"""The sandbox `accord query` runs SQL in: one read-only statement, over the run's views only.

`check_read_only` accepts one statement that only reads. `lock_down` then closes every door
DuckDB has to the rest of the machine once the views are built: external access (files, URLs,
``glob``, ``read_text``, ``read_csv('/etc/passwd')``) is turned off, extensions are neither
downloaded nor loaded on demand (``sqlite_scan``, an ``http://`` path), and the configuration is
locked so a query cannot turn any of that back on. The same applies to any SQL the web view
runs. `without_time_zones` makes ``SELECT now()`` work without the optional pytz package.
"""

from __future__ import annotations

import re

import duckdb

from accord.core.errors import ConfigError


def lock_down(con: duckdb.DuckDBPyConnection) -> None:
    """Make `con` read-only over what it already holds: no file, URL or extension is reachable
    any more (``read_csv('/etc/passwd')``, ``glob``, ``read_text``, ``httpfs``, ``sqlite_scan``
    all fail), and no setting can be changed back, so a query sees the run's views only."""
    con.execute("SET enable_external_access = false")
    con.execute("SET allow_community_extensions = false")
    con.execute("SET lock_configuration = true")


# -- read-only statements ------------------------------------------------------------------

_EXPLAIN = re.compile(r"^\s*EXPLAIN(\s+ANALY[SZ]E)?\b", re.IGNORECASE)


def check_read_only(sql: str) -> str:
    """Return the one statement in `sql` if it only reads; raise `ConfigError` otherwise.

    Allowed: SELECT (also WITH, FROM-first, VALUES, DESCRIBE, SHOW, SUMMARIZE, which DuckDB
    parses as SELECT), a query with a PIVOT (which DuckDB parses as MULTI) and EXPLAIN of such
    a statement. EXPLAIN ANALYZE runs its statement, so
    the statement inside an EXPLAIN is checked too.
    """
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as exc:
        raise ConfigError(f"SQL does not parse: {exc}") from exc
    if len(statements) != 1:
        raise ConfigError(f"Give exactly one SQL statement (found {len(statements)}).")
    (stmt,) = statements
    kind = stmt.type
    if kind == duckdb.StatementType.MULTI and _pivot_query(stmt.query):
        return sql  # a PIVOT without IN list: DuckDB reads the values, then pivots
    if kind == duckdb.StatementType.EXPLAIN:
        inner = _EXPLAIN.sub("", stmt.query, count=1)
        check_read_only(inner)
        return sql
    if kind != duckdb.StatementType.SELECT:
        name = str(kind).rsplit(".", 1)[-1]
        raise ConfigError(
            f"accord query is read-only: {name} statements are not allowed. Use SELECT, WITH, "
            "DESCRIBE, SHOW or EXPLAIN (to save results, use --format csv or accord export)."
        )
    return sql


_QUOTED = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/", re.DOTALL)
_WORD = re.compile(r"[A-Za-z_]+")
_QUERY_START = {"SELECT", "WITH", "FROM", "PIVOT", "UNPIVOT", "VALUES"}
_WRITES = {
    "INSERT", "UPDATE", "DELETE", "COPY", "CREATE", "DROP", "ALTER", "ATTACH", "DETACH",
    "EXPORT", "IMPORT", "INSTALL", "LOAD", "SET", "RESET", "PRAGMA", "CALL", "CHECKPOINT",
    "VACUUM", "MERGE", "TRUNCATE", "EXPLAIN", "USE", "BEGIN", "COMMIT", "ROLLBACK",
}  # fmt: skip


def _pivot_query(query: str) -> bool:
    """Whether a statement DuckDB calls MULTI is a query with a PIVOT in it (DuckDB runs such
    a PIVOT as two steps: read the distinct values, then pivot) and nothing that writes: it
    starts as a query does and names no statement keyword outside quotes and comments."""
    words = [w.upper() for w in _WORD.findall(_QUOTED.sub(" ", query))]
    return (
        bool(words)
        and words[0] in _QUERY_START
        and bool({"PIVOT", "UNPIVOT"} & set(words))
        and not _WRITES & set(words)
    )


TZ_TYPE = "TIMESTAMP WITH TIME ZONE"


def without_time_zones(
    con: duckdb.DuckDBPyConnection, sql: str, names: list[str], types: list[str]
) -> duckdb.DuckDBPyConnection:
    """Run `sql` again with its TIMESTAMPTZ columns as UTC TIMESTAMPs: DuckDB hands such values
    to Python only through the optional pytz package (``SELECT now()`` would fail)."""
    if duckdb.extract_statements(sql)[0].type != duckdb.StatementType.SELECT or len(
        set(names)
    ) != len(names):
        raise ConfigError(
            "this result holds TIMESTAMP WITH TIME ZONE values, which need the pytz package; "
            "cast them in the query, e.g. now()::TIMESTAMP"
        )
    casts = ", ".join(
        'timezone(\'UTC\', "{0}") AS "{0}"'.format(_ident(n))
        for n, t in zip(names, types, strict=True)
        if t == TZ_TYPE
    )
    body = sql.strip().rstrip(";")
    return con.execute(f"SELECT * REPLACE ({casts}) FROM ({body}) AS _accord_q")


def _ident(name: str) -> str:
    return name.replace('"', '""')
