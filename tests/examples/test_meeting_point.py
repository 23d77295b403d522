"""The example game in its own package (examples/meeting-point), end to end.

It is installed the way a user installs it (pip, from its pyproject, offline and without
dependencies, into a temporary folder) and then found only through its one entry point, which
names its declaration (`meeting_point.INFO`): played by reference agents and the mock model
through `accord run`, reported by `accord report`, rated on the leaderboard by its declared
board, measured by `accord value` against its declared no-talk baseline, its messages shown by
`accord query` through its declared extractor, played by a person at the terminal through its
declared human adapter and in the browser, served by the web view, and checked by
`accord.testing` and PettingZoo's `api_test`. Nothing in Accord names it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pettingzoo.test import api_test
from typer.testing import CliRunner

from accord import testing
from accord.agents.reference import reference_names
from accord.analysis.report import report_builder
from accord.cli.main import app
from accord.core import plugins
from accord.core.registry import game_class, game_ids, resolve
from accord.pettingzoo import env
from accord.web.app import create_app

with warnings.catch_warnings():  # see tests/web/test_web.py
    warnings.filterwarnings("ignore", message=r"Using `httpx` with `starlette.testclient`")
    from fastapi.testclient import TestClient

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "meeting-point"
GAME = "meeting-point-v1"
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("example")


@pytest.fixture(scope="module")
def copy(work: Path) -> Path:
    """The example's sources, copied so that building it leaves the repository untouched."""
    target = work / "meeting-point"
    shutil.copytree(EXAMPLE, target, ignore=shutil.ignore_patterns(".*", "__pycache__"))
    return target


@pytest.fixture(scope="module")
def site(copy: Path, work: Path) -> Iterator[Path]:
    """The example installed into a folder on sys.path; nothing else registers it."""
    target = work / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
         "--no-build-isolation", "--target", str(target), str(copy)],
        check=True, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    sys.path.insert(0, str(target))
    plugins.refresh()
    yield target
    sys.path.remove(str(target))
    for name in [m for m in sys.modules if m.split(".")[0] == "meeting_point"]:
        del sys.modules[name]
    plugins.refresh()


