"""`accord serve`: the JSON API, the static page, path safety, read-only, and the command."""

from __future__ import annotations

import json
import re
import shutil
import warnings
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from accord.agents.reference import reference_names
from accord.cli.main import app as cli_app
from accord.core.errors import ConfigError
from accord.core.registry import game_ids
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.io import read_trace, write_trace
from accord.web.app import STATIC_DIR, create_app
from accord.web.play import PlayHub

# Starlette deprecates plain httpx for its TestClient in favour of a package we do not ship;
# the client still works, and the warning would otherwise fail collection (warnings are errors).
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=r"Using `httpx` with `starlette.testclient`")
    from fastapi.testclient import TestClient

runner = CliRunner(env={"COLUMNS": "200"})
NEG = [AgentSpec(agent="cooperative"), AgentSpec(agent="greedy")]
PAIRING = {"batch": "b1", "pairing": "cooperative vs greedy"}


def _make_runs(root: Path) -> tuple[Path, Path]:
    """Two runs with the same directory name: every game in one, and one with bad files."""
    first, second = root / "a" / "demo", root / "b" / "demo"
    run_sync(
        [
            GameSpec(
                trace_id="neg-1",
                game="negotiation",
                options={"rounds": 2},
                seed=1,
                agents=NEG,
                labels=PAIRING,
            ),
            GameSpec(
                trace_id="neg-2",
                game="negotiation",
                options={"rounds": 2},
                seed=2,
                agents=NEG,
                labels=PAIRING,
            ),
            GameSpec(
                trace_id="sort", game="sorting", seed=1, agents=[AgentSpec(agent="share-all")] * 3
            ),
            GameSpec(
                trace_id="cal",
                game="calendar",
                seed=1,
                agents=[AgentSpec(agent="oracle-follower")] * 3,
            ),
        ],
        first,
    )
    run_sync(
        [GameSpec(trace_id="neg", game="negotiation", options={"rounds": 1}, seed=3, agents=NEG)],
        second,
    )
    failed = read_trace(second / "traces" / "neg.json").model_copy(
        update={"trace_id": "crashed", "status": "failed", "error": "boom"}
    )
    write_trace(second / "traces", failed)
    (second / "traces" / "broken.json").write_text("{not json", encoding="utf-8")
    return first, second


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return _make_runs(tmp_path_factory.mktemp("web"))


@pytest.fixture(scope="module")
def client(runs: tuple[Path, Path]) -> TestClient:
    return TestClient(create_app(list(runs)))


def _strict_json(text: str) -> Any:
    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in a JSON response")

    return json.loads(text, parse_constant=refuse)


def test_runs_lists_each_directory_with_counts_and_summary(client, runs) -> None:
    response = client.get("/api/runs")
    assert response.status_code == 200
    body = _strict_json(response.text)  # calendar summaries hold NaN on disk
    assert [r["run"] for r in body] == ["demo", "demo-2"]
    first, second = body
    assert first["games"] == len(list((runs[0] / "traces").glob("*.json"))) == 4
    assert (first["complete"], first["failed"], first["unreadable"]) == (4, 0, 0)
    assert first["game_ids"] == ["calendar-v2", "negotiation-v3", "sorting-v3"]
    neg = next(g for g in first["summary"] if g["game_id"] == "negotiation-v3")
    assert (neg["batch"], neg["pairing"], neg["games"]) == ("b1", "cooperative vs greedy", 2)
    assert {"mean", "ci_low", "ci_high", "n"} <= set(neg["metrics"]["efficiency"])
    assert second["games"] == len(list((runs[1] / "traces").glob("*.json"))) == 3
    assert (second["complete"], second["failed"], second["unreadable"]) == (1, 1, 1)


