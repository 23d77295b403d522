"""`make run`'s demo (experiments/demo.yaml) shows all three games: each played by the bundled
model and by its reference protocols, and the report covers every game. The model games take
minutes of CPU (tests/e2e plays the bundled model); the reference games are played here."""

from __future__ import annotations

from pathlib import Path

import yaml
from typer.testing import CliRunner

from accord.cli.main import app
from accord.runner.config import expand, load_experiment

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "experiments" / "demo.yaml"
runner = CliRunner(env={"COLUMNS": "200"})


def test_every_game_is_played_by_the_bundled_model_and_by_reference_agents() -> None:
    specs = expand(load_experiment(DEMO))
    games = {s.game.rsplit("-v", 1)[0] for s in specs}
    assert games == {"negotiation", "calendar", "sorting"}
    for game in games:
        mine = [s for s in specs if s.game.startswith(game + "-")]
        assert any(a.model == "local/smollm2" for s in mine for a in s.agents), game
        assert any(all(a.agent is not None for a in s.agents) for s in mine), game
    model_games = [s for s in specs if any(a.model for a in s.agents)]
    assert len(model_games) <= 8, "a few minutes on a laptop: few games of the model"
    assert all(a.max_tokens for s in model_games for a in s.agents if a.model)


def test_the_reference_games_play_and_the_report_covers_every_game(tmp_path: Path) -> None:
    data = yaml.safe_load(DEMO.read_text())
    data["batches"] = [
        b for b in data["batches"] if not any(isinstance(a, dict) for a in b.get("agents") or [])
    ]
    demo = tmp_path / "demo.yaml"
    demo.write_text(yaml.safe_dump(data))
    out = tmp_path / "run"
    result = runner.invoke(app, ["run", str(demo), "--out", str(out), "--report"])
    assert result.exit_code == 0, result.output
    reports = sorted(p.name.rsplit("-v", 1)[0] for p in (out / "report").iterdir() if p.is_dir())
    assert reports == ["calendar", "negotiation", "sorting"]
