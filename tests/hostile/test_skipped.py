"""Issue 25 "Data and results": one damaged trace, or the trace of a game no longer installed,
is passed over and listed by every command that reads a run (as resume and cost always did),
and a resumed run always rebuilds its results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

RUN = ["run", "negotiation", "--agents", "cooperative,greedy", "--games", "2"]
OPTS = ["-o", "rounds=2", "-o", "talk_turns=1"]


def _old_game_trace(run: Path) -> None:
    """A trace of a game id this installation does not know (an older version's)."""
    data = json.loads(next((run / "traces").glob("*.json")).read_text())
    data["game_id"], data["trace_id"] = "negotiation-v0", "old-game"
    (run / "traces" / "old-game.json").write_text(json.dumps(data))


def test_resume_passes_over_an_unknown_game_and_rebuilds_results(tmp_path: Path, cli) -> None:
    run = tmp_path / "run"
    assert cli.invoke(*RUN, "--out", run, *OPTS).exit_code == 0
    sorted((run / "traces").glob("*.json"))[-1].unlink()  # one game to play again
    _old_game_trace(run)
    (run / "results.jsonl").write_text("")
    resumed = cli.invoke(*RUN, "--out", run, *OPTS, "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert "skipped" in resumed.output and "old-game.json" in resumed.output
    summary = json.loads((run / "summary.json").read_text())
    assert summary["games"] == 2
    assert [u["file"] for u in summary["unreadable"]] == ["old-game.json"]
    rows = (run / "results.jsonl").read_text().splitlines()
    assert len(rows) == 4  # two games, two seats each: rebuilt after play


COMMANDS = [
    ["report"],
    ["leaderboard"],
    ["value"],
    ["export"],
    ["query", "SELECT count(*) AS n FROM games", "--format", "csv"],
    ["judge", "--model", "mock/schema"],
]
BROKEN = {
    "cut short": '{"schema_version": 2, "trace_id": ',
    "events as an object": "EVENTS",
}


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize("broken", BROKEN, ids=list(BROKEN))
def test_commands_list_an_unreadable_trace_and_read_the_rest(
    run_dir: Path, cli, monkeypatch, tmp_path: Path, command: list[str], broken: str
) -> None:
    monkeypatch.setenv("ACCORD_CACHE_DIR", str(tmp_path / "qcache"))
    text = BROKEN[broken]
    if text == "EVENTS":
        data = json.loads((run_dir / "traces" / "b-g000.json").read_text())
        data["trace_id"], data["events"] = "broken", {"a": 1}
        text = json.dumps(data)
    (run_dir / "traces" / "broken.json").write_text(text)
    for _ in range(2):  # the second query is answered from the table cache
        args = [command[0], run_dir, *command[1:]]
        if command[0] == "judge":
            args += ["--out", tmp_path / "judged"]
        result = cli.invoke(*args)
        assert result.exit_code == 0, result.output
        assert "Traceback" not in result.output
        assert "skipped" in result.output and "broken.json" in result.output, result.output
    if command[0] == "report":
        assert (run_dir / "report" / "negotiation-v3").is_dir()
    if command[0] == "query":
        assert result.stdout == "n\n2\n"
    if command[0] == "export":
        assert (run_dir / "export" / "games.parquet").is_file()


def test_report_passes_over_a_game_that_is_not_installed(run_dir: Path, cli) -> None:
    _old_game_trace(run_dir)
    result = cli.invoke("report", run_dir)
    assert result.exit_code == 0, result.output
    assert "negotiation-v0" in result.output and "not installed" in result.output
    assert not (run_dir / "report" / "negotiation-v0").exists()