def test_games_has_one_row_per_trace_with_scalar_metrics(client, runs) -> None:
    rows = client.get("/api/runs/demo/games").json()
    assert [r["trace_id"] for r in rows] == sorted(p.stem for p in (runs[0] / "traces").iterdir())
    by_id = {r["trace_id"]: r for r in rows}
    trace = read_trace(runs[0] / "traces" / "neg-1.json")
    row = by_id["neg-1"]
    assert (row["game_id"], row["status"], row["batch"], row["pairing"]) == (
        "negotiation-v3",
        "complete",
        "b1",
        "cooperative vs greedy",
    )
    assert row["players"] == "cooperative vs greedy"
    assert row["events"] == len(trace.events)
    assert row["metrics"]["efficiency"] == trace.metrics["efficiency"]
    assert "detail" in trace.metrics and "detail" not in row["metrics"]  # nested: left out
    for r in rows:
        assert all(not isinstance(v, dict | list) for v in r["metrics"].values())
    statuses = {r["trace_id"]: r["status"] for r in client.get("/api/runs/demo-2/games").json()}
    assert statuses == {"broken": "unreadable", "crashed": "failed", "neg": "complete"}


def test_game_returns_the_whole_trace(client, runs) -> None:
    for tid in ("neg-1", "sort", "cal"):
        response = client.get(f"/api/runs/demo/games/{tid}")
        assert response.status_code == 200
        body = _strict_json(response.text)
        trace = read_trace(runs[0] / "traces" / f"{tid}.json")
        assert body["trace_id"] == tid and len(body["events"]) == len(trace.events)
        assert set(body) == set(trace.model_dump())
    assert client.get("/api/runs/demo/games/neg-1").json() == json.loads(
        read_trace(runs[0] / "traces" / "neg-1.json").model_dump_json()
    )
    bad = client.get("/api/runs/demo-2/games/broken")
    assert bad.status_code == 422 and "broken.json" in bad.json()["detail"]


@pytest.mark.parametrize(
    "url",
    [
        "/api/runs/demo/games/nope",
        "/api/runs/nope/games",
        "/api/runs/nope/games/neg-1",
        "/api/runs/demo/games/summary",  # a JSON file of the run, but not a trace
        "/api/runs/demo/games/..",
        "/api/runs/demo/games/%2e%2e",
        "/api/runs/demo/games/..%2Fsummary",
        "/api/runs/demo/games/..%2F..%2Fdemo%2Fsummary",
        "/api/runs/demo/games/%2E%2E%2F%2E%2E%2Fb%2Fdemo%2Ftraces%2Fneg",
        "/api/runs/..%2Fb%2Fdemo/games/neg",
        "/static/..%2Fapp.py",
        "/static/../app.py",
    ],
)
def test_unknown_ids_and_traversal_are_404(client, url: str) -> None:
    response = client.get(url)
    assert response.status_code == 404, response.text
    assert "trace_id" not in response.text


def test_registered_games_and_reference_agents(client) -> None:
    body = client.get("/api/games").json()
    assert [g["game_id"] for g in body] == game_ids()
    by_id = {g["game_id"]: g["reference_agents"] for g in body}
    assert all(by_id[gid] == reference_names(gid) for gid in by_id)
    assert {"cooperative", "greedy"} <= set(by_id["negotiation-v3"])


def test_index_and_static_assets_with_their_types(client) -> None:
    index = client.get("/")
    assert index.status_code == 200 and index.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in index.headers["content-security-policy"]
    assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', index.text)
    expected = {".js": "javascript", ".css": "text/css"}
    assert {Path(a).suffix for a in assets} == {".css", ".js"}  # app.js and its helpers
    for asset in assets:
        response = client.get(asset)
        assert response.status_code == 200, asset
        assert expected[Path(asset).suffix] in response.headers["content-type"]
    for path in STATIC_DIR.iterdir():  # works offline: nothing fetched from elsewhere
        assert not re.search(r"https?://", path.read_text(encoding="utf-8")), path.name


def test_js_calls_only_endpoints_that_exist(runs, tmp_path: Path) -> None:
    def shape(url: str) -> str:
        return re.sub(r"\$\{[^}]*\}|\{[^}]*\}", "*", url.split("?")[0])

    web = create_app(list(runs), play=PlayHub(tmp_path / "play"))  # with the play routes
    routes = {shape(r.path) for r in web.routes if getattr(r, "path", "").startswith("/api")}
    script = "".join(p.read_text(encoding="utf-8") for p in sorted(STATIC_DIR.glob("*.js")))
    used = {shape(u) for u in re.findall(r"[`\"'](/api/[^`\"']*)[`\"']", script)}
    assert used <= routes, used - routes
    # Every endpoint is used by the page, so the check above covers the whole API.
    assert used == routes


