"""The API behind a reproduction directory's page: reproduction.md as text, its figures as PNG,
nothing else reachable (links not followed, names only from the listing); the games listing's
metric labels and the summary's unknown cost."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from accord.runner.results import summarize
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.io import read_trace
from accord.web.app import create_app

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 32


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    spec = GameSpec(
        trace_id="g0",
        game="negotiation",
        options={"rounds": 1, "talk_turns": 1},
        seed=0,
        agents=[AgentSpec(agent="cooperative"), AgentSpec(agent="greedy")],
    )
    plain, repro = tmp_path / "plain", tmp_path / "repro"
    run_sync([spec], plain)
    run_sync([spec], repro)
    (repro / "reproduction.md").write_text("# Reproduction\n\n| row | in CI |\n|---|---|\n")
    (repro / "reproduction").mkdir()
    (repro / "reproduction" / "table2.png").write_bytes(PNG)
    (tmp_path / "secret.png").write_bytes(PNG)
    os.symlink(tmp_path / "secret.png", repro / "reproduction" / "linked.png")
    return plain, repro


def test_a_reproduction_serves_its_write_up_and_figures_only(runs: tuple[Path, Path]) -> None:
    plain, repro = runs
    client = TestClient(create_app([plain, repro]))
    got = client.get("/api/runs/repro/reproduction").json()
    assert got["markdown"].startswith("# Reproduction")
    assert got["figures"] == ["table2.png"]  # the link is not listed
    figure = client.get("/api/runs/repro/reproduction/table2.png")
    assert figure.status_code == 200 and figure.content == PNG
    for name in ("linked.png", "..%2Fsecret.png", "%2E%2E%2Freproduction.md", "x.png"):
        assert client.get(f"/api/runs/repro/reproduction/{name}").status_code == 404, name
    assert client.get("/api/runs/plain/reproduction").json() == {"markdown": None, "figures": []}
    assert client.get("/api/runs/nope/reproduction").status_code == 404


def test_games_carry_the_summary_labels_and_units(runs: tuple[Path, Path]) -> None:
    games = TestClient(create_app([runs[0]])).get("/api/games").json()
    negotiation = next(g for g in games if g["game_id"].startswith("negotiation"))
    efficiency = next(m for m in negotiation["metrics"] if m["key"] == "efficiency")
    assert efficiency["label"] == "efficiency" and efficiency["percent"] is True


def test_the_summary_says_when_a_cost_is_unknown(runs: tuple[Path, Path]) -> None:
    plain, _ = runs
    trace = read_trace(plain / "traces" / "g0.json")
    assert summarize([trace])["groups"][0]["cost_known"] is True
    total = trace.usage["total"].model_copy(update={"cost_known": False})
    priceless = trace.model_copy(update={"usage": {**trace.usage, "total": total}})
    assert summarize([trace, priceless])["groups"][0]["cost_known"] is False
