"""`repeats: k`: the same scenario k times (distinct trace ids, resume-safe), model seats
sampling anew each time; `accord plan --from` then prints the run's noise floor."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from accord.cli.main import app
from accord.runner.config import expand, load_experiment
from accord.runner.run import run_sync
from accord.traces.io import iter_traces

runner = CliRunner(env={"COLUMNS": "200"})

EXPERIMENT = """
name: noise
defaults:
  game: negotiation
  games: 3
  repeats: 5
  seed: 2
  agents: [mock/schema, mock/schema]
  options: {rounds: 2, talk_turns: 1}
"""


def test_repeats_play_one_scenario_k_times_with_distinct_ids(tmp_path: Path) -> None:
    (tmp_path / "exp.yaml").write_text(EXPERIMENT)
    specs = expand(load_experiment(tmp_path / "exp.yaml"))
    assert len(specs) == 3 * 5 and len({s.trace_id for s in specs}) == 15
    by_game: dict[int, list[str]] = {}
    for s in specs:
        by_game.setdefault(s.labels["repeat"], []).append(s.trace_id)
        assert s.trace_id.endswith(f"-r{s.labels['replica']}")
    for rep, ids in by_game.items():
        same = [s for s in specs if s.labels["repeat"] == rep]
        assert len({s.seed for s in same}) == 1 and len(ids) == 5
    assert len({s.seed for s in specs}) == 3
    # Without repeats nothing changes: no suffix, no label.
    plain = expand(load_experiment(_write(tmp_path, EXPERIMENT.replace("  repeats: 5\n", ""))))
    assert [s.trace_id for s in plain] == ["main-p00-g000", "main-p00-g001", "main-p00-g002"]
    assert "replica" not in plain[0].labels


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "other.yaml"
    path.write_text(text)
    return path


def test_repeated_run_resumes_and_prints_its_noise_floor(tmp_path: Path) -> None:
    (tmp_path / "exp.yaml").write_text(EXPERIMENT)
    specs = expand(load_experiment(tmp_path / "exp.yaml"))
    out = tmp_path / "run"
    run_sync(specs, out)
    before = {t.trace_id: t.metrics for t in iter_traces(out / "traces")}
    lost = ["main-p00-g001-r2", "main-p00-g002-r4"]
    for tid in lost:
        (out / "traces" / f"{tid}.json").unlink()
    report = run_sync(specs, out, resume=True)
    assert report.played == 2
    traces = list(iter_traces(out / "traces"))
    # A replayed repeat is the same game: same scenario, same sampling seed, same result.
    assert {t.trace_id: t.metrics for t in traces} == before
    assert len(traces) == 15 and all(t.status == "complete" for t in traces)
    # Same scenario in every repeat of a game, but the mock model samples anew each time.
    first = [t for t in traces if t.run["repeat"] == 0]
    assert len({str(t.scenario) for t in first}) == 1
    assert len({str(t.metrics) for t in traces}) > 3

    result = runner.invoke(app, ["plan", "--from", str(out)])
    assert result.exit_code == 0, result.output
    assert "Noise floor" in result.output and "efficiency" in result.output
    row = next(line for line in result.output.splitlines() if "│ efficiency" in line)
    cells = [c.strip() for c in row.split("│")[1:-1]]
    # game, metric, games, repeated scenarios, k, within SD, flips, SD, MDD paired, unpaired
    assert cells[2:5] == ["15", "3", "5"]
    assert float(cells[5]) > 0 and cells[6].endswith("%") and float(cells[9]) > 0

    result = runner.invoke(
        app, ["plan", "--from", str(out), "--detect", "0.05", "--metric", "efficiency", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert '"games_per_side_unpaired"' in result.output and '"scenarios_paired"' in result.output
