"""``/api/runs/RUN/games/TRACE/replay`` and ``/api/side``: the replay view as JSON, two games
stepped together with their metrics' differences, and what cannot be shown refused."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.io import read_trace
from accord.web.app import create_app

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=r"Using `httpx` with `starlette.testclient`")
    from fastapi.testclient import TestClient

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def test_replay_and_side_by_side(tmp_path: Path) -> None:
    run = tmp_path / "demo"
    options = {"rounds": 2}
    run_sync(
        [
            GameSpec(trace_id=f"g{i}", game="negotiation", options=options, seed=7,
                     agents=[AgentSpec(agent=a), AgentSpec(agent=b)])
            for i, (a, b) in enumerate([("cooperative", "cooperative"), ("greedy", "equal-split")])
        ],
        run,
    )  # fmt: skip
    shutil.copy(GOLDEN / "sorting-share-all-broadcast.json", run / "traces" / "sort.json")
    client = TestClient(create_app([run]))

    res = client.get("/api/runs/demo/games/g0/replay", headers={"Accept-Encoding": "gzip"})
    assert res.status_code == 200
    assert res.headers["content-encoding"] == "gzip"  # read back unzipped by the client
    assert int(res.headers["content-length"]) < len(res.content) / 3
    view = res.json()["replay"]
    trace = read_trace(run / "traces" / "g0.json")
    assert len(view["steps"]) == len(trace.events)

    res = client.get(
        "/api/side", params={"a_run": "demo", "a_trace": "g0", "b_run": "demo", "b_trace": "g1"}
    )
    assert res.status_code == 200
    data = res.json()
    assert data["same_scenario"] is True
    a, b = trace, read_trace(run / "traces" / "g1.json")
    assert {p[0] for p in data["pairs"]} == set(range(len(a.events)))
    assert {p[1] for p in data["pairs"]} == set(range(len(b.events)))
    rows = {r["metric"]: r for r in data["metrics"]}
    assert rows["efficiency"]["diff"] == b.metrics["efficiency"] - a.metrics["efficiency"]

    res = client.get(
        "/api/side", params={"a_run": "demo", "a_trace": "g0", "b_run": "demo", "b_trace": "sort"}
    )
    assert res.status_code == 422
    assert "same game id" in res.json()["detail"]
    assert client.get("/api/runs/demo/games/nope/replay").status_code == 404
    assert client.get("/api/runs/demo/games/..%2Fsummary/replay").status_code == 404
