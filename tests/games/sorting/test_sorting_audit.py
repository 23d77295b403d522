"""Issue-level checks: the scenario a user prints, the quick `-o task=...` form, the largest
paper scale under every condition, and the message index (MAS-Bench §3, App. E, F.5, G.3)."""

from __future__ import annotations

import asyncio
import json
from itertools import accumulate
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.games.sorting.backends import BroadcastStore, DirectStore
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.io import read_trace


def scenario_json(*args: str) -> dict[str, object]:
    result = CliRunner().invoke(app, ["scenario", "sorting", *args, "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, object] = json.loads(result.output)
    return data


def test_printed_scenario_has_everything_to_judge_it() -> None:
    s = scenario_json("--seed", "5", "-o", "n=3", "-o", "k=3")
    xs, flat = s["xs"], s["global_input"]
    assert isinstance(xs, list) and isinstance(flat, list)
    assert [v for seg in xs for v in seg] == flat and len(set(flat)) == 9
    assert all(0 <= v < 90 for v in flat)  # range(10 N K), Algorithm 1
    ordered = sorted(flat)
    assert s["expected"] == [ordered[0:3], ordered[3:6], ordered[6:9]]
    inversions = sum(flat[p] > flat[q] for p in range(9) for q in range(p + 1, 9))
    assert s["inversions"] == inversions and s["rho"] == pytest.approx(inversions / 36)
    assert (s["task"], s["n"], s["k"], s["mode"], s["submit_len"]) == ("sort", 3, 3, "random", 3)
    assert (s["seed"], s["backend"], s["condition"], s["max_rounds"]) == (
        5,
        "broadcast",
        "base",
        100,
    )
    assert s == scenario_json("--seed", "5", "-o", "n=3", "-o", "k=3")  # same seed, same instance
    assert s["xs"] != scenario_json("--seed", "6", "-o", "n=3", "-o", "k=3")["xs"]


def test_printed_scenario_of_the_extension_tasks() -> None:
    top = scenario_json("--seed", "1", "-o", "task=max", "-o", "n=2", "-o", "k=2")
    flat = top["global_input"]
    assert isinstance(flat, list)
    assert top["expected"] == [[max(flat)], [max(flat)]] and top["submit_len"] == 1
    pre = scenario_json("--seed", "1", "-o", "task=prefix_sum", "-o", "n=2", "-o", "k=2")
    sums = list(accumulate(flat))
    assert pre["global_input"] == flat and pre["expected"] == [sums[:2], sums[2:]]
    cond = scenario_json("-o", "condition=camoc", "-o", "backend=kv")
    assert (cond["behaviour"], cond["two_phase"], cond["backend"]) == ("camoc", True, "kv")


def test_the_quick_form_selects_an_extension_task(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["run", "sorting", "--agents", "share-all", "-o", "task=prefix_sum", "-o", "n=3"]
    result = CliRunner().invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    (path,) = (out / "traces").glob("*.json")
    trace = read_trace(path)
    assert trace.config["task"] == "prefix_sum" and trace.metrics["success"] == 1.0
    assert trace.scenario["task"] == "prefix_sum" and trace.metrics["rounds"] == 3


@pytest.mark.parametrize("condition", ["camoc", "abl-submit", "abl-message"])
@pytest.mark.parametrize("backend", ["broadcast", "p2p", "kv"])
def test_share_all_at_the_largest_scale_under_every_condition(condition: str, backend: str) -> None:
    spec = GameSpec(
        trace_id="big",
        game="sorting",
        seed=8,
        options={"n": 20, "k": 10, "backend": backend, "condition": condition, "mode": "desc"},
        agents=[AgentSpec(agent="share-all")] * 20,
    )
    trace = asyncio.run(play_game(spec))
    assert trace.status == "complete", trace.error
    m = trace.metrics
    assert m["sr"] == 1.0 and m["global_check"] == 1.0 and m["condition"] == condition
    two_phase = condition != "abl-submit"
    assert m["rounds_per_phase"] == ([3, 3] if two_phase else [3])
    if two_phase:
        assert m["sr_phase1"] == 1.0


@pytest.mark.parametrize("store", [BroadcastStore, DirectStore])
def test_receiving_reads_through_the_unread_index(store: type[BroadcastStore]) -> None:
    s = store()
    s.reset(3)
    plan = s.db.execute(
        "EXPLAIN QUERY PLAN SELECT id, sender_id, content FROM messages "
        "WHERE receiver_id = ? AND is_read = 0 ORDER BY id",
        (1,),
    ).fetchall()
    assert any("messages_unread" in str(row) for row in plan), plan
