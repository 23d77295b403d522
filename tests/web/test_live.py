"""Runs in progress in the web view: games in flight listed, their events streamed."""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from accord.runner.live import LIVE_DIR, RUN_FILE
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.testing.webserver import serving
from accord.traces.io import read_trace
from accord.web.app import create_app
from accord.web.live import LiveLog, run_progress


def _finished_run(root: Path) -> tuple[Path, list[dict[str, Any]]]:
    """A run of two games, then one of them turned back into a game "in flight": its trace
    moved aside and its events written as a live log, with a progress file naming this
    (live) process."""
    out = root / "run"
    specs = [
        GameSpec(
            trace_id=f"g{i}",
            game="negotiation",
            options={"rounds": 2},
            seed=i,
            agents=[AgentSpec(agent="greedy"), AgentSpec(agent="cooperative")],
        )
        for i in range(2)
    ]
    run_sync(specs, out)
    trace_file = out / "traces" / "g1.json"
    events = read_trace(trace_file).model_dump(mode="json")["events"]
    shutil.move(trace_file, root / "g1.json")
    live = out / LIVE_DIR
    header = {
        "live_format": 1,
        "trace_id": "g1",
        "game_id": "negotiation",
        "seed": 1,
        "run": {"batch": "b"},
        "seats": [{"seat": 0, "agent": "greedy"}, {"seat": 1, "agent": "cooperative"}],
        "started_at": "2026-01-01T00:00:00.000+00:00",
    }
    names = {
        "live_header": True,
        "game_id": "negotiation-v3",
        "seats": [
            {"seat": 0, "agent": "greedy", "name": "A"},
            {"seat": 1, "agent": "cooperative", "name": "B"},
        ],
    }
    lines = [header, names, *events[:5]]
    (live / "g1.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    progress = json.loads((live / RUN_FILE).read_text("utf-8"))
    progress.update(finished=False, pid=os.getpid(), done=1, in_flight=1, planned=2)
    (live / RUN_FILE).write_text(json.dumps(progress), "utf-8")
    return out, events


def test_games_in_flight_are_listed_and_shown_as_far_as_they_got(tmp_path: Path) -> None:
    out, events = _finished_run(tmp_path)
    client = TestClient(create_app([out]))
    entry = client.get("/api/runs").json()[0]
    assert (entry["games"], entry["complete"], entry["playing"]) == (2, 1, 1)
    assert entry["progress"]["state"] == "running" and "pid" not in entry["progress"]
    rows = {r["trace_id"]: r for r in client.get("/api/runs/run/games").json()}
    assert rows["g1"]["status"] == "playing" and rows["g1"]["events"] == 5
    assert rows["g1"]["batch"] == "b" and rows["g1"]["players"] == "greedy vs cooperative"
    game = client.get("/api/runs/run/games/g1").json()
    assert game["live"] is True and game["status"] == "playing"
    assert [s["name"] for s in game["seats"]] == ["A", "B"]
    assert game["events"] == events[:5]


def test_a_game_whose_run_died_shows_as_stopped(tmp_path: Path) -> None:
    out, _ = _finished_run(tmp_path)
    progress = json.loads((out / LIVE_DIR / RUN_FILE).read_text("utf-8"))
    progress["pid"] = 2**22 + 12345  # no such process
    (out / LIVE_DIR / RUN_FILE).write_text(json.dumps(progress), "utf-8")
    assert (run_progress(out) or {})["state"] == "stopped"
    rows = {
        r["trace_id"]: r for r in TestClient(create_app([out])).get("/api/runs/run/games").json()
    }
    assert rows["g1"]["status"] == "stopped" and "stopped" in rows["g1"]["error"]


def test_a_half_written_line_waits_for_its_end(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text(
        '{"live_format": 1, "trace_id": "g"}\n{"type": "a", "t": 1}\n{"type": "b"', "utf-8"
    )
    log = LiveLog(path)
    assert [e["type"] for e in log.read_more()] == ["a"]
    with path.open("a", encoding="utf-8") as fh:
        fh.write(', "t": 2}\n')
    assert [e["type"] for e in log.read_more()] == ["b"]
    assert log.header["trace_id"] == "g"


Seen = Callable[[list[tuple[str, Any]]], None]


def _sse(
    url: str, until: str, timeout: float = 30, seen: Seen | None = None
) -> list[tuple[str, Any]]:
    """The (event, data) pairs of a server-sent stream up to `until`; `seen` is told the
    list so far after each one (tests start writing once the stream shows what they wait for,
    instead of sleeping)."""
    got: list[tuple[str, Any]] = []
    with httpx.stream("GET", url, timeout=timeout) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        event = ""
        for line in response.iter_lines():
            if line.startswith("event: "):
                event = line[len("event: ") :]
            elif line.startswith("data: "):
                got.append((event, json.loads(line[len("data: ") :])))
                if seen is not None:
                    seen(got)
                if event == until:
                    return got
    return got


def _when(flag: threading.Event, then: Callable[[], None]) -> threading.Thread:
    """A thread that runs `then` once `flag` is set (or gives up after 30 s, which fails the
    stream's own wait instead of hanging)."""

    def run() -> None:
        if flag.wait(30):
            then()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_the_game_stream_sends_new_events_then_end_when_the_trace_lands(tmp_path: Path) -> None:
    out, events = _finished_run(tmp_path)
    live = out / LIVE_DIR / "g1.jsonl"
    sent_old, sent_new = threading.Event(), threading.Event()

    def seen(got: list[tuple[str, Any]]) -> None:
        count = sum(kind == "ev" for kind, _ in got)
        if count >= 2:  # events 3 and 4, already in the live log
            sent_old.set()
        if count >= 5:  # and the three written while the stream was open
            sent_new.set()

    def append() -> None:
        with live.open("a", encoding="utf-8") as fh:
            for event in events[5:8]:
                fh.write(json.dumps(event) + "\n")

    def land() -> None:
        shutil.move(tmp_path / "g1.json", out / "traces" / "g1.json")
        live.unlink()

    with serving(create_app([out])) as url:
        writers = [_when(sent_old, append), _when(sent_new, land)]
        got = _sse(f"{url}/api/runs/run/games/g1/stream?since=3", until="end", seen=seen)
        for writer in writers:
            writer.join()
    assert got[-1] == ("end", {"events": 8})
    assert [data for kind, data in got if kind == "ev"] == events[3:8]


@pytest.mark.parametrize("url", ["/api/runs/run/games/nope/stream", "/api/runs/nope/live"])
def test_streams_of_unknown_games_and_runs_are_404(tmp_path: Path, url: str) -> None:
    out, _ = _finished_run(tmp_path)
    assert TestClient(create_app([out])).get(url).status_code == 404


def test_the_run_stream_follows_progress_until_the_run_ends(tmp_path: Path) -> None:
    out, _ = _finished_run(tmp_path)

    running = threading.Event()

    def seen(got: list[tuple[str, Any]]) -> None:
        if got[0][0] == "progress":  # the stream has shown the run in flight
            running.set()

    def finish_run() -> None:
        shutil.move(tmp_path / "g1.json", out / "traces" / "g1.json")
        (out / LIVE_DIR / "g1.jsonl").unlink()
        progress = json.loads((out / LIVE_DIR / RUN_FILE).read_text("utf-8"))
        progress.update(finished=True, done=2, in_flight=0)
        (out / LIVE_DIR / RUN_FILE).write_text(json.dumps(progress), "utf-8")

    with serving(create_app([out])) as url:
        writer = _when(running, finish_run)
        got = _sse(f"{url}/api/runs/run/live", until="end", seen=seen)
        writer.join()
    snaps = [data for kind, data in got if kind == "progress"]
    assert snaps[0]["in_flight"] == 1 and snaps[0]["progress"]["state"] == "running"
    assert snaps[-1]["in_flight"] == 0 and snaps[-1]["complete"] == 2
    assert snaps[-1]["progress"]["state"] == "finished"
    assert got[-1][0] == "end"


def test_a_run_on_another_machine_is_judged_by_the_age_of_its_progress(tmp_path: Path) -> None:
    import datetime as dt

    out, _ = _finished_run(tmp_path)
    path = out / LIVE_DIR / RUN_FILE
    progress = json.loads(path.read_text("utf-8"))
    now = dt.datetime.now(dt.UTC)
    progress.update(host="another-machine", pid=1, updated_at=now.isoformat())
    path.write_text(json.dumps(progress), "utf-8")
    assert (run_progress(out) or {})["state"] == "running"
    progress["updated_at"] = (now - dt.timedelta(minutes=5)).isoformat()
    path.write_text(json.dumps(progress), "utf-8")
    shown = run_progress(out) or {}
    assert shown["state"] == "stopped" and "host" not in shown and "pid" not in shown
