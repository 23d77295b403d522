"""`accord query` / `accord export`: views, messages of every game, read-only, formats, cache."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import CliRunner

from accord.analysis.query import check_read_only, export_parquet, run_query
from accord.cli.main import app
from accord.core.errors import ConfigError
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.io import write_trace
from accord.traces.schema import SeatInfo, SeatUsage, Trace

runner = CliRunner(env={"COLUMNS": "200"})


@pytest.fixture(autouse=True)
def _cache_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACCORD_CACHE_DIR", str(tmp_path / "cache"))


def _trace(tid: str, game: str, events: list[dict[str, Any]], **extra: Any) -> Trace:
    seats = [SeatInfo(seat=i, name=n, agent=a, model=m) for i, n, a, m in extra.pop("seats")]
    return Trace(
        trace_id=tid,
        game_id=f"{game}-v1",
        game=game,
        seed=7,
        config=extra.pop("config", {}),
        run={"experiment": "x", "batch": "b", "repeat": 0, "pairing": "p"},
        seats=seats,
        events=events,
        usage={
            s.name: SeatUsage(input_tokens=10 * (s.seat + 1), output_tokens=1, calls=1)
            for s in seats
        }
        | {"total": SeatUsage(input_tokens=30, output_tokens=2, calls=2, cost_usd=0.5)},
        started_at="2026-01-01T00:00:00.000+00:00",
        ended_at="2026-01-01T00:00:02.500+00:00",
        **extra,
    )


def negotiation_trace(tid: str = "n1") -> Trace:
    events = [
        {"type": "round_start", "t": 1, "round": 1},
        {"type": "message", "t": 2, "round": 1, "seat": 0, "turn": 1, "speech": "you take 4 stone"},
        {"type": "model_call", "t": 3, "seat": 1},
        {"type": "message", "t": 4, "round": 1, "seat": 1, "turn": 2, "speech": "ok"},
        {"type": "decision", "t": 5, "round": 1, "seat": 0, "purchase": {"r1": 1}},
    ]
    return _trace(
        tid,
        "negotiation",
        events,
        seats=[(0, "A", "openai/m", "openai/m"), (1, "B", "greedy", None)],
        config={"ratio": 0.5, "cheap_talk": True},
        metrics={"efficiency": 0.75, "overdraw_rate": 0, "detail": {"x": 1}, "note": "text"},
        seat_rows=[{"seat": 0, "name": "A", "total_reward": 5}, {"seat": 1, "name": "B"}],
    )


def sorting_trace() -> Trace:
    commands = [
        {"command": "broadcast_message Agent-0 here. My list: [3, 1]", "ok": True,
         "reply": "Sent to Agent-1, Agent-2."},
        {"command": "send_message 2 hello there", "ok": True, "reply": "Delivered to Agent-2."},
        {"command": "send_message 1 late", "ok": False, "reply": "Not delivered: offline."},
        {"command": "write_file list_agent_0\n[1, 3]", "ok": True, "reply": "Wrote"},
        {"command": "read_file list_agent_1", "ok": True, "reply": "[2]"},
        {"command": "wait", "ok": True, "reply": "OK, waited."},
    ]  # fmt: skip
    events = [{"type": "turn", "t": 1, "phase": 1, "round": 2, "seat": 0, "commands": commands}]
    seats = [(i, f"Agent-{i}", "share-all", None) for i in range(3)]
    return _trace("s1", "sorting", events, seats=seats, metrics={"sr": 1.0})


def calendar_trace() -> Trace:
    events = [
        {"type": "turn_start", "t": 1, "round": 1, "agent": 2},
        {"type": "dm_sent", "t": 2, "round": 1, "turn": 0, "sender": 0, "channel": "dm",
         "to": 2, "recipients": [2], "meeting_id": 1, "content": "slot 3?"},
        {"type": "message", "t": 3, "round": 1, "turn": 1, "sender": 2,
         "channel": "participant_groupchat", "recipients": [0, 1], "meeting_id": 1,
         "content": "slot 3 works"},
    ]  # fmt: skip
    seats = [(i, f"agent{i}", "oracle-follower", None) for i in range(3)]
    return _trace("c1", "calendar", events, seats=seats, metrics={"success_rate": 1.0})


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    out = tmp_path / "run"
    for t in (negotiation_trace(), sorting_trace(), calendar_trace()):
        write_trace(out / "traces", t)
    return out


def q(dirs: list[Path], sql: str, **kw: Any) -> list[tuple[Any, ...]]:
    return run_query(dirs, sql, **kw)[2]


def test_games_view_has_labels_metrics_usage_and_times(run_dir: Path) -> None:
    rows = q(
        [run_dir],
        "SELECT trace_id, game, seed, batch, repeat, num_seats, players, efficiency, "
        "overdraw_rate, input_tokens, cost_usd, num_events, num_messages, duration_s, "
        "config->>'ratio', metrics->>'$.detail.x' FROM games ORDER BY trace_id",
    )
    n1 = rows[1]
    assert n1[:8] == ("n1", "negotiation", 7, "b", 0, 2, "openai/m vs greedy", 0.75)
    assert n1[8:] == (0.0, 30, 0.5, 5, 2, 2.5, "0.5", "1")
    # Non-numeric or nested metrics stay in the JSON column only; other games get NULL.
    assert rows[0][7] is None and rows[0][11] == 3
    (cols,) = [run_query([run_dir], "SELECT * FROM games LIMIT 0")[0]]
    assert "note" not in cols and "detail" not in cols and "sr" in cols


def test_seats_view_has_one_row_per_seat(run_dir: Path) -> None:
    rows = q(
        [run_dir],
        "SELECT seat, seat_name, agent, model, player, reference, input_tokens, "
        "metrics->>'total_reward' FROM seats WHERE trace_id = 'n1' ORDER BY seat",
    )
    assert rows == [
        (0, "A", "openai/m", "openai/m", "openai/m", False, 10, "5"),
        (1, "B", "greedy", None, "greedy", True, 20, None),
    ]
    assert q([run_dir], "SELECT count(*) FROM seats") == [(8,)]


def test_events_view_keeps_order_seat_round_and_payload(run_dir: Path) -> None:
    rows = q(
        [run_dir],
        "SELECT idx, type, t, seat, round, data->>'speech' FROM events WHERE trace_id = 'n1' "
        "ORDER BY idx",
    )
    assert [r[1] for r in rows] == ["round_start", "message", "model_call", "message", "decision"]
    assert rows[1] == (1, "message", 2, 0, 1, "you take 4 stone")
    assert rows[2][3:5] == (1, None)
    # Calendar names the acting seat `agent`.
    assert q([run_dir], "SELECT seat FROM events WHERE type = 'turn_start'") == [(2,)]


def test_messages_of_every_game(run_dir: Path) -> None:
    rows = q(
        [run_dir],
        "SELECT game, round, turn, sender, sender_name, channel, recipients, text, delivered "
        "FROM messages ORDER BY game, idx, channel, text",
    )
    assert rows == [
        ("calendar", 1, 0, 0, "agent0", "dm", [2], "slot 3?", True),
        ("calendar", 1, 1, 2, "agent2", "participant_groupchat", [0, 1], "slot 3 works", True),
        ("negotiation", 1, 1, 0, "A", "cheap_talk", [1], "you take 4 stone", True),
        ("negotiation", 1, 2, 1, "B", "cheap_talk", [0], "ok", True),
        ("sorting", 2, None, 0, "Agent-0", "broadcast", [1, 2], "Agent-0 here. My list: [3, 1]",
         True),
        ("sorting", 2, None, 0, "Agent-0", "kv", None, "list_agent_0\n[1, 3]", True),
        ("sorting", 2, None, 0, "Agent-0", "p2p", [2], "hello there", True),
        ("sorting", 2, None, 0, "Agent-0", "p2p", [1], "late", False),
    ]  # fmt: skip


def test_real_scripted_runs_load(tmp_path: Path) -> None:
    specs = [
        GameSpec(trace_id="neg", game="negotiation", options={"rounds": 2, "ratio": 0.8},
                 seed=1, agents=[AgentSpec(agent="cooperative"), AgentSpec(agent="greedy")]),
        GameSpec(trace_id="sort", game="sorting", seed=1,
                 agents=[AgentSpec(agent="share-all")] * 3),
    ]  # fmt: skip
    run_sync(specs, tmp_path / "run")
    run = tmp_path / "run"
    traces = {p.stem: json.loads(p.read_text()) for p in (run / "traces").glob("*.json")}
    want = sum(e["type"] == "message" for e in traces["neg"]["events"])
    assert q([run], "SELECT count(*) FROM messages WHERE game = 'negotiation'") == [(want,)]
    (eff,) = q([run], "SELECT efficiency FROM games WHERE trace_id = 'neg'")
    assert eff[0] == pytest.approx(traces["neg"]["metrics"]["efficiency"])
    # share-all broadcasts one list per agent (3 agents, each heard by the other two).
    assert q(
        [run], "SELECT count(*), sum(len(recipients)) FROM messages WHERE game = 'sorting'"
    ) == [(3, 6)]
    n_events = sum(len(t["events"]) for t in traces.values())
    assert q([run], "SELECT count(*) FROM events") == [(n_events,)]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 1",
        "WITH a AS (SELECT 1 AS x) SELECT x FROM a",
        "FROM games",
        "DESCRIBE games",
        "SHOW TABLES",
        "SUMMARIZE SELECT 1",
        "EXPLAIN SELECT * FROM games",
        "EXPLAIN ANALYZE SELECT 1",
    ],
)
def test_reading_statements_are_allowed(sql: str) -> None:
    assert check_read_only(sql) == sql


@pytest.mark.parametrize(
    "sql",
    [
        "DROP VIEW games",
        "CREATE TABLE t AS SELECT 1",
        "INSERT INTO games SELECT * FROM games",
        "UPDATE games SET status = 'x'",
        "DELETE FROM games",
        "COPY (SELECT 1) TO 'out.csv'",
        "ATTACH 'other.duckdb' AS o",
        "SET threads = 1",
        "PRAGMA version",
        "EXPORT DATABASE 'dump'",
        "INSTALL httpfs",
        "EXPLAIN ANALYZE CREATE TABLE t AS SELECT 1",
        "SELECT 1; DROP VIEW games",
    ],
)
def test_writing_statements_are_rejected(sql: str, run_dir: Path) -> None:
    with pytest.raises(ConfigError, match=r"read-only|exactly one"):
        run_query([run_dir], sql)


def test_bad_sql_is_a_clear_error(run_dir: Path) -> None:
    with pytest.raises(ConfigError, match="does not parse"):
        check_read_only("SELEC 1")
    with pytest.raises(ConfigError, match=r"Query failed.*no_such_column"):
        run_query([run_dir], "SELECT no_such_column FROM games")


def test_formats_on_the_command_line(run_dir: Path) -> None:
    sql = "SELECT trace_id, config, efficiency FROM games ORDER BY trace_id"
    res = runner.invoke(app, ["query", str(run_dir), sql, "--format", "csv"])
    assert res.exit_code == 0, res.output
    rows = list(csv.reader(io.StringIO(res.output)))
    assert rows[0] == ["trace_id", "config", "efficiency"]
    assert rows[2][0] == "n1" and json.loads(rows[2][1])["ratio"] == 0.5 and rows[2][2] == "0.75"
    res = runner.invoke(app, ["query", str(run_dir), sql, "-f", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data[1] == {"trace_id": "n1", "config": {"ratio": 0.5, "cheap_talk": True},
                       "efficiency": 0.75}  # fmt: skip
    res = runner.invoke(app, ["query", str(run_dir), "SELECT text FROM messages WHERE turn = 2"])
    assert res.exit_code == 0 and "ok" in res.output and "1 row" in res.output
    res = runner.invoke(app, ["query", str(run_dir), "DROP VIEW games"])
    assert res.exit_code == 2 and "read-only" in res.output
    res = runner.invoke(app, ["query", "SELECT 1"])
    assert res.exit_code == 2 and "run directories" in res.output


def test_cache_is_reused_and_refreshed(run_dir: Path, tmp_path: Path) -> None:
    # Only a statement naming the events view builds the per-directory cache; the other
    # views come from the run index (tests/index).
    sql = "SELECT count(DISTINCT trace_id) FROM events"
    assert q([run_dir], sql) == [(3,)]
    (cache,) = (tmp_path / "cache" / "query").glob("*.duckdb")
    stamp = cache.stat().st_mtime_ns
    assert q([run_dir], sql) == [(3,)]
    assert cache.stat().st_mtime_ns == stamp  # reused, not rebuilt
    write_trace(run_dir / "traces", negotiation_trace("n2"))
    assert q([run_dir], sql) == [(4,)]
    assert q([run_dir], sql, cache=False) == [(4,)]
    assert q([run_dir], "SELECT count(*) FROM games") == [(4,)]


def test_several_directories_with_the_same_trace_ids(run_dir: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    write_trace(other / "traces", negotiation_trace())
    rows = q(
        [run_dir, other],
        "SELECT run_dir, count(*) FROM games g JOIN messages m USING (run_dir, trace_id) "
        "WHERE g.trace_id = 'n1' GROUP BY 1 ORDER BY 1",
    )
    assert rows == [(str(other), 2), (str(run_dir), 2)]


def test_invalid_trace_is_left_out_and_named(tmp_path: Path) -> None:
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "broken.json").write_text('{"schema_version": 99}')
    skipped: list[str] = []
    _, _, rows = run_query([tmp_path], "SELECT count(*) FROM games", skipped=skipped)
    assert rows == [(0,)]
    assert len(skipped) == 1 and "broken.json" in skipped[0]
    with pytest.raises(ConfigError, match="not a run directory"):
        run_query([tmp_path / "missing"], "SELECT 1")


def test_export_parquet(run_dir: Path, tmp_path: Path) -> None:
    written = export_parquet([run_dir], tmp_path / "pq")
    assert sorted(p.name for p in written) == [
        "events.parquet", "games.parquet", "messages.parquet", "seats.parquet",
    ]  # fmt: skip
    con = duckdb.connect()
    n = con.execute(f"SELECT count(*) FROM '{tmp_path / 'pq' / 'messages.parquet'}'").fetchone()
    assert n == (8,)
    res = runner.invoke(app, ["export", str(run_dir), "--parquet", "--out", str(tmp_path / "e")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "e" / "games.parquet").exists()
    # Parquet is the one format, so it is the default.
    plain = runner.invoke(app, ["export", str(run_dir), "--out", str(tmp_path / "d")])
    assert plain.exit_code == 0, plain.output
    assert (tmp_path / "d" / "games.parquet").exists()
