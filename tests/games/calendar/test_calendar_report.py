"""`accord report` for the calendar: Table 1, Table 11, Figures 3 and 4 (CalBench §4.2-4.3,
App. G.1) and the extension points the privacy outputs use."""

from __future__ import annotations

import asyncio
import csv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from accord.analysis.report import build_report
from accord.games.calendar import report
from accord.games.calendar.metrics import table1
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.io import write_trace
from accord.traces.schema import Trace

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _play(trace_id: str, agents: list[str], seed: int, **options: Any) -> Trace:
    spec = GameSpec(
        trace_id=trace_id,
        game="calendar-v2",
        options={"max_turns_per_round": 2, **options},
        seed=seed,
        agents=[AgentSpec.model_validate({"model" if "/" in a else "agent": a}) for a in agents],
    )
    return asyncio.run(play_game(spec))


@pytest.fixture(scope="module")
def traces() -> list[Trace]:
    """Uniform and varied games; followers next to a schema-following mock that fails often."""
    team = ["oracle-follower", "mock/schema", "oracle-follower"]
    out = [_play(f"u{s}", team, s) for s in range(4)]
    out += [_play(f"v{s}", team, s, cost_setting="varied", density=0.8) for s in range(4)]
    return out


@pytest.fixture(autouse=True)
def own_outputs_only() -> Iterator[None]:
    """Test this module's outputs alone: columns and sections other modules registered (the
    privacy measurements) are set aside and restored afterwards."""
    columns, sections = dict(report._COLUMNS), dict(report._SECTIONS)
    report._COLUMNS.clear()
    report._SECTIONS.clear()
    yield
    report._COLUMNS.clear()
    report._COLUMNS.update(columns)
    report._SECTIONS.clear()
    report._SECTIONS.update(sections)


def _run_dir(tmp_path: Path, traces: list[Trace]) -> Path:
    for t in traces:
        write_trace(tmp_path / "run" / "traces", t)
    return tmp_path / "run"


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_report_writes_every_output(tmp_path: Path, traces: list[Trace]) -> None:
    written = build_report([_run_dir(tmp_path, traces)], tmp_path / "report")
    folder = tmp_path / "report" / "calendar-v2"
    names = {p.relative_to(folder).as_posix() for p in written}
    for stem in ("summary", "table1", "table11_completion_regret", "figure3_fits"):
        assert {f"{stem}.csv", f"{stem}.md"} <= names
    for png in ("figure3_messages_vs_excess.png", "figure4_fairness.png"):
        assert (folder / png).read_bytes().startswith(PNG_MAGIC)
    md = (folder / "table1.md").read_text()
    assert "| cost_setting | agent | n | Meetings | S % | C | C^adj | E (msgs/mtg) | F |" in md
    assert "condition" not in md  # every trace was played under the same options


def test_table1_numbers_are_the_seat_metrics(tmp_path: Path, traces: list[Trace]) -> None:
    build_report([_run_dir(tmp_path, traces)], tmp_path / "report")
    data = _csv(tmp_path / "report" / "calendar-v2" / "data" / "table1.csv")
    seat_rows = [
        {**row, "agent": t.seats[row["seat"]].agent} for t in traces for row in t.seat_rows
    ]
    expected = {(e["cost_setting"], e["agent"]): e for e in table1(seat_rows)}
    assert {(r["cost_setting"], r["agent"]) for r in data} == set(expected)
    for r in data:
        e = expected[(r["cost_setting"], r["agent"])]
        assert int(r["n"]) == e["n"]
        for key in ("success", "excess_cost", "adjusted_excess", "messages_per_meeting"):
            assert float(r[key]) == pytest.approx(e[key]["mean"])
            assert float(r[f"{key}_ci_low"]) <= float(r[key]) <= float(r[f"{key}_ci_high"])
    follower = expected[("varied", "oracle-follower")]
    assert follower["n"] == 8 and follower["fairness"]["n"] == 8


