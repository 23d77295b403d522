"""OpenSkill leaderboards (CalBench App. E): events, margins, pools, ordering, output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openskill.models import PlackettLuce
from typer.testing import CliRunner

from accord.cli.main import app
from accord.games.calendar.outcomes import shown_excess
from accord.ratings import board_for, leaderboard, leaderboards
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.io import iter_traces, write_trace
from accord.traces.schema import SeatInfo, Trace

CALENDAR = board_for("calendar", [])
assert CALENDAR is not None  # the calendar game declares its board (GameInfo.board)

runner = CliRunner(env={"COLUMNS": "200"})


def seat(i: int, who: str) -> SeatInfo:
    model = who if "/" in who else None
    return SeatInfo(seat=i, name=f"s{i}", agent=who, model=model)


def game(
    tid: str, game_name: str, players: list[str], metrics: dict[str, Any], *, seed: int = 0,
    rows: list[dict[str, Any]] | None = None, t: int = 0, config: dict[str, Any] | None = None,
) -> Trace:  # fmt: skip
    return Trace(
        trace_id=tid,
        game_id=f"{game_name}-v1",
        game=game_name,
        seed=seed,
        config=config or {},
        seats=[seat(i, p) for i, p in enumerate(players)],
        metrics=metrics,
        seat_rows=rows or [],
        started_at=f"2026-01-01T00:00:{t:02d}.000+00:00",
    )


def negotiation_games() -> list[Trace]:
    """On every task, the better the pair, the higher its efficiency: m/good clearly dominates."""
    skill = {"m/good": 1.0, "m/mid": 0.6, "m/bad": 0.2}
    pairs = [("m/good", "m/good"), ("m/good", "m/mid"), ("m/mid", "m/bad"), ("m/bad", "m/bad")]
    out = []
    for task in range(6):
        for j, (a, b) in enumerate(pairs):
            eff = (skill[a] + skill[b]) / 2
            metrics = {"efficiency": eff, "optimum_rate": eff / 2, "overdraw_rate": 1 - eff}
            out.append(game(f"t{task}-{j}", "negotiation", [a, b], metrics, seed=task, t=task))
    # A reference protocol pairing, and a model with one: both stay out of the pool.
    out.append(game("ref", "negotiation", ["greedy", "greedy"], {"efficiency": 0.1}, seed=0))
    out.append(game("mix", "negotiation", ["m/good", "cooperative"], {"efficiency": 0.9}, seed=0))
    return out


def test_dominant_model_ranks_first_and_references_stay_out_of_the_pool() -> None:
    (board,) = leaderboards(negotiation_games())
    assert [s.player for s in board.models] == ["m/good", "m/mid", "m/bad"]
    mus = [s.mu["efficiency"] for s in board.models]
    assert mus[0] > mus[1] > mus[2]
    # Overdraw is lower-is-better: the dominant model must rate highest there too.
    assert max(board.models, key=lambda s: s.mu["overdraw"]).player == "m/good"
    assert board.events == {"efficiency": 6, "optimum": 6, "overdraw": 6}
    good = board.models[0]
    assert good.games == 13 and good.events["efficiency"] == 6
    # Raw mean over its games (one per game, even with both seats): 6 x 1.0, 6 x 0.8, 0.9.
    assert good.mean("efficiency") == pytest.approx((6 * 1.0 + 6 * 0.8 + 0.9) / 13)
    assert [(s.player, s.games) for s in board.references] == [("cooperative", 1), ("greedy", 1)]
    assert "greedy" not in {s.player for s in board.models}


def test_team_event_matches_openskill_with_posteriors_averaged() -> None:
    traces = [
        game("a", "negotiation", ["m/x", "m/x"], {"efficiency": 1.0}),
        game("b", "negotiation", ["m/x", "m/y"], {"efficiency": 0.5}, config={"first_speaker": 1}),
    ]
    (board,) = leaderboards(traces)
    model = PlackettLuce(margin=0.2)
    r = model.rating
    new = model.rate([[r(), r()], [r(), r()]], scores=[1.0, 0.5])
    x = [new[0][0], new[0][1], new[1][0]]  # m/x sat in three seats over the two teams
    by = {s.player: s for s in board.models}
    assert by["m/x"].mu["efficiency"] == pytest.approx(sum(p.mu for p in x) / 3)
    assert by["m/x"].sigma["efficiency"] == pytest.approx(sum(p.sigma for p in x) / 3)
    assert by["m/y"].mu["efficiency"] == pytest.approx(new[1][1].mu)
    # Different tasks (seeds) never meet: one game per task carries no comparison.
    solo = [game("a", "negotiation", ["m/x", "m/x"], {"efficiency": 1.0}, seed=1), traces[1]]
    assert leaderboards(solo)[0].events["efficiency"] == 0


def calendar_rows(success: list[float], excess: list[int]) -> list[dict[str, Any]]:
    return [
        {"seat": i, "success": s, "excess_cost": e}
        for i, (s, e) in enumerate(zip(success, excess, strict=True))
    ]


def test_calendar_free_for_all_per_seat_with_margins() -> None:
    t1 = game("c1", "calendar", ["m/a", "m/b", "m/b"], {},
              rows=calendar_rows([1.0, 0.5, 0.0], [0, 30, 10]))  # fmt: skip
    board = leaderboard([t1], CALENDAR)
    model = PlackettLuce(margin=0.2)
    new = model.rate([[model.rating()] for _ in range(3)], scores=[1.0, 0.5, 0.0])
    by = {s.player: s for s in board.models}
    assert by["m/a"].mu["coordination"] == pytest.approx(new[0][0].mu)
    assert by["m/b"].mu["coordination"] == pytest.approx((new[1][0].mu + new[2][0].mu) / 2)
    cost = PlackettLuce(margin=10.0).rate(
        [[model.rating()] for _ in range(3)], scores=[0.0, -30.0, -10.0]
    )
    assert by["m/b"].mu["cost"] == pytest.approx((cost[1][0].mu + cost[2][0].mu) / 2)
    assert by["m/b"].mean("cost") == 20.0 and by["m/a"].mean("coordination") == 1.0
    # No VPS in these traces: the privacy column is empty rather than invented.
    assert "privacy" not in by["m/a"].mu and by["m/a"].mean("privacy") is None
    assert board.events == {"coordination": 1, "cost": 1, "privacy": 0}


def test_calendar_same_model_teams_are_skipped_unless_matched_by_task() -> None:
    ta = game("h1", "calendar", ["m/a"] * 3, {}, rows=calendar_rows([1, 1, 1], [0, 0, 0]))
    tb = game("h2", "calendar", ["m/b"] * 3, {}, rows=calendar_rows([0, 0.5, 0], [5, 5, 5]))
    plain = leaderboard([ta, tb], CALENDAR)
    assert plain.events["coordination"] == 0 and not plain.models[0].mu
    matched = leaderboard([ta, tb], CALENDAR, match_tasks=True)
    assert matched.events["coordination"] == 1
    assert [s.player for s in matched.models] == ["m/a", "m/b"]


def test_reference_protocols_ranked_by_raw_metrics_in_order() -> None:
    traces = [
        game("1", "calendar", ["imap"] * 2, {}, rows=calendar_rows([1, 1], [4, 4])),
        game("2", "calendar", ["dsm"] * 2, {}, rows=calendar_rows([1, 1], [2, 2])),
        game("3", "calendar", ["sdmap"] * 2, {}, rows=calendar_rows([0.5, 0.5], [0, 0])),
    ]
    board = leaderboard(traces, CALENDAR)
    # Coordination descending first, then excess cost ascending.
    assert [s.player for s in board.references] == ["dsm", "imap", "sdmap"]
    assert board.models == []


def test_excess_cost_is_priced_on_the_shown_scale(tmp_path: Path) -> None:
    spec = GameSpec(
        trace_id="v", game="calendar", seed=3, options={"cost_setting": "varied"},
        agents=[AgentSpec(agent="oracle-follower")] * 3,
    )  # fmt: skip
    run_sync([spec], tmp_path)
    (trace,) = iter_traces(tmp_path / "traces")
    assert trace.scenario["cost_display"] == "log10"
    # Nothing scheduled, so the oracle share is 0; agent 1 moved one errand of level 3 and
    # one of level 1. Shown costs are 100 and 1 (App. E), where the seat row says 3 + 1.
    errands = {e["cost"]: e["id"] for e in trace.scenario["calendars"][1] if e}
    moves = [
        {"agent": 1, "kind": "errand", "item_id": errands[c], "cost": c, "round": 1,
         "phase": "DECISION", "from_slot": 0, "to_slot": 1}
        for c in (3, 1)
    ]  # fmt: skip
    state = {**trace.final_state, "moves": moves, "schedule": []}
    assert shown_excess(trace.model_copy(update={"final_state": state})) == [0.0, 101.0, 0.0]
    # Without a scenario to re-price, the seat rows' own excess is used.
    bare = trace.model_copy(update={"scenario": {}})
    assert shown_excess(bare) == [float(r["excess_cost"]) for r in trace.seat_rows]


def test_command_line_formats(tmp_path: Path) -> None:
    for t in negotiation_games():
        write_trace(tmp_path / "traces", t)
    res = runner.invoke(app, ["leaderboard", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "m/good" in res.output and "reference protocols" in res.output
    assert res.output.index("m/good") < res.output.index("m/bad")
    res = runner.invoke(app, ["leaderboard", str(tmp_path), "-f", "json", "--sort", "overdraw"])
    rows = json.loads(res.output)
    models = [r for r in rows if r["kind"] == "model"]
    assert models[0]["player"] == "m/good" and models[0]["rank"] == 1
    assert {"efficiency_mu", "efficiency_sigma", "efficiency_mean", "games"} <= set(models[0])
    ref = next(r for r in rows if r["player"] == "greedy")
    assert ref["efficiency_mu"] is None and ref["efficiency_mean"] == pytest.approx(0.1)
    res = runner.invoke(
        app, ["leaderboard", str(tmp_path), "-f", "csv", "--margin", "efficiency=1"]
    )
    assert res.exit_code == 0 and res.output.splitlines()[0].startswith("game,kind,rank,player")
    res = runner.invoke(app, ["leaderboard", str(tmp_path), "--margin", "efficiency"])
    assert res.exit_code == 2 and "dimension=number" in res.output


def test_excess_vps_is_rated_lower_is_better_when_measured() -> None:
    rows = [
        {"seat": 0, "success": 1.0, "excess_cost": 0, "vps": 8.0},
        {"seat": 1, "success": 1.0, "excess_cost": 0, "vps": 2.0},
        {"seat": 2, "success": 1.0, "excess_cost": 0, "vps": None},  # not measured
    ]
    t = game("p", "calendar", ["m/leaky", "m/discreet", "m/quiet"], {}, rows=rows)
    board = leaderboard([t], CALENDAR, sort_by="privacy")
    assert [s.player for s in board.models][:2] == ["m/discreet", "m/leaky"]
    by = {s.player: s for s in board.models}
    assert by["m/discreet"].mean("privacy") == 2.0 and "privacy" not in by["m/quiet"].mu
    assert board.events["privacy"] == 1
