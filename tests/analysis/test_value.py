"""Value of communication: matched baselines, reweighting, per-game rules, CIs, command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from accord.analysis.value import bootstrap_ratio, value_of_communication
from accord.cli.main import app
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.io import iter_traces, write_trace
from accord.traces.schema import SeatInfo, Trace

runner = CliRunner(env={"COLUMNS": "200"})


def trace(tid: str, game: str, agents: list[str], config: dict[str, Any], **metrics: Any) -> Trace:
    return Trace(
        trace_id=tid,
        game_id=f"{game}-v1",
        game=game,
        seed=0,
        config=config,
        seats=[SeatInfo(seat=i, name=str(i), agent=a) for i, a in enumerate(agents)],
        metrics=metrics,
        final_state={"ratio": config.get("ratio")},
    )


def negotiation() -> list[Trace]:
    out = []
    talk = {0.5: [0.8, 0.6], 1.0: [1.0], 0.8: [0.9]}
    notalk = {0.5: [0.2, 0.4], 1.0: [0.5, 0.7, 0.9]}  # nothing at 0.8: unmatched
    for ratio, effs in talk.items():
        for i, e in enumerate(effs):
            # Seat order differs from the baseline's: pairs match regardless of it.
            out.append(trace(f"t{ratio}-{i}", "negotiation", ["b", "a"],
                             {"ratio": ratio, "cheap_talk": True}, efficiency=e))  # fmt: skip
    for ratio, effs in notalk.items():
        for i, e in enumerate(effs):
            out.append(trace(f"n{ratio}-{i}", "negotiation", ["a", "b"],
                             {"ratio": ratio, "cheap_talk": False}, efficiency=e))  # fmt: skip
    return out


def test_negotiation_baseline_is_matched_by_pair_and_ratio_and_reweighted() -> None:
    (eff, *_) = value_of_communication(negotiation(), resamples=500)
    assert (eff["game"], eff["channel"], eff["outcome"]) == ("negotiation", "cheap_talk",
                                                           "efficiency")  # fmt: skip
    assert eff["games"] == 3 and eff["unmatched"] == 1 and eff["baseline_games"] == 5
    assert eff["achieved"] == pytest.approx(0.8)
    # Each talk game meets its own cell's no-talk mean: (0.3 + 0.3 + 0.7) / 3, not the pooled
    # 0.54 of the five no-talk games.
    assert eff["baseline"] == pytest.approx(1.3 / 3)
    assert eff["value"] == pytest.approx((0.8 - 1.3 / 3) / (1 - 1.3 / 3))
    assert eff["value_ci_low"] <= eff["value"] <= eff["value_ci_high"]
    assert eff["value_ci_low"] < eff["value_ci_high"]


def test_calendar_dm_cap_zero_is_the_no_talk_run_and_lower_is_better_works() -> None:
    base = {"num_agents": 2, "cost_setting": "uniform"}
    traces = [
        trace("t1", "calendar", ["m", "m"], {**base, "channels": "dm"},
              success_rate=1.0, adjusted_excess=1.0),
        trace("t2", "calendar", ["m", "m"], {**base, "channels": "dm"},
              success_rate=0.5, adjusted_excess=3.0),
        trace("g1", "calendar", ["m", "m"], {**base, "channels": "all_groupchat"},
              success_rate=1.0, adjusted_excess=0.0),
        trace("n1", "calendar", ["m", "m"], {**base, "channels": "dm", "dm_cap": 0},
              success_rate=0.25, adjusted_excess=4.0),
        # Another task setting has no baseline of its own.
        trace("x1", "calendar", ["m", "m"], {**base, "cost_setting": "varied", "channels": "dm"},
              success_rate=1.0, adjusted_excess=0.0),
    ]  # fmt: skip
    rows = {(r["channel"], r["outcome"]): r for r in value_of_communication(traces, resamples=200)}
    dm = rows[("dm", "success")]
    assert dm["games"] == 2 and dm["unmatched"] == 1
    assert dm["value"] == pytest.approx((0.75 - 0.25) / (1 - 0.25))
    assert rows[("dm", "adjusted excess")]["value"] == pytest.approx((2.0 - 4.0) / (0.0 - 4.0))
    assert rows[("all_groupchat", "success")]["value"] == pytest.approx(1.0)


def test_sorting_floor_is_local_sort_on_the_same_task(tmp_path: Path) -> None:
    opts = {"n": 3, "k": 2, "mode": "random"}
    specs = [
        GameSpec(trace_id=f"{agent}-{seed}", game="sorting", options=opts, seed=seed,
                 agents=[AgentSpec(agent=agent)] * 3)
        for agent in ("share-all", "local-sort") for seed in (1, 2, 3)
    ]  # fmt: skip
    run_sync(specs, tmp_path)
    traces = list(iter_traces(tmp_path / "traces"))
    floor = [t.metrics["sr"] for t in traces if t.trace_id.startswith("local-sort")]
    (sr, success) = value_of_communication(traces, resamples=200)
    # The played local-sort games are the floor, not talk games; the replay reproduces them.
    assert sr["games"] == 3 and sr["channel"] == "broadcast" and sr["achieved"] == 1.0
    assert sr["baseline"] == pytest.approx(sum(floor) / 3)
    assert sum(floor) < 3 and sr["value"] == pytest.approx(1.0)
    assert success["outcome"] == "success"


def test_no_gap_means_no_value() -> None:
    traces = [
        trace("t", "negotiation", ["a", "b"], {"ratio": 0.5}, efficiency=1.0),
        trace("n", "negotiation", ["a", "b"], {"ratio": 0.5, "cheap_talk": False}, efficiency=1.0),
    ]
    (eff, *_) = value_of_communication(traces, resamples=50)
    assert eff["baseline"] == 1.0 and eff["value"] is None and eff["value_ci_low"] is None


def test_bootstrap_ratio_pools_counts() -> None:
    est, lo, hi = bootstrap_ratio([1, 2, 0], [2, 2, 0])
    assert est == pytest.approx(0.75) and lo is not None and hi is not None
    assert 0.5 <= lo <= est <= hi <= 1.0
    assert bootstrap_ratio([], []) == (None, None, None)


def test_value_command(tmp_path: Path) -> None:
    for t in negotiation():
        write_trace(tmp_path / "run" / "traces", t)
    res = runner.invoke(app, ["value", str(tmp_path / "run"), "--out", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    assert "cheap_talk" in res.output and "1 without a baseline" in res.output
    assert "-o cheap_talk=false" in " ".join(res.output.split())  # what makes the baseline
    assert (tmp_path / "o" / "value_of_communication.md").exists()
    res = runner.invoke(app, ["value", str(tmp_path / "run"), "-f", "json", "--by-players"])
    rows = json.loads(res.output)
    assert rows[0]["players"] == "a × b" and rows[0]["value"] > 0