def test_table11_counts_full_completion_seats() -> None:
    rows = [
        {"agent": "a", "cost_setting": "uniform", "success": 1.0, "excess_cost": 2,
         "meetings_scheduled": 2, "condition": ""},
        {"agent": "a", "cost_setting": "varied", "success": 1.0, "excess_cost": 0,
         "meetings_scheduled": 3, "condition": ""},
        {"agent": "a", "cost_setting": "varied", "success": 0.5, "excess_cost": 5,
         "meetings_scheduled": 1, "condition": ""},
        {"agent": "a", "cost_setting": "varied", "success": None, "excess_cost": 0,
         "meetings_scheduled": 0, "condition": ""},
    ]  # fmt: skip
    entries = {e["cost_setting"]: e for e in report.table11_entries(rows)}
    pooled = entries["all"]
    assert (pooled["seats"], pooled["full_seats"]) == (3, 2)
    assert pooled["mean_excess"]["mean"] == pytest.approx(0.5)  # (2/2 + 0/3) / 2
    assert pooled["nonzero_regret"]["mean"] == pytest.approx(0.5)
    assert (entries["varied"]["full_seats"], entries["varied"]["seats"]) == (1, 2)
    assert entries["varied"]["nonzero_regret"]["mean"] == 0.0


def test_ols_fit_by_hand() -> None:
    fit = report.ols_fit([0.0, 1.0, 2.0, 3.0], [1.0, 3.0, 5.0, 7.0])
    assert fit is not None and fit == pytest.approx((2.0, 1.0))
    assert report.ols_fit([1.0, 1.0], [0.0, 2.0]) is None
    assert report.ols_fit([1.0], [1.0]) is None


def test_conditions_are_never_pooled(tmp_path: Path, traces: list[Trace]) -> None:
    capped = [_play(f"cap{s}", ["oracle-follower"] * 3, s, dm_cap=0) for s in range(2)]
    build_report([_run_dir(tmp_path, [*traces[:4], *capped])], tmp_path / "report")
    data = _csv(tmp_path / "report" / "calendar-v2" / "data" / "table1.csv")
    groups = {(r["condition"], r["agent"]): int(r["n"]) for r in data}
    assert groups == {
        ("dm_cap=None", "oracle-follower"): 8,
        ("dm_cap=None", "mock/schema"): 4,
        ("dm_cap=0", "oracle-follower"): 6,
    }


def test_privacy_hooks_add_a_column_and_a_section(tmp_path: Path, traces: list[Trace]) -> None:
    seen: list[int] = []

    def vps(trace: Trace) -> dict[int, float | None]:
        return {s.seat: float(s.seat) for s in trace.seats}

    def section(ts: list[Trace], out: Path) -> list[Path]:
        seen.append(len(ts))
        path = out / "table2.md"
        path.write_text("protocols\n", encoding="utf-8")
        return [path]

    report.register_seat_column("vps", "VPS", vps)
    report.register_section("privacy", section)
    written = build_report([_run_dir(tmp_path, traces)], tmp_path / "report")
    folder = tmp_path / "report" / "calendar-v2"
    assert seen == [len(traces)] and folder / "table2.md" in written
    data = {(r["cost_setting"], r["agent"]): r for r in _csv(folder / "data" / "table1.csv")}
    # Followers sit in seats 0 and 2, so their mean VPS is 1; the mock sits in seat 1.
    assert float(data[("uniform", "oracle-follower")]["vps"]) == pytest.approx(1.0)
    assert float(data[("uniform", "mock/schema")]["vps"]) == pytest.approx(1.0)
    follower = data[("uniform", "oracle-follower")]
    assert float(follower["vps_ci_low"]) < 1.0 < float(follower["vps_ci_high"])
    assert "| VPS |" in (folder / "table1.md").read_text()


def test_figure4_resamples_task_instances_not_seats(tmp_path: Path) -> None:
    """CalBench Figure 4's CIs are across task instances: five seats of one task are one
    observation (their mean), and repeats of a task pool into it."""
    rows = [
        {"cost_setting": "uniform", "agent": "a", "condition": "", "task_id": task,
         "trace_id": f"{task}-{rep}", "fairness": value}
        for task, values in (("t0", (0.0, 1.0, 1.0, 1.0, 1.0)), ("t1", (0.5,) * 5))
        for rep in (0, 1)
        for value in values
    ]  # fmt: skip
    per_task = report.task_fairness(rows)
    assert per_task == {("uniform", "a"): [0.8, 0.5]}
    paths = report.figure4(rows, tmp_path)
    assert [p.suffix for p in paths] == [".png", ".svg", ".pdf"]
    svg = paths[1].read_text()
    assert "n = 2 task instances" in svg and "seat-games" not in svg
