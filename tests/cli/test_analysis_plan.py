"""A locked analysis plan: the experiment's analysis: block is hashed into the run directory
when the run starts, --resume with a changed block is refused naming the change, compare
marks pre-registered and exploratory metrics with Holm within each family, and accord plan
writes such a block."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import yaml
from typer.testing import CliRunner

from accord.analysis.paired_stats import holm
from accord.analysis.power import games_needed
from accord.cli.main import app
from accord.cli.plan_cmd import SEQUENTIAL_MAX
from accord.runner.config import Experiment

runner = CliRunner(env={"COLUMNS": "200"})

EXPERIMENT = """name: locked
defaults: {{game: negotiation, games: 8, options: {{rounds: 2}}}}
batches:
  - {{name: cross, crossplay: [cooperative, greedy]}}
analysis:
  primary: {primary}
  comparison: pairing=cooperative vs cooperative vs pairing=greedy vs greedy
"""


def test_a_locked_plan_is_kept_and_marks_the_comparison(tmp_path: Path) -> None:
    path, out = tmp_path / "study.yaml", tmp_path / "run"
    path.write_text(EXPERIMENT.format(primary="[efficiency]"))
    first = runner.invoke(app, ["run", str(path), "--out", str(out)])
    assert first.exit_code == 0, first.output
    locked = json.loads((out / "analysis_plan.json").read_text())
    assert locked["plan"]["primary"] == ["efficiency"] and len(locked["sha256"]) == 64

    args = ["compare", str(out), "--a", "pairing=cooperative vs cooperative",
            "--b", "pairing=greedy vs greedy", "-f", "json"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    pre = [r for r in rows if r["registered"] == "pre-registered"]
    other = [r for r in rows if r["registered"] == "exploratory"]
    assert [r["metric"] for r in pre] == ["efficiency"] and other
    assert pre[0]["p_holm"] == pre[0]["p"]  # a family of one
    assert [r["p_holm"] for r in other] == holm([r["p"] for r in other])
    table = runner.invoke(app, args[:-2])
    assert "pre-registered" in table.output and "exploratory" in table.output

    from accord.analysis.report import build_report

    build_report([out], out / "report")
    table_csv = (out / "report" / "negotiation-v3" / "comparisons.csv").read_text()
    report_rows = list(csv.DictReader(table_csv.splitlines()))
    marks = {(r["metric"], r["registered"]) for r in report_rows}
    assert ("efficiency", "pre-registered") in marks and all(
        flag == "exploratory" for metric, flag in marks if metric != "efficiency"
    )
    eff = [r for r in report_rows if r["metric"] == "efficiency"]
    assert [float(r["p_holm"]) for r in eff] == holm([float(r["p"]) for r in eff])

    same = runner.invoke(app, ["run", str(path), "--out", str(out), "--resume"])
    assert same.exit_code == 0, same.output
    path.write_text(EXPERIMENT.format(primary="[efficiency, overdraw_rate]"))
    changed = runner.invoke(app, ["run", str(path), "--out", str(out), "--resume"])
    assert changed.exit_code == 2, changed.output
    text = " ".join(changed.output.split())
    assert "changed since the run started: primary (['efficiency'] -> ['efficiency', " in text


def test_plan_writes_an_analysis_block_an_experiment_accepts() -> None:
    args = ["plan", "--detect", "0.05", "--metric", "success_rate", "--sd", "0.2",
            "--analysis-block"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    block = yaml.safe_load(result.stdout)
    exp = Experiment.model_validate({"name": "x", **block})
    assert exp.analysis is not None and exp.analysis.primary == ["success_rate"]
    # No pilot: the unpaired size (games per side) is the fixed design; the stopping rule is
    # tuned to the planned effect and spread and may play twice as many pairs (an
    # anytime-valid sequence pays for its looks with power at any one size).
    needed = games_needed(0.05, 0.2, paired=False)
    stop = exp.analysis.stop
    assert stop is not None and stop.max_pairs == math.ceil(SEQUENTIAL_MAX * needed)
    assert (stop.effect, stop.sd) == (0.05, 0.2)
    assert exp.analysis.max_games == 2 * stop.max_pairs
    bad = runner.invoke(app, ["plan", "--detect", "0.05", "--analysis-block"])
    assert bad.exit_code == 2 and "--analysis-block needs --detect and --metric" in bad.output
