"""Issue 12 items 2 and 7: the query sandbox and the web view over hostile run directories."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import pytest

from accord.analysis.query import export_parquet, run_query
from accord.core.errors import ConfigError
from accord.web.app import create_app

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=r"Using `httpx` with `starlette.testclient`")
    from fastapi.testclient import TestClient

OUTSIDE = [
    "SELECT * FROM read_csv('/etc/passwd', header=false)",
    "SELECT * FROM read_csv_auto('/etc/hostname')",
    "SELECT content FROM read_text('/etc/hostname')",
    "SELECT * FROM read_blob('/etc/hostname')",
    "SELECT * FROM glob('/etc/*')",
    "SELECT * FROM read_json('/etc/hostname')",
    "SELECT * FROM read_parquet('/tmp/x.parquet')",
    "SELECT * FROM 'http://127.0.0.1:9/x.csv'",
    "SELECT * FROM read_csv('https://example.invalid/x.csv')",
    "SELECT * FROM sqlite_scan('/tmp/x.db', 't')",
    "SELECT * FROM postgres_scan('host=127.0.0.1', 'public', 't')",
    "SELECT * FROM '/etc/passwd'",
    "FROM read_text('{run}/../../outside.txt')",
    "SELECT * FROM duckdb_extensions() JOIN read_text('/etc/hostname') ON true",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SET enable_external_access = true",
    "RESET lock_configuration",
    "ATTACH '/tmp/x.duckdb' AS x",
    "COPY games TO '/tmp/leak.csv'",
    "EXPORT DATABASE '/tmp/leak'",
    "CREATE TABLE t AS SELECT 1",
    "PRAGMA enable_profiling",
    "EXPLAIN ANALYZE COPY games TO '/tmp/leak.csv'",
    "SELECT 1; SELECT 2",
]


@pytest.mark.parametrize("sql", OUTSIDE)
def test_queries_reach_only_the_runs_views(run_dir: Path, tmp_path: Path, sql: str) -> None:
    (tmp_path / "outside.txt").write_text("not yours")
    with pytest.raises(ConfigError) as info:
        run_query([run_dir], sql.format(run=run_dir))
    assert "\n" not in str(info.value)
    assert "not yours" not in str(info.value)
    assert not Path("/tmp/leak.csv").exists()


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT now() AS t",
        "SELECT current_timestamp, started_at FROM games LIMIT 1",
        "SELECT count(*) FROM events",
        "SELECT max(ended_at) FROM games",
    ],
)
def test_ordinary_queries_still_work(run_dir: Path, sql: str) -> None:
    names, _, rows = run_query([run_dir], sql)
    assert names and rows


def test_export_still_writes_parquet(run_dir: Path, tmp_path: Path) -> None:
    paths = export_parquet([run_dir], tmp_path / "export")
    assert [p.name for p in paths] == [
        f"{v}.parquet" for v in ("games", "seats", "events", "messages")
    ]


@pytest.fixture
def client(run_dir: Path, tmp_path: Path) -> tuple[TestClient, Path]:
    traces = run_dir / "traces"
    outside = tmp_path / "secret.json"
    shutil.copy(traces / "b-g000.json", outside)
    (traces / "link-out.json").symlink_to(outside)
    (traces / "link-in.json").symlink_to(traces / "b-g001.json")
    (traces / "zz-bad.json").write_bytes(b"\xff\x00 not a trace")
    hidden = json.loads((traces / "b-g000.json").read_text())
    hidden["trace_id"] = "..x-p00-g000"
    (traces / "..x-p00-g000.json").write_text(json.dumps(hidden))
    (run_dir / "summary.json").unlink()
    (run_dir / "summary.json").symlink_to(outside)
    return TestClient(create_app([run_dir])), run_dir


def test_web_view_lists_every_file_and_never_answers_500(client) -> None:
    http, _run_dir = client
    runs = http.get("/api/runs")
    assert runs.status_code == 200
    (entry,) = runs.json()
    assert entry["summary"] is None  # summary.json links out of the run: not read
    games = http.get(f"/api/runs/{entry['run']}/games")
    assert games.status_code == 200
    rows = {r["trace_id"]: r for r in games.json()}
    assert set(rows) == {"b-g000", "b-g001", "link-in", "zz-bad", "..x-p00-g000"}
    assert rows["zz-bad"]["status"] == "unreadable" and "UTF-8" in rows["zz-bad"]["error"]
    assert rows["..x-p00-g000"]["status"] == "unreadable"
    for tid, row in rows.items():
        got = http.get(f"/api/runs/{entry['run']}/games/{tid}")
        assert got.status_code == (422 if row["status"] == "unreadable" else 200), tid


@pytest.mark.parametrize(
    "url",
    [
        "/api/runs/run/games/link-out",
        "/api/runs/run/games/..%2F..%2Fsecret",
        "/api/runs/run/games/../../secret",
        "/openapi.json",
        "/docs",
        "/static/../../secret.json",
    ],
)
def test_web_view_serves_nothing_outside_the_run(client, url: str) -> None:
    http, _ = client
    response = http.get(url)
    assert response.status_code == 404, (url, response.status_code)
