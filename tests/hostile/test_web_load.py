"""Issue 25, "The web view under load": live streams share one watcher per run, do their file
work off the event loop and are capped per client; a seatless trace and a lobby option naming a
server folder are handled."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import warnings
from pathlib import Path

import httpx

from accord.runner.live import LIVE_DIR, RUN_FILE
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.testing.webserver import serving
from accord.web.app import create_app
from accord.web.play import PlayHub
from accord.web.watch import Shared, StreamCap

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=r"Using `httpx` with `starlette.testclient`")
    from fastapi.testclient import TestClient


def _running(out: Path) -> Path:
    """Mark a finished run as still playing (its progress names this live process)."""
    live = out / LIVE_DIR
    progress = json.loads((live / RUN_FILE).read_text("utf-8"))
    progress.update(finished=False, pid=os.getpid(), done=2, in_flight=0, planned=4)
    (live / RUN_FILE).write_text(json.dumps(progress), "utf-8")
    return out


# -- one shared scan per run, off the loop ---------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_many_askers_share_one_scan_until_it_is_stale() -> None:
    release = threading.Event()
    threads: set[int] = set()

    def scan() -> int:
        threads.add(threading.get_ident())
        release.wait(timeout=30)
        return len(threads)

    clock = Clock()
    shared = Shared(scan, fresh_s=1.0, clock=clock)
    askers = [asyncio.create_task(shared.get()) for _ in range(50)]
    await asyncio.sleep(0.05)
    # While the scan blocks in its thread, the loop is free: this runs.
    assert not any(a.done() for a in askers)
    release.set()
    assert await asyncio.gather(*askers) == [1] * 50
    assert shared.computed == 1 and threading.get_ident() not in threads
    assert await shared.get() == 1 and shared.computed == 1  # still fresh
    clock.now = 1.5
    await shared.get()
    assert shared.computed == 2  # stale: scanned again, once


async def test_a_stream_that_leaves_mid_scan_does_not_cancel_the_others() -> None:
    release = threading.Event()
    shared = Shared(lambda: release.wait(timeout=30) and "listing", fresh_s=1.0)
    leaver, stayer = asyncio.create_task(shared.get()), asyncio.create_task(shared.get())
    await asyncio.sleep(0.05)
    leaver.cancel()
    release.set()
    assert await stayer == "listing" and shared.computed == 1


def test_streams_are_capped_per_client_and_the_slot_comes_back(tmp_path: Path) -> None:
    out = _running(_run(tmp_path))
    app = create_app([out], max_streams=2)
    with serving(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        with (
            http.stream("GET", "/api/runs/run/live") as first,
            http.stream("GET", "/api/runs/run/live") as second,
        ):
            assert (first.status_code, second.status_code) == (200, 200)
            with http.stream("GET", "/api/runs/run/games/g0/stream") as third:
                assert third.status_code == 429
                assert "too many live streams" in json.loads(third.read())["detail"]
            assert http.get("/api/runs").status_code == 200  # the API still answers
        # Both closed: the server notices within a poll or two and frees the slots.
        for _ in range(100):
            with http.stream("GET", "/api/runs/run/live") as again:
                if again.status_code == 200:
                    break
            threading.Event().wait(0.1)
        assert again.status_code == 200


def test_stream_cap_counts_each_client_on_its_own() -> None:
    cap = StreamCap(1)
    assert cap.take("a") and cap.take("b") and not cap.take("a")
    cap.give_back("a")
    assert cap.take("a") and cap.open == {"a": 1, "b": 1}


# -- hostile runs and lobby options -------------------------------------------------------------


def _run(root: Path, models: bool = False) -> Path:
    agents = (
        [AgentSpec(model="mock/schema"), AgentSpec(model="mock/random")]
        if models
        else [AgentSpec(agent="cooperative"), AgentSpec(agent="greedy")]
    )
    specs = [
        GameSpec(
            trace_id=f"g{i}",
            game="negotiation",
            options={"rounds": 2, "talk_turns": 1},
            seed=i,
            agents=agents,
        )
        for i in range(2)
    ]
    out = root / "run"
    run_sync(specs, out)
    return out


def seatless(out: Path) -> Path:
    """A copy of one trace, same task, with its seats emptied by hand."""
    trace = json.loads((out / "traces" / "g0.json").read_text("utf-8"))
    trace.update(trace_id="g0-seatless", seats=[])
    (out / "traces" / "g0-seatless.json").write_text(json.dumps(trace), "utf-8")
    return out


def test_leaderboard_endpoint_with_a_seatless_trace_is_not_a_500(tmp_path: Path) -> None:
    out = seatless(_run(tmp_path, models=True))
    http = TestClient(create_app([out]), raise_server_exceptions=False)
    response = http.get("/api/runs/run/leaderboard")
    assert response.status_code == 200, response.text
    players = {row["player"] for row in response.json()["rows"]}
    assert players == {"mock/schema", "mock/random"}


def test_the_lobby_cannot_point_a_game_at_a_server_folder(tmp_path: Path) -> None:
    hub = PlayHub(tmp_path / "play")
    http = TestClient(create_app([], play=hub))
    response = http.post(
        "/api/play/tables",
        json={"game": "negotiation", "seats": ["human", "greedy"], "options": {"prompts": "/etc"}},
        headers={"x-accord-key": hub.lobby_key},
    )
    assert response.status_code == 400
    detail = response.json()["detail"]
    assert "prompts" in detail and "lobby" in detail
    assert not {"passwd", "hostname", "hosts"} & set(detail.replace(",", " ").split())
    assert not list((tmp_path / "play" / "traces").iterdir())
