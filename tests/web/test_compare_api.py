"""`/api/compare`: the paired comparison as JSON, and sides that cannot be compared as a 422
with the command's one-line reason."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

from accord.runner.config import Defaults, Experiment, expand
from accord.runner.run import run_sync
from accord.web.app import create_app

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=r"Using `httpx` with `starlette.testclient`")
    from fastapi.testclient import TestClient


def play(out: Path, games: int, agent: str) -> None:
    exp = Experiment(
        name=out.name,
        defaults=Defaults(game="negotiation", games=games, agents=[agent] * 2,
                          options={"rounds": 2}),
    )  # fmt: skip
    run_sync(expand(exp), out)


def test_api_pairs_runs_and_refuses_what_cannot_be_compared(tmp_path: Path) -> None:
    play(tmp_path / "coop", 8, "cooperative")
    play(tmp_path / "greedy", 8, "greedy")
    play(tmp_path / "single", 1, "greedy")
    client = TestClient(create_app([tmp_path / n for n in ("coop", "greedy", "single")]))
    res = client.get("/api/compare", params={"a": "coop", "b": "greedy"})
    assert res.status_code == 200
    data = json.loads(res.text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    assert data["mode"] == "paired" and data["matched"] == 8
    assert data["a"]["games"] == 8 and data["unmatched_a"] == []
    assert {r["mode"] for r in data["rows"]} == {"paired"}
    assert all("p_holm" in r and "unpaired_ci_low" in r for r in data["rows"])
    res = client.get("/api/compare", params={"a": "coop", "b": "single"})
    assert res.status_code == 422
    assert "side B has 1 complete game" in res.json()["detail"]
