"""`accord report` for sorting: Tables 1-3, Figure 2, cost and tasks (MAS-Bench §5, App. C)."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from accord.analysis.report import build_report
from accord.cli.main import app
from accord.games.sorting.report import figure2_data, game_row, table1, table2, table3
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec


def specs() -> list[GameSpec]:
    out = []
    for i, (agent, backend, n, k, mode, cond) in enumerate(
        [
            ("share-all", "broadcast", 1, 1, "asc", "base"),
            ("share-all", "kv", 3, 2, "desc", "camoc"),
            ("share-all", "p2p", 3, 1, "random", "base"),
            ("local-sort", "broadcast", 3, 2, "random", "base"),
            ("local-sort", "broadcast", 3, 1, "asc", "base"),
            ("local-sort", "kv", 1, 2, "desc", "camoc"),
        ]
    ):
        opts = {"n": n, "k": k, "backend": backend, "mode": mode, "condition": cond}
        out.append(
            GameSpec(
                trace_id=f"g{i}",
                game="sorting",
                seed=i,
                options=opts,
                agents=[AgentSpec(agent=agent)] * n,
            )
        )
    out.append(
        GameSpec(
            trace_id="max",
            game="sorting",
            seed=9,
            options={"n": 2, "task": "max"},
            agents=[AgentSpec(agent="share-all")] * 2,
        )
    )
    return out


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sorting-run")
    run_sync(specs(), out, concurrency=4)
    return out


def read_csv(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_accord_report_writes_every_table_and_the_figure(run_dir: Path) -> None:
    result = CliRunner().invoke(app, ["report", str(run_dir)])
    assert result.exit_code == 0, result.output
    folder = run_dir / "report" / "sorting-v3"
    names = ("games", "table1", "table2", "table3", "figure2", "cost", "tasks", "phases")
    for name in (*names, "table8", "table11", "welch_backends", "failures"):
        assert (folder / f"{name}.csv").is_file() and (folder / f"{name}.md").is_file(), name
    png = (folder / "figure2.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    games = read_csv(folder / "games.csv")
    assert len(games) == 7 and {g["tokens"] for g in games} == {"estimate"}
    t1 = read_csv(folder / "table1.csv")
    assert [(r["model"], r["condition"]) for r in t1] == [
        ("local-sort", "base"),
        ("local-sort", "camoc"),
        ("share-all", "base"),
        ("share-all", "camoc"),
    ]
    share_base = t1[2]
    assert share_base["broadcast SR %"] == "100.0" and share_base["p2p SR %"] == "100.0"
    assert share_base["kv SR %"] == "–" and share_base["games"] == "2"
    tasks = read_csv(folder / "tasks.csv")
    assert ("share-all", "max") in {(r["model"], r["task"]) for r in tasks}
    phases = {
        (r["model"], r["condition"], r["backend"]): r for r in read_csv(folder / "phases.csv")
    }
    kv = phases[("share-all", "camoc", "kv")]
    assert (kv["R phase1"], kv["R phase2"], kv["R combined"]) == ("3.0", "3.0", "6.0")
    assert kv["TE phase2"] != "–" and phases[("share-all", "base", "p2p")]["TE phase2"] == "–"
    fails = {(r["model"], r["backend"]): r for r in read_csv(folder / "failures.csv")}
    assert fails[("share-all", "broadcast")]["failed games"] == "0"
    # The App. G.3 game stays out of the sorting tables.
    assert sum(int(r["games"]) for r in read_csv(folder / "table3.csv")) == 6


def test_tables_average_the_right_games(run_dir: Path) -> None:
    from accord.analysis.report import load_traces

    rows = [game_row(t) for t in load_traces([run_dir]) if t.config["task"] == "sort"]
    local = [r for r in rows if r["model"] == "local-sort" and r["backend"] == "broadcast"]
    # local-sort is right only on the ascending family.
    by_mode = {r["mode"]: r["sr"] for r in local}
    assert by_mode["asc"] == 1.0 and by_mode["random"] < 1.0
    t2 = {r["N"]: r for r in table2(rows)}
    assert set(t2) == {1, 3} and t2[1]["broadcast K=1"] == "100.0"
    assert t2[3]["p2p K=1"] == "100.0" and t2[3]["p2p K=2"] == "–"
    t3 = [r["input family"] for r in table3(rows)]
    assert t3 == ["asc", "random", "desc"]
    points = {(r["model"], r["N"]): r for r in figure2_data(rows)}
    assert points[("share-all", 3)]["sr"] == 1.0 and points[("share-all", 3)]["games"] == 2
    both = [r for r in rows if r["model"] == "share-all" and r["n"] == 3]
    assert points[("share-all", 3)]["rounds"] == pytest.approx(sum(r["rounds"] for r in both) / 2)
    assert all(
        p["sr_ci_low"] <= p["sr"] <= p["sr_ci_high"] for p in points.values() if p["games"] > 1
    )
    assert [r["condition"] for r in table1(rows) if r["model"] == "share-all"] == ["base", "camoc"]


def test_report_through_the_registry(run_dir: Path, tmp_path: Path) -> None:
    written = build_report([run_dir], tmp_path)
    assert tmp_path / "sorting-v3" / "figure2.png" in written
    md = (tmp_path / "sorting-v3" / "table1.md").read_text(encoding="utf-8")
    assert md.startswith("# Per model and condition, per backend (MAS-Bench Table 1)")


def test_every_table_is_split_by_team_never_pooling_scripted_with_model(tmp_path: Path) -> None:
    # A reproduction-like directory: the scripted floor beside a (mock) model, both at N = 1.
    specs = [
        GameSpec(
            trace_id=f"g{i}",
            game="sorting",
            seed=i,
            options={"n": 1, "k": 2, "backend": backend, "max_rounds": 2},
            agents=[seat],
        )
        for i, (seat, backend) in enumerate(
            (s, b)
            for s in (AgentSpec(agent="share-all"), AgentSpec(model="mock/echo"))
            for b in ("broadcast", "kv")
        )
    ]
    run_sync(specs, tmp_path, concurrency=1)
    folder = build_report([tmp_path], tmp_path / "report")[0].parent
    t8 = read_csv(folder / "table8.csv")
    by = {(r["model"], r["backend"]): r for r in t8}
    # The model's own 0 %, not 50 % pooled with the scripted 100 %.
    assert by[("mock/echo", "broadcast")]["SR %"] == "0.0"
    assert by[("share-all", "broadcast")]["SR %"] == "100.0"
    assert {r["tokens"] for r in t8 if r["model"] == "mock/echo"} == {"model"}
    assert {r["tokens"] for r in t8 if r["model"] == "share-all"} == {"estimate"}
    for name in ("table2", "table3"):
        rows = read_csv(folder / f"{name}.csv")
        assert sorted(r["model"] for r in rows) == ["mock/echo", "share-all"], name
    t2 = {r["model"]: r for r in read_csv(folder / "table2.csv")}
    assert t2["mock/echo"]["broadcast K=2"] == "0.0" and t2["share-all"]["kv K=2"] == "100.0"
    assert all(int(r["games"]) == 2 for r in read_csv(folder / "table3.csv"))
