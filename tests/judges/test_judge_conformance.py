"""Every judge a game declares is held to one rule (`accord.testing.check_judges`): a judge
that judged nothing reports an error, so `accord judge` exits 1, and leaves its columns
empty (never 0). Each game's columns are checked here with the judge that never answers."""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

import accord.testing.judges as judge_checks
from accord.cli.main import app
from accord.core.gameinfo import JudgeResult, JudgeRun, info_for
from accord.core.registry import game_ids
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.testing.judges import check_judges


@pytest.mark.parametrize("game_id", game_ids())
def test_every_declared_judge_fails_when_it_judged_nothing(game_id: str) -> None:
    assert check_judges(game_id) == len(info_for(game_id).judges)


def test_the_check_catches_a_judge_that_passes_an_empty_audit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    info = info_for("sorting")

    def lenient(traces: list[object], job: JudgeRun) -> JudgeResult:
        job.say("Judged 0 games.")
        return JudgeResult(0)

    broken = replace(info, judges=(replace(info.judges[0], run=lenient),))
    monkeypatch.setattr(judge_checks, "info_for", lambda _name: broken)
    with pytest.raises(AssertionError, match="judged nothing but returned no error"):
        check_judges("sorting-v3")


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _run(tmp_path: Path, game: str, seats: int, **options: object) -> Path:
    run_dir = tmp_path / "run"
    specs = [
        GameSpec(
            trace_id=f"g{seed}",
            game=game,
            seed=seed,
            options=dict(options),
            agents=[AgentSpec(model="mock/schema")] * seats,
        )
        for seed in range(2)
    ]
    run_sync(specs, run_dir)
    return run_dir


def test_calendar_judge_that_judged_nothing_exits_1_with_empty_judge_columns(
    tmp_path: Path,
) -> None:
    run_dir = _run(tmp_path, "calendar", 3)
    result = CliRunner().invoke(app, ["judge", str(run_dir), "--model", "mock/echo"])
    assert result.exit_code == 1, result.output
    assert "judged 0 of" in result.output and "replies refused:" in result.output
    out = run_dir / "judge"
    (row,) = _rows(out / "table16.csv")
    assert row["judged_cases"] == "0" and int(row["games"]) == 2
    for column in (
        "beliefs",
        "raw_judge_vps",
        "calibrated_judge_vps",
        "judge_excess_calibrated_vps",
    ):
        assert row[column] == "", (column, row[column])
    assert row["primary_vps"] != ""  # not a judge number: computed from the traces
    judge_row = next(r for r in _rows(out / "precision.csv") if r["rater"] == "judge")
    assert judge_row["nonzero"] == judge_row["precision"] == ""
    cases = (out / "judge_cases.jsonl").read_text(encoding="utf-8").splitlines()
    assert cases and all('"reason": "' in line for line in cases)


def test_negotiation_judge_that_judged_nothing_leaves_prevalence_empty(tmp_path: Path) -> None:
    run_dir = _run(tmp_path, "negotiation", 2, rounds=1)
    result = CliRunner().invoke(app, ["judge", str(run_dir), "--model", "mock/echo"])
    assert result.exit_code == 1, result.output
    rows = _rows(run_dir / "judge" / "prevalence.csv")
    assert rows and all(r["rounds"] == "" and r["all_pct"] == "" for r in rows)


def test_sorting_judge_that_judged_nothing_exits_1(tmp_path: Path) -> None:
    run_dir = _run(tmp_path, "sorting", 3, n=3, k=2, mode="desc", backend="p2p")
    result = CliRunner().invoke(app, ["judge", str(run_dir), "--model", "mock/echo"])
    assert result.exit_code == 1, result.output
    assert "judged 0 of" in result.output and "replies refused:" in result.output
    rows = _rows(run_dir / "judge" / "conventions.csv")
    assert rows and all(r["judged"] == "0" for r in rows)
    assert all(r["convention misalignment %"] == "–" for r in rows)