def test_allowed_hosts_refuse_other_host_names(runs) -> None:
    web = create_app(list(runs), allowed_hosts=["127.0.0.1", "localhost"])
    assert TestClient(web, base_url="http://127.0.0.1").get("/api/runs").status_code == 200
    assert TestClient(web, base_url="http://evil.example").get("/api/runs").status_code == 400


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")
    }


def test_new_traces_appear_and_nothing_is_written(runs, tmp_path: Path) -> None:
    root = tmp_path / "copy"
    shutil.copytree(runs[0], root)
    client = TestClient(create_app([root]))
    assert client.get("/api/runs").json()[0]["games"] == 4
    shutil.copy(root / "traces" / "neg-1.json", root / "traces" / "neg-3.json")
    assert client.get("/api/runs").json()[0]["games"] == 5
    assert client.get("/api/runs/copy/games/neg-3").status_code == 200
    before = _snapshot(root)
    for url in [
        "/",
        "/api/runs",
        "/api/games",
        "/api/runs/copy/games",
        "/api/runs/copy/games/cal",
        "/static/app.js",
    ]:
        assert client.get(url).status_code == 200
    assert _snapshot(root) == before


def test_bare_trace_folder_and_duplicate_directory(runs) -> None:
    client = TestClient(create_app([runs[0] / "traces", runs[0], runs[0]]))
    body = client.get("/api/runs").json()
    # The bare folder is named after its run; the same directory twice is served once.
    assert [(r["run"], r["games"]) for r in body] == [("demo", 4), ("demo-2", 4)]
    assert body[0]["summary"] is None and body[1]["summary"] is not None


def test_missing_directory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is not a directory"):
        create_app([tmp_path / "missing"])
    result = runner.invoke(cli_app, ["serve", str(tmp_path / "missing")])
    assert result.exit_code == 2
    assert "is not a directory" in result.output


def test_serve_binds_loopback_by_default(runs, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    import uvicorn

    from accord.cli import serve_cmd

    calls: list[dict[str, Any]] = []
    bound: list[tuple[str, int]] = []

    def bind(host: str, port: int) -> socket.socket:  # no real port is taken by this test
        bound.append((host, port))
        return socket.socket()

    monkeypatch.setattr(serve_cmd, "_bind", bind)
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append({"app": app, **kw}))
    result = runner.invoke(cli_app, ["serve", str(runs[0])])
    assert result.exit_code == 0, result.output
    assert (calls[0]["host"], calls[0]["port"]) == ("127.0.0.1", 8765) == bound[0]
    assert "http://127.0.0.1:8765/" in result.output
    # Bound to loopback, the app refuses requests addressed to other host names.
    served = TestClient(calls[0]["app"], base_url="http://attacker.example")
    assert served.get("/api/runs").status_code == 400
    result = runner.invoke(cli_app, ["serve", str(runs[0]), "--host", "0.0.0.0", "--port", "9"])
    assert result.exit_code == 0 and (calls[1]["host"], calls[1]["port"]) == ("0.0.0.0", 9)


def test_64_bit_seeds_reach_the_browser_exactly(tmp_path: Path) -> None:
    from accord.runner.run import run_sync
    from accord.runner.specs import AgentSpec, GameSpec

    seed = 696801328196372095  # above 2**53: a JavaScript number would show ...372100
    spec = GameSpec(
        trace_id="big",
        game="negotiation",
        options={"rounds": 1},
        seed=seed,
        agents=[AgentSpec(agent="cooperative"), AgentSpec(agent="greedy")],
    )
    run_sync([spec], tmp_path / "run")
    web = TestClient(create_app([tmp_path / "run"]))
    (run,) = _strict_json(web.get("/api/runs").text)
    (row,) = _strict_json(web.get(f"/api/runs/{run['run']}/games").text)
    assert row["seed"] == str(seed)
    trace = _strict_json(web.get(f"/api/runs/{run['run']}/games/big").text)
    assert trace["seed"] == str(seed)
    # Small integers stay numbers.
    assert isinstance(row["events"], int)
