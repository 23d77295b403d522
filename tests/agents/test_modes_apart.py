"""One model in every action mode is several players, never one (issue: modes are pooled).

`mock/schema` plays each game in json, tools and auto mode (and, with `--action-mode`, from
the command line); every table, board, report, comparison and export then names the json
and tools players apart, and ``auto`` is recorded as what it resolved to.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import accord
from accord.analysis.paired import record
from accord.analysis.report import build_report
from accord.cli.main import app
from accord.core.errors import ConfigError
from accord.games.sorting.report import team
from accord.ratings import leaderboards
from accord.runner.config import Batch, Defaults, Experiment
from accord.runner.specs import AgentSpec, parse_agent, with_action_mode
from accord.traces.io import iter_traces
from accord.traces.schema import SeatInfo, Trace, player_identity

MODEL = "mock/schema"
JSON, TOOLS = MODEL, f"{MODEL} [tools]"
GAMES: dict[str, dict[str, Any]] = {
    "negotiation": {"rounds": 1, "talk_turns": 1},
    "calendar": {"max_turns_per_round": 2},
    "sorting": {},
}


def _run(tmp_path: Path, game: str) -> list[Trace]:
    options = GAMES[game]
    batches = [
        Batch(name=mode or "default", agents=[AgentSpec(model=MODEL, action_mode=mode)])
        for mode in (None, "json", "tools", "auto")
    ]
    exp = Experiment(
        name=f"modes-{game}",
        defaults=Defaults(game=game, games=2, options=options),
        batches=batches,
    )
    report = accord.run(exp, out=tmp_path / game, concurrency=2, live=False)
    assert not report.failed, report.failures
    return list(iter_traces(tmp_path / game / "traces"))


def _by_batch(traces: list[Trace]) -> dict[str, set[str | None]]:
    out: dict[str, set[str | None]] = {}
    for t in traces:
        out.setdefault(str(t.run["batch"]), set()).update(s.action_mode for s in t.seats)
    return out


@pytest.fixture(scope="module")
def negotiation(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Trace]]:
    root = tmp_path_factory.mktemp("modes")
    return root / "negotiation", _run(root, "negotiation")


def test_the_trace_records_the_resolved_mode(negotiation: tuple[Path, list[Trace]]) -> None:
    _, traces = negotiation
    # mock/schema takes tools, so auto resolved to tools, and says so on the seat.
    assert _by_batch(traces) == {
        "default": {"json"},
        "json": {"json"},
        "tools": {"tools"},
        "auto": {"tools"},
    }
    assert {t.seats[0].identity for t in traces} == {JSON, TOOLS}


def test_leaderboard_keeps_modes_apart(negotiation: tuple[Path, list[Trace]]) -> None:
    _, traces = negotiation
    (board,) = leaderboards(traces)
    players = {s.player: s for s in board.models}
    assert {JSON, TOOLS} <= set(players)
    # 2 games x 2 batches (default + json) and (tools + auto): never 8 pooled games.
    assert players[JSON].games == players[TOOLS].games == 4


def test_negotiation_report_tables_keep_modes_apart(
    negotiation: tuple[Path, list[Trace]], tmp_path: Path
) -> None:
    run, _ = negotiation
    build_report([run], tmp_path / "report")
    seen: dict[str, set[str]] = {}
    for path in (tmp_path / "report").rglob("*.csv"):
        with path.open() as f:
            for row in csv.DictReader(f):
                for key in ("model", "pair", "models", "player"):
                    if row.get(key):
                        seen.setdefault(path.stem, set()).add(row[key])
    for table in ("per_model",):
        assert {JSON, TOOLS} <= seen[table], (table, seen.get(table))
    # Every table naming a player names both, and none pools them under the bare model
    # alone: a table with the json player only would have dropped (or pooled) tools games.
    for table, names in seen.items():
        if any(MODEL in n for n in names):
            assert any("[tools]" in n for n in names), (table, names)


def test_compare_query_and_results_keep_modes_apart(
    negotiation: tuple[Path, list[Trace]],
) -> None:
    run, traces = negotiation
    assert {record(t).players for t in traces} == {(JSON, JSON), (TOOLS, TOOLS)}
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    assert {r["player"] for r in rows} == {JSON, TOOLS}
    from accord.analysis.query import run_query

    _, _, got = run_query([run], "SELECT DISTINCT player FROM seats ORDER BY player", cache=False)
    assert [r[0] for r in got] == [JSON, TOOLS]


def test_the_inspect_export_names_both_players(
    negotiation: tuple[Path, list[Trace]],
) -> None:
    _, traces = negotiation
    pytest.importorskip("inspect_ai")
    from accord.inspectai.export import build_log

    log = build_log(traces[0].game_id, traces)
    assert log.eval.model == f"{JSON}, {TOOLS}"


@pytest.mark.parametrize("game", ["calendar", "sorting"])
def test_other_games_keep_modes_apart(game: str, tmp_path: Path) -> None:
    traces = _run(tmp_path, game)
    modes = _by_batch(traces)
    assert modes["json"] == modes["default"] == {"json"}
    assert modes["tools"] == {"tools"}
    # Sorting's tools are offered to an explicit tools seat only: under auto it played json.
    assert modes["auto"] == ({"json"} if game == "sorting" else {"tools"})
    boards = leaderboards(traces)
    for board in boards:
        assert {JSON, TOOLS} <= {s.player for s in board.models}
    if game == "sorting":
        assert {team(t) for t in traces} == {JSON, TOOLS}


def test_an_old_trace_is_read_from_its_label() -> None:
    assert player_identity(MODEL, f"{MODEL} [tools]") == TOOLS
    assert player_identity(MODEL, f"{MODEL} [auto]") == f"{MODEL} [auto]"
    assert player_identity(MODEL, MODEL) == MODEL
    assert player_identity(None, "greedy") == "greedy"
    seat = SeatInfo(seat=0, name="A", agent="mine [auto]", model=MODEL, action_mode="json")
    assert seat.identity == MODEL
    assert "action_mode" not in SeatInfo(seat=0, name="A", agent="greedy").model_dump()


def test_action_mode_from_the_api_and_the_command_line(tmp_path: Path) -> None:
    assert with_action_mode([parse_agent(MODEL), parse_agent("greedy")], "tools") == [
        AgentSpec(model=MODEL, action_mode="tools"),
        AgentSpec(agent="greedy"),
    ]
    own = AgentSpec(model=MODEL, action_mode="json")
    assert with_action_mode([own], "tools") == [own]  # a seat's own mode wins
    with pytest.raises(ConfigError, match="action mode must be one of"):
        with_action_mode([parse_agent(MODEL)], "native")
    with pytest.raises(ConfigError, match="local model answers in json mode"):
        with_action_mode([parse_agent("local/smollm2")], "tools")

    plan = accord.plan("negotiation", model=MODEL, action_mode="auto", out=tmp_path / "p")
    assert {a.action_mode for s in plan.specs for a in s.agents} == {"auto"}

    runner = CliRunner(env={"COLUMNS": "200"})
    out = tmp_path / "cli"
    args = ["run", "negotiation", "--model", MODEL, "-o", "rounds=1", "-o", "talk_turns=1"]
    result = runner.invoke(app, [*args, "--action-mode", "tools", "--out", str(out)])
    assert result.exit_code == 0, result.output
    (trace,) = list(iter_traces(out / "traces"))
    assert {s.identity for s in trace.seats} == {TOOLS}
    bad = runner.invoke(app, [*args, "--action-mode", "native", "--out", str(tmp_path / "x")])
    assert bad.exit_code == 2
    assert "--action-mode must be one of" in bad.output
