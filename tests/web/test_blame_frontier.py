"""The replay page's scrubber marks `accord blame`'s recoverable frontier: the replay route
names the trace event where the blame step begins."""

from __future__ import annotations

import warnings
from pathlib import Path

import accord
from accord.traces.io import read_trace
from accord.web.app import create_app

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=r"Using `httpx` with `starlette.testclient`")
    from fastapi.testclient import TestClient


def test_the_replay_names_the_frontier_step(tmp_path: Path) -> None:
    run = tmp_path / "run"
    accord.run(
        game="negotiation", agents="cooperative,greedy", games=1, seed=1,
        options={"rounds": 3}, out=run,
    )  # fmt: skip
    (path,) = sorted((run / "traces").glob("*.json"))
    trace = read_trace(path)
    client = TestClient(create_app([run]))
    url = f"/api/runs/run/games/{trace.trace_id}/replay"
    assert client.get(url).json()["frontier"] is None  # not blamed yet
    game = accord.blame(run).games[0]
    frontier = client.get(url).json()["frontier"]
    assert frontier is not None and frontier["event"] == game.blame_event
    # The marked step is in the blame step's round, at the first event of that step.
    event = trace.events[frontier["event"]]
    assert event.get("round") == game.blame_round == frontier["round"]
    assert 0 < frontier["event"] < len(trace.events)