def accord(args: list[str], cwd: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env_vars = {**os.environ, "COLUMNS": "200", "PYTHONPATH": str(site)}
    return subprocess.run(
        [sys.executable, "-m", "accord", *args], cwd=cwd, env=env_vars, capture_output=True,
        text=True, timeout=600,
    )  # fmt: skip


@pytest.fixture(scope="module")
def runs(site: Path, work: Path) -> Path:
    """Four runs played by a separate `accord run` process: two teams of reference agents, the
    sharers again without talk (the declared no-talk baseline), and the mock model against a
    reference agent."""
    for out, seats, opts in (
        ("share", "share,share", []),
        ("stubborn", "stubborn,agreeable", []),
        ("notalk", "share,share", ["-o", "talk_turns=0"]),
    ):
        done = accord(["run", "meeting-point", "--agents", seats, "--games", "4", "--out",
                       out, *opts], work, site)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
    done = accord(["run", "meeting-point", "--agents", "mock/schema,share", "--games", "3",
                   "--out", "mock"], work, site)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return work


def test_it_is_found_through_its_entry_points_only(site: Path) -> None:
    assert GAME in game_ids()
    assert resolve("meeting-point") == GAME
    assert Path(sys.modules[game_class(GAME).__module__].__file__ or "").is_relative_to(site)
    assert reference_names(GAME) == ["agreeable", "share", "stubborn"]
    assert report_builder(GAME).__module__ == "meeting_point.report"
    assert plugins.problems() == []
    assert {"calendar-v2", "negotiation-v3", "sorting-v3"} <= set(game_ids())


def test_accord_games_lists_what_its_declaration_gives_it(site: Path, work: Path) -> None:
    done = accord(["games"], work, site)
    assert done.returncode == 0, done.stdout + done.stderr
    listed = done.stdout[done.stdout.index(GAME) :].splitlines()[2]
    assert listed.split(":", 1)[1].strip().split(", ") == [
        "report", "leaderboard", "value of talk", "query messages", "terminal play",
    ]  # fmt: skip


def test_it_passes_the_rest_of_the_conformance_suite(site: Path) -> None:
    testing.check_api(GAME)  # the installed game, found through its entry point
    # The checks its own tests run (`test_its_own_tests_lint_and_types_pass`) are not run twice.
    own = re.findall(r"testing\.(check_\w+)\(", (EXAMPLE / "tests/test_conformance.py").read_text())
    assert "check_determinism" in own
    rest = [n for n in testing.__all__ if n.startswith("check_") and n not in {*own, "check_game"}]
    assert "check_bombardment" in rest
    for name in rest:
        getattr(testing, name)(GAME)


def test_it_passes_pettingzoos_api_test(site: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(GAME, talk_turns=1), num_cycles=30, verbose_progress=False)
    advice = ("Observation is not a NumPy array", "Observation space for each agent",
              "Action space for each agent")  # fmt: skip
    assert [str(w.message) for w in caught if not str(w.message).startswith(advice)] == []
    e = env(GAME)
    e.reset(seed=2)
    for _ in e.agent_iter():  # talk replies are invalid (fallback: silence); both go to 0
        _, _, terminated, truncated, _ = e.last()
        e.step(None if terminated or truncated else '{"place": 0}')
    result = e.unwrapped.result()
    assert result is not None and result.final_state["place"] == 0
    assert result.final_state["messages"] == [[0, ""], [1, ""], [0, ""], [1, ""]]


def test_accord_run_plays_it_with_reference_agents_and_the_mock_model(runs: Path) -> None:
    share = json.loads((runs / "share" / "summary.json").read_text())
    (group,) = share["groups"]
    assert group["games"] == 4 and group["metrics"]["optimal"]["mean"] == 1.0
    for trace_file in (runs / "mock" / "traces").glob("*.json"):
        trace = json.loads(trace_file.read_text())
        assert trace["game_id"] == GAME and trace["status"] == "complete"
        calls = [e for e in trace["events"] if e["type"] == "model_call"]
        assert len(calls) == 3  # seat A's 2 messages and its decision, from the mock model
    assert len(list((runs / "mock" / "traces").glob("*.json"))) == 3


def test_accord_report_uses_the_games_own_report(runs: Path, site: Path) -> None:
    done = accord(["report", "share", "stubborn", "mock", "--out", "report"], runs, site)
    assert done.returncode == 0, done.stdout + done.stderr
    table = (runs / "report" / GAME / "meeting_point.md").read_text()
    assert "# Meeting point: outcomes per pairing" in table
    assert "| share vs share | 4 | 1.000 |" in table
    assert "stubborn vs agreeable" in table and "mock/schema vs share" in table


def test_accord_leaderboard_rates_it_on_its_declared_board(runs: Path, site: Path) -> None:
    """The declared board: teams rated on how often they met and on the cost left over."""

    def board(*dirs: str) -> dict[str, dict[str, Any]]:
        done = accord(["leaderboard", *dirs, "--format", "json"], runs, site)
        assert done.returncode == 0, done.stdout + done.stderr
        rows = json.loads(done.stdout)
        assert {r["game"] for r in rows} == {"meeting-point"}
        return {r["player"]: r for r in rows}

    refs = board("share", "stubborn")
    assert set(refs) == {"share", "stubborn", "agreeable"}
    # Sharers always reach the best place; a stubborn seat meets an agreeable partner at its
    # own favourite, which is not always the best for both (a team game: both get its result).
    share, stubborn, agreeable = refs["share"], refs["stubborn"], refs["agreeable"]
    assert share["met_mean"] == 1.0 and share["excess_mean"] == 0.0 and share["games"] == 4
    assert stubborn["met_mean"] == agreeable["met_mean"] == 1.0
    assert stubborn["excess_mean"] == agreeable["excess_mean"] >= 0.0
    assert "score_mean" not in share  # the declared board replaces the seat-score fallback


def test_accord_value_measures_talk_against_its_declared_baseline(runs: Path, site: Path) -> None:
    done = accord(["value", "share", "notalk", "--format", "json"], runs, site)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {r["outcome"]: r for r in json.loads(done.stdout)}
    assert set(rows) == {"met", "met at the best place"}
    for row in rows.values():
        assert row["game"] == "meeting-point" and row["channel"] == "talk"
        assert row["games"] == 4 and row["baseline_games"] == 4 and row["unmatched"] == 0
        assert row["achieved"] == 1.0 and row["oracle"] == 1.0
        assert row["value"] == 1.0 or row["baseline"] == 1.0
    without = accord(["value", "share"], runs, site)
    assert without.returncode == 0, without.stdout + without.stderr
    assert "meeting-point: -o talk_turns=0" in " ".join(without.stdout.split())


def test_accord_query_shows_its_messages_through_its_extractor(runs: Path, site: Path) -> None:
    sql = "select channel, count(*) as n, min(recipients[1]) as to0 from messages group by 1"
    done = accord(["query", "share", sql, "--format", "json"], runs, site)
    assert done.returncode == 0, done.stdout + done.stderr
    (row,) = json.loads(done.stdout)
    # 4 games, 2 messages per seat each; "talk" is the declared extractor's channel.
    assert row["channel"] == "talk" and row["n"] == 16


def test_a_person_plays_it_at_the_terminal_with_its_short_commands(
    site: Path, tmp_path: Path
) -> None:
    """`accord play` seats a person; the declared adapter turns plain lines into actions."""
    # Two talk turns, then the place: "go 99" is refused and asked again.
    lines = "hello there\nhow about place 1?\ngo 99\n1\n"
    env_vars = {**os.environ, "COLUMNS": "200", "PYTHONPATH": str(site)}
    done = subprocess.run(
        [sys.executable, "-m", "accord", "play", "meeting-point", "--against", "share",
         "--out", str(tmp_path / "p")],
        input=lines, env=env_vars, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Type what you say to your partner." in done.stdout
    (path,) = (tmp_path / "p" / "traces").glob("*.json")
    trace = json.loads(path.read_text())
    assert trace["status"] == "complete"
    said = [e["text"] for e in trace["events"] if e["type"] == "message" and e["seat"] == 0]
    assert said == ["hello there", "how about place 1?"]
    assert trace["final_state"]["choices"][0] == 1
    refused = [e for e in trace["events"] if e["type"] == "validation_error"]
    assert len(refused) == 1 and "between 0 and" in refused[0]["error"]
    assert sum(e["type"] == "human_action" for e in trace["events"]) == 3


def test_the_web_view_serves_its_runs_and_traces(runs: Path, site: Path) -> None:
    client = TestClient(create_app([runs / "share", runs / "mock"]))
    games = {g["game_id"]: g for g in client.get("/api/games").json()}
    assert games[GAME]["reference_agents"] == ["agreeable", "share", "stubborn"]
    rows = client.get("/api/runs/share/games").json()
    assert len(rows) == 4 and {r["game_id"] for r in rows} == {GAME}
    assert all(r["metrics"]["met"] is True for r in rows)
    trace = client.get(f"/api/runs/share/games/{rows[0]['trace_id']}").json()
    assert trace["game_id"] == GAME and trace["metrics"]["excess"] == 0
    assert [s["agent"] for s in trace["seats"]] == ["share", "share"]


def test_a_person_plays_it_in_the_browser_and_sees_the_partners_messages(
    site: Path, tmp_path: Path
) -> None:
    """`accord serve --play` seats a person at a plugin game like at ours; its `seat_view`
    shows the person what the partner said, as it is said."""
    import asyncio

    from accord.traces.io import read_trace
    from accord.web.play import PlayHub

    hub = PlayHub(tmp_path / "play")
    table = hub.create("meeting-point", ["human", "share"], seed=3)
    ch = table.channels[0]

    async def person() -> None:
        ch.connect()
        hub.joined(table)
        seen = 0
        while True:
            version = ch.version
            for item in ch.feed[seen:]:
                seen += 1
                if item["type"] == "end":
                    return
                if item["type"] == "request":
                    talk = item["form"]["kind"] == "talk"
                    text = json.dumps({"message": "Place 0?"} if talk else {"place": 0})
                    assert await ch.answer(item["id"], text) is None
            await ch.changed(version, 5.0)

    async def main() -> None:
        await asyncio.wait_for(person(), 60)
        assert table.task is not None
        await table.task

    asyncio.run(main())
    trace = read_trace(tmp_path / "play" / "traces" / f"{table.spec.trace_id}.json")
    assert trace.status == "complete" and [s.agent for s in trace.seats] == ["human", "share"]
    said = [e["text"] for e in trace.events if e["type"] == "message" and e["seat"] == 1]
    shown = [i["text"] for i in ch.feed if i["type"] == "message"]
    assert said and shown == said


def test_its_prompts_are_listed_and_dumped_like_ours(site: Path, tmp_path: Path) -> None:
    runner = CliRunner(env={"COLUMNS": "200"})
    listed = runner.invoke(app, ["prompts", "meeting-point"])
    assert listed.exit_code == 0, listed.output
    assert "system.j2" in listed.output and "meet.j2" in listed.output
    dumped = runner.invoke(app, ["prompts", "meeting-point", "--dump", str(tmp_path / "p")])
    assert dumped.exit_code == 0, dumped.output
    assert sorted(p.name for p in (tmp_path / "p").iterdir()) == ["meet.j2", "system.j2", "talk.j2"]


def test_its_own_tests_lint_and_types_pass(copy: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=copy, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for tool in (["ruff", "check", "--no-cache", "."], ["ruff", "format", "--check", "."],
                 ["mypy", "--no-incremental", "src", "scripts", "tests"]):  # fmt: skip
        checked = subprocess.run([str(BIN / tool[0]), *tool[1:]], cwd=copy, capture_output=True,
                                 text=True, timeout=600)  # fmt: skip
        assert checked.returncode == 0, checked.stdout + checked.stderr
