"""The run page's control buttons: each POST is refused without the run's control token and
works with it; the token is made at run start and kept out of the run's files; a run kept in a
store is controlled in the store and shows its new traces while the server runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import accord
from accord.runner.control import TOKEN_NAME, history, read_token
from accord.store import RunStore, local_view
from accord.store.mirror import refresh_views
from accord.web.app import create_app
from accord.web.ctl_routes import TOKEN_HEADER

ASKS: list[dict[str, Any]] = [
    {"action": "pause"},
    {"action": "resume"},
    {"action": "concurrency", "value": 3},
    {"action": "stop", "drain": True},
    {"action": "stop"},
]


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    out = tmp_path / "demo"
    accord.run("negotiation", agents=["cooperative", "greedy"], games=2, out=out, live=False)
    return out


def client(*dirs: Path) -> TestClient:
    return TestClient(create_app(list(dirs), allowed_hosts=["testserver"]))


def asked(run: Path | str) -> list[str]:
    return [r["action"] for r in history(run) if "action" in r]


@pytest.mark.parametrize("ask", ASKS, ids=[a["action"] + ("-drain" if a.get("drain") else "")
                                           for a in ASKS])  # fmt: skip
def test_each_route_is_refused_without_the_token_and_works_with_it(
    run_dir: Path, ask: dict[str, Any]
) -> None:
    web = client(run_dir)
    url = "/api/runs/demo/control"
    state = web.get(url).json()
    assert state["controllable"] and state["token"] == read_token(run_dir)
    assert web.post(url, json=ask).status_code == 403
    assert web.post(url, json=ask, headers={TOKEN_HEADER: "not-the-token"}).status_code == 403
    assert asked(run_dir) == [], "a refused request records nothing"
    ok = web.post(url, json=ask, headers={TOKEN_HEADER: state["token"]})
    assert ok.status_code == 200, ok.text
    assert ok.json()["action"] == ask["action"] and asked(run_dir) == [ask["action"]]
    assert ok.json()["value"] == ask.get("value") and ok.json()["drain"] == ask.get("drain", False)


def test_another_host_name_is_refused_before_the_token(run_dir: Path) -> None:
    web = client(run_dir)
    token = web.get("/api/runs/demo/control").json()["token"]
    other = {"Host": "evil.example", TOKEN_HEADER: token}
    assert web.post("/api/runs/demo/control", json=ASKS[0], headers=other).status_code == 400
    assert asked(run_dir) == []


def test_bad_asks_and_runs_without_a_token(run_dir: Path, tmp_path: Path) -> None:
    web = client(run_dir)
    token = web.get("/api/runs/demo/control").json()["token"]
    head = {TOKEN_HEADER: token}
    url = "/api/runs/demo/control"
    assert web.post(url, json={"action": "concurrency"}, headers=head).status_code == 400
    assert web.post(url, json={"action": "explode"}, headers=head).status_code == 422
    assert web.post(url, json={"action": "pause", "drain": True}, headers=head).status_code == 400
    assert asked(run_dir) == []
    # A folder of traces no run started in has no token: nothing can be sent to it.
    bare = tmp_path / "copied"
    (bare / "traces").mkdir(parents=True)
    for path in (run_dir / "traces").glob("*.json"):
        (bare / "traces" / path.name).write_bytes(path.read_bytes())
    (bare / "experiment.json").write_bytes((run_dir / "experiment.json").read_bytes())
    web = client(bare)
    assert web.get("/api/runs/copied/control").json() == {
        "controllable": False, "token": None, "history": []}  # fmt: skip
    assert web.post("/api/runs/copied/control", json=ASKS[0], headers=head).status_code == 403


def test_the_token_is_new_each_start_and_in_no_file_of_the_run(run_dir: Path) -> None:
    first = read_token(run_dir)
    assert first and (run_dir / TOKEN_NAME).stat().st_mode & 0o077 == 0, "owner only"
    accord.run("negotiation", agents=["cooperative", "greedy"], games=2, out=run_dir,
               resume=True, live=False)  # fmt: skip
    second = read_token(run_dir)
    assert second and second != first
    for path in run_dir.rglob("*"):
        if path.is_file() and path != run_dir / TOKEN_NAME:
            assert second.encode() not in path.read_bytes(), path


def test_a_stored_run_is_controlled_in_its_store_and_shows_new_games(bucket: str) -> None:
    loc = f"{bucket}/runs/web"
    plan = {"agents": ["cooperative", "greedy"], "games": 2, "out": loc, "live": False}
    accord.run("negotiation", **plan)  # type: ignore[arg-type]
    store = RunStore(loc)
    first, second = (e.name for e in store.list("traces"))
    store.delete(second)  # as if the run were still playing its second game
    view = local_view(loc)
    assert not (view / TOKEN_NAME).exists(), "the token is never copied for readers"
    web = client(view)
    run_id = web.get("/api/runs").json()[0]["run"]
    url = f"/api/runs/{run_id}/control"
    token = web.get(url).json()["token"]
    assert token and token.encode() == store.read(TOKEN_NAME)
    assert web.post(url, json=ASKS[0]).status_code == 403
    assert web.post(url, json=ASKS[0], headers={TOKEN_HEADER: token}).status_code == 200
    assert asked(loc) == ["pause"], "the record is in the store, where every driver reads it"
    assert [r["trace_id"] + ".json" for r in web.get(f"/api/runs/{run_id}/games").json()] == [
        first.removeprefix("traces/")
    ]
    # The run goes on: the server shows the game it adds, and its new summary.
    accord.run("negotiation", resume=True, **plan)  # type: ignore[arg-type]
    assert refresh_views() >= 1  # the new trace (the summary says as before: 2 complete)
    assert len(web.get(f"/api/runs/{run_id}/games").json()) == 2
    assert json.loads((view / "summary.json").read_text())["complete"] == 2
