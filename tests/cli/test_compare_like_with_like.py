"""`accord compare` pairs like with like, for every built-in game: a cross-play run against a
copy of itself without one pairing differs by exactly 0 and lists the games it left
unmatched; a run against itself is refused; duplicates, failed and unreadable games are named
in the JSON; sides that differ in more than the compared factor are refused with the
difference named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.runner.config import Batch, Defaults, Experiment, expand
from accord.runner.run import run_sync

runner = CliRunner(env={"COLUMNS": "200"})

CROSSPLAY: dict[str, dict[str, Any]] = {
    "negotiation": {
        "agents": ["cooperative", "greedy", "equal-split"],
        "options": {"rounds": 2},
    },
    "sorting": {"agents": ["share-all", "local-sort"], "options": {"n": 2}},
    "calendar": {
        "agents": ["imap", "dsm-welfare", "sd-map"],
        "options": {"num_agents": 2, "participants_per_meeting": 2, "num_meetings": 2},
    },
}


def crossplay_run(root: Path, game: str, games: int = 4) -> Path:
    spec = CROSSPLAY[game]
    exp = Experiment(
        name=f"cross-{game}",
        defaults=Defaults(game=game, games=games, options=spec["options"]),
        batches=[Batch(name="cross", crossplay=spec["agents"])],
    )
    out = root / game
    run_sync(expand(exp), out)
    return out


def traces_of(run: Path) -> dict[str, dict[str, Any]]:
    return {p.stem: json.loads(p.read_text()) for p in sorted((run / "traces").glob("*.json"))}


def invoke_json(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["compare", *args, "--format", "json", "--all-metrics"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def error_line(*args: str) -> str:
    result = runner.invoke(app, ["compare", *args])
    assert result.exit_code == 2, result.output
    assert result.output.lstrip().startswith("error:")
    return " ".join(result.output.split())


@pytest.fixture(scope="module", params=sorted(CROSSPLAY))
def crossplay(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return crossplay_run(tmp_path_factory.mktemp("cross"), str(request.param))


def test_a_copy_without_one_pairing_differs_by_exactly_zero(
    crossplay: Path, tmp_path: Path
) -> None:
    games = traces_of(crossplay)
    assert all(t["status"] == "complete" for t in games.values())
    first = sorted({t["run"]["pairing"] for t in games.values()})[0]
    dropped = sorted(k for k, t in games.items() if t["run"]["pairing"] == first)
    copy = tmp_path / "copy"
    shutil.copytree(crossplay, copy)
    for tid in dropped:
        (copy / "traces" / f"{tid}.json").unlink()
    data = invoke_json(str(crossplay), str(copy))
    kept = len(games) - len(dropped)
    assert data["mode"] == "paired" and data["matched"] == kept
    assert data["unmatched_a"] == dropped and data["unmatched_b"] == []
    assert data["factor"] == [] and data["duplicates_a"] == data["duplicates_b"] == []
    assert data["rows"], "some metric varies between the pairings"
    for row in data["rows"]:
        assert row["pairs"] == kept, row
        assert row["diff"] == 0.0 and row["paired_ci_low"] == row["paired_ci_high"] == 0.0, row
        assert row["p"] == 1.0, row


def test_a_run_against_itself_is_refused(crossplay: Path, tmp_path: Path) -> None:
    same = "side A and side B are the same"
    assert same in error_line(str(crossplay), str(crossplay))
    assert same in error_line(str(crossplay), "--a", "batch=cross", "--b", "batch=cross")
    copy = tmp_path / "copy"
    shutil.copytree(crossplay, copy)
    assert same in error_line(str(crossplay), str(copy))


def test_duplicates_failed_and_unreadable_games_are_named_in_json(
    crossplay: Path, tmp_path: Path
) -> None:
    games = traces_of(crossplay)
    copy = tmp_path / "copy"
    shutil.copytree(crossplay, copy)
    first, second = sorted(games)[:2]
    (copy / "traces" / f"{second}.json").unlink()  # the sides differ: not a self-comparison
    shutil.copy(copy / "traces" / f"{first}.json", copy / "traces" / "zz-copy.json")
    (copy / "traces" / "broken.json").write_text("{not json")
    failed = dict(games[sorted(games)[-1]], trace_id="zz-failed", status="failed", error="boom")
    (copy / "traces" / "zz-failed.json").write_text(json.dumps(failed))
    data = invoke_json(str(crossplay), str(copy))
    assert data["duplicates_b"] == [{"trace_id": "zz-copy", "copy_of": first}]
    assert {(f["trace"], f["status"]) for f in data["failed_b"]} == {
        ("broken", "unreadable"),
        ("zz-failed", "failed"),
    }
    assert data["unmatched_a"] == [second]
    for row in data["rows"]:
        assert row["diff"] == 0.0 and row["pairs"] == len(games) - 1
    table = runner.invoke(app, ["compare", str(crossplay), str(copy), "--all-metrics"])
    assert table.exit_code == 0, table.output
    text = " ".join(table.output.split())
    assert "exact duplicates in B (1, left out): zz-copy (= " in text
    assert "not compared in B (2): broken (unreadable), zz-failed (failed)" in text


def test_pairings_of_one_cross_play_are_never_pooled(tmp_path: Path) -> None:
    """The case of the report: six pairings on three seeds; on main the copy without the
    cooperative self-play read -0.107 "paired" over 3 "matched" scenarios."""
    run = crossplay_run(tmp_path, "negotiation", games=3)
    games = traces_of(run)
    assert len(games) == 18
    copy = tmp_path / "copy"
    shutil.copytree(run, copy)
    pairing = "cooperative vs cooperative"
    coop = sorted(k for k, t in games.items() if t["run"]["pairing"] == pairing)
    for tid in coop:
        (copy / "traces" / f"{tid}.json").unlink()
    data = invoke_json(str(run), str(copy), "--metric", "efficiency")
    (row,) = data["rows"]
    assert row["diff"] == 0.0 and row["pairs"] == 15 and data["unmatched_a"] == coop


def test_sides_that_differ_in_more_than_the_factor_are_refused(tmp_path: Path) -> None:
    def play(name: str, agent: str, rounds: int) -> Path:
        exp = Experiment(
            name="x",
            defaults=Defaults(
                game="negotiation", games=2, agents=[agent], options={"rounds": rounds}
            ),
        )
        run_sync(expand(exp), tmp_path / name)
        return tmp_path / name

    a, b = play("a", "cooperative", 2), play("b", "greedy", 3)
    line = error_line(str(a), str(b))
    assert "differ in more than the compared factor" in line
    assert "options.rounds (2 vs 3)" in line and "seat 0 (cooperative vs greedy)" in line


def test_a_model_selection_pairs_the_other_seat_within_its_cell(tmp_path: Path) -> None:
    """model=X in a cross-play: X's seat is the factor, the other seat must be the same."""
    run = crossplay_run(tmp_path, "negotiation", games=2)
    data = invoke_json(str(run), "--a", "model=cooperative", "--b", "model=greedy")
    # cooperative vs cooperative <-> greedy vs greedy (both seats compared), cooperative vs
    # equal-split <-> greedy vs equal-split; cooperative vs greedy has no counterpart.
    assert data["matched"] == 4
    assert len(data["unmatched_a"]) == 2 and len(data["unmatched_b"]) == 2
