"""`accord compare`: the calendar demo (paired CIs narrower than unpaired, both printed),
sides chosen inside one run, and bad input as one clear line with exit code 2."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.runner.config import Batch, Defaults, Experiment, expand
from accord.runner.run import run_sync

runner = CliRunner(env={"COLUMNS": "200"})


def play(out: Path, **defaults: object) -> Path:
    run_sync(expand(Experiment(name=out.name, defaults=Defaults(**defaults))), out)  # type: ignore[arg-type]
    return out


@pytest.fixture(scope="module")
def calendar_runs(
    calendar_protocol_runs: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path]:
    """IMAP and DSM-Welfare on the canonical suite (played once per session, tests/conftest.py),
    copied here so nothing this module runs can touch the shared folders."""
    root = tmp_path_factory.mktemp("cal")
    imap, dsm = calendar_protocol_runs
    return shutil.copytree(imap, root / "imap"), shutil.copytree(dsm, root / "dsm")


def test_two_protocols_on_one_suite_pair_with_narrower_cis(calendar_runs) -> None:
    a, b = calendar_runs
    result = runner.invoke(app, ["compare", str(a), str(b), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["mode"] == "paired" and data["matched"] == 90
    assert data["unmatched_a"] == data["unmatched_b"] == []
    rows = data["rows"]
    assert {r["metric"] for r in rows} >= {"adjusted_excess", "uniform_excess_cost"}
    widths = [
        (r["paired_ci_high"] - r["paired_ci_low"], r["unpaired_ci_high"] - r["unpaired_ci_low"])
        for r in rows
    ]
    # Pairing removes the between-task spread: narrower on all metrics but at most one (VPS,
    # whose per-task values barely move together across the two protocols), and in total.
    assert sum(p <= u + 1e-9 for p, u in widths) >= len(widths) - 1
    assert sum(p for p, _ in widths) < 0.9 * sum(u for _, u in widths)
    excess = next(r for r in rows if r["metric"] == "adjusted_excess")
    # DSM-Welfare's excess is higher, and the paired CI excludes 0 where the unpaired does not;
    # Holm's correction over the ten metrics makes the adjusted p larger than the raw one.
    assert excess["diff"] > 0 and excess["paired_ci_low"] > 0 >= excess["unpaired_ci_low"]
    assert excess["p"] < 0.05 and excess["p_holm"] > excess["p"]

    table = runner.invoke(app, ["compare", str(a), str(b)])
    assert table.exit_code == 0, table.output
    assert "paired CI" in table.output and "unpaired CI" in table.output
    assert "90 scenarios played on both sides" in table.output
    assert "paired narrower than unpaired on" in table.output


def test_pairings_of_one_run_are_compared_on_shared_seeds(tmp_path: Path) -> None:
    exp = Experiment(
        name="x",
        defaults=Defaults(game="negotiation", games=8, options={"rounds": 2}),
        batches=[Batch(name="cross", crossplay=["cooperative", "greedy"])],
    )
    run_sync(expand(exp), tmp_path / "run")
    result = runner.invoke(
        app,
        ["compare", str(tmp_path / "run"), "--a", "pairing=cooperative vs cooperative",
         "--b", "pairing=greedy vs greedy", "-f", "json", "-m", "efficiency"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["matched"] == 8 and data["matched_on"] == "seed, scenario and setup"
    (row,) = data["rows"]
    assert row["mode"] == "paired" and row["pairs"] == 8 and row["p_exact"]


@pytest.fixture(scope="module")
def negotiation_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("neg")
    opts = {"rounds": 2}
    return {
        "a": play(root / "a", game="negotiation", games=3, seed=0, agents=["cooperative"] * 2,
                  options=opts),
        "other_seeds": play(root / "o", game="negotiation", games=3, seed=99,
                            agents=["greedy"] * 2, options=opts),
        "one": play(root / "one", game="negotiation", games=1, agents=["greedy"] * 2,
                    options=opts),
    }  # fmt: skip


def _error(args: list[str]) -> str:
    result = runner.invoke(app, ["compare", *args])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines[0].startswith("error:")
    return " ".join(result.output.split())


def test_bad_input_is_one_clear_line(negotiation_runs, calendar_runs) -> None:
    runs = {k: str(v) for k, v in negotiation_runs.items()}
    cal = str(calendar_runs[0])
    assert "compare runs of the same game" in _error([runs["a"], cal])
    assert "share no scenario" in _error([runs["a"], runs["other_seeds"]])
    assert "--unpaired" in _error([runs["a"], runs["other_seeds"]])
    assert "side B has 1 complete game" in _error([runs["a"], runs["one"]])
    assert "give --a and --b" in _error([runs["a"]])
    assert "key=value" in _error([runs["a"], "--a", "colour=red", "--b", "batch=main"])
    assert "no game on either side reports 'nope'" in _error(
        [runs["a"], runs["other_seeds"], "--metric", "nope"]
    )
    assert "not a run directory" in _error([runs["a"], str(Path(runs["a"]) / "missing")])


def test_unpaired_on_request_says_so(negotiation_runs) -> None:
    a, b = str(negotiation_runs["a"]), str(negotiation_runs["other_seeds"])
    result = runner.invoke(app, ["compare", a, b, "--unpaired"])
    assert result.exit_code == 0, result.output
    assert "comparison: unpaired" in result.output
    assert "unpaired: asked for (--unpaired)" in result.output
    assert "unmatched games of A (3" in result.output


def test_failed_or_unreadable_games_are_counted_not_dropped_silently(
    negotiation_runs, tmp_path: Path
) -> None:
    copy = tmp_path / "a"
    shutil.copytree(negotiation_runs["a"], copy)
    (copy / "traces" / "broken.json").write_text("{not json")
    same = runner.invoke(app, ["compare", str(copy), str(negotiation_runs["a"])])
    assert same.exit_code == 2  # the same three games on both sides: nothing to compare
    assert "side A and side B are the same 3 games" in " ".join(same.output.split())
    other = negotiation_runs["other_seeds"]
    args = ["compare", str(copy), str(other), "--metric", "efficiency", "--unpaired"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert f"left out: failed or unreadable games (1 in {copy}, 0 in" in result.output
    assert "not compared in A (1): broken (unreadable)" in " ".join(result.output.split())
