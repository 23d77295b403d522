"""`accord reproduce`: each paper end to end on its smoke grid with the mock model, the
CalBench protocol rows beside the paper's values, and bad input as one line with exit 2."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

import accord.traces.reader as trace_reader
from accord.cli.main import app

runner = CliRunner(env={"COLUMNS": "200"})


def _reproduce(out: Path, *args: str) -> dict:
    result = runner.invoke(
        app, ["reproduce", *args, "--model", "mock/schema", "--smoke", "--yes", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "Pilot:" in result.output and "Estimate" in result.output
    assert (out / "reproduction.md").is_file() and (out / "summary.json").is_file()
    assert (out / "results.jsonl").is_file()
    return json.loads((out / "reproduction.json").read_text())


def test_calbench_table2_smoke_puts_the_protocol_rows_beside_the_paper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "cal"
    rep = _reproduce(out, "calbench", "--table", "2")
    assert rep["planned"] == rep["complete"] == 32 and not rep["failed"]
    rows = {r["label"]: r for r in rep["tables"]["2"]}
    imap = rows["imap · uniform"]
    assert imap["kind"] == "value" and imap["published_row"] == "IMAP"
    coord, _, msgs, _, vps = imap["cells"]
    # IMAP schedules every meeting with 2 messages per seat and meeting and VPS 12.40, as
    # the paper's row says: ours equals it, so it is inside our CI.
    assert coord["published"] == pytest.approx(1.0) and coord["ours"]["mean"] == 1.0
    assert coord["inside_ci"] is True and msgs["inside_ci"] is True
    assert vps["ours"]["mean"] == pytest.approx(12.40, abs=0.01) and vps["inside_ci"] is True
    assert {r["kind"] for r in rep["tables"]["2"]} == {"value", "ours"}  # + published files
    assert sum(r["kind"] == "value" for r in rep["tables"]["2"]) == 8
    text = (out / "reproduction.md").read_text()
    assert "| imap · uniform | 3 | 100.0 | 100.0 | yes |" in text
    assert "Smoke run" in text and "--model is not used" in text
    assert f"accord reproduce calbench --table 2 --model mock/schema --smoke --out {out}" in text
    assert (out / "reproduction" / "table2.png").is_file()
    # A normal run directory: resuming plays nothing new. The estimate, the skip list and the
    # rebuilt results come from one read of each trace; the write-up reads them once more.
    summary = (out / "summary.json").read_bytes()
    reads: Counter[str] = Counter()
    original = trace_reader.trace_bytes

    def counting(path: Path) -> bytes:
        reads[Path(path).name] += 1
        return original(path)

    monkeypatch.setattr(trace_reader, "trace_bytes", counting)
    again = runner.invoke(
        app,
        ["reproduce", "calbench", "--table", "2", "--smoke", "--yes", "--resume", "--out",
         str(out)],
    )  # fmt: skip
    assert again.exit_code == 0, again.output
    assert "32 of 32 already finished" in again.output and "Pilot:" not in again.output
    assert "the games in this directory" in again.output  # the estimate, from the scan
    assert len(reads) == 32 and set(reads.values()) == {2}
    assert (out / "summary.json").read_bytes() == summary
    # Without --resume an existing run is never mixed into (and no pilot is played first).
    mixed = runner.invoke(
        app, ["reproduce", "calbench", "--table", "2", "--smoke", "--yes", "--out", str(out)]
    )
    assert mixed.exit_code == 2 and "add --resume" in mixed.output
    assert "Pilot:" not in mixed.output


def test_grounding_smoke_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "g"
    rep = _reproduce(out, "grounding")
    assert rep["complete"] == 6 and set(rep["tables"]) == {"3", "4", "9", "10", "11"}
    assert all(r["kind"] == "shape" for t in rep["tables"].values() for r in t)
    assert (out / "reproduction" / "figure3.png").is_file()
    # The numbers §5 states sit beside ours; what the kit cannot reproduce says why.
    stated = {s["id"]: s for s in rep["stated"]}
    assert stated["s5-overdraw"]["ours"]["n"] == 3 and stated["s5-overdraw"]["published"] == 0.157
    assert stated["s56-abandonment"]["ours"] is None and stated["s56-abandonment"]["not_reproduced"]
    text = (out / "reproduction.md").read_text()
    assert "## Numbers stated in the text" in text and "## Not reproduced by this kit" in text
    assert "- Table 14 (App. G.2, Table 14): compares two judges" in text
    # The directory works with the commands every run directory does.
    query = runner.invoke(app, ["query", str(out), "SELECT count(*) AS n FROM games"])
    assert query.exit_code == 0 and "6" in query.output, query.output
    assert runner.invoke(app, ["leaderboard", str(out)]).exit_code == 0
    assert runner.invoke(app, ["report", str(out)]).exit_code == 0


def test_mas_bench_smoke_end_to_end(tmp_path: Path) -> None:
    rep = _reproduce(tmp_path / "m", "mas-bench")
    assert rep["complete"] == 36
    floor = [r for r in rep["tables"]["1"] if r["identity"].get("team") == "share-all"]
    assert floor and all(r["cells"][0]["ours"]["mean"] == 1.0 for r in floor)  # SR = 1
    pooled = [r for r in rep["tables"]["2"] if r["identity"]["team"] == "models"]
    assert pooled and all(r["kind"] == "shape" for r in pooled)
    # Figure 2 is its own drawing (SR, R, TE, CR against N), not a copy of Table 2's chart.
    figs = tmp_path / "m" / "reproduction"
    assert (figs / "figure2.png").read_bytes() != (figs / "table2.png").read_bytes()
    assert {r["identity"]["n"] for r in rep["tables"]["F2"]} == {1, 3}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope"], "unknown paper 'nope'"),
        (["calbench", "--table", "9"], "has no table '9'"),
        (["calbench", "--table", "13"], "not reproduced by this kit"),
        (["grounding", "--model", "gpt4"], "--model takes provider/model"),
        (["grounding"], "needs a model"),
        (["calbench", "--table", "2", "--smoke"], "add --yes"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["reproduce", *args, "--pilot", "0", "--out", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_dry_run_plans_without_keys_or_games(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["reproduce", "calbench", "--table", "1", "--model", "openai/gpt-5.4-mini", "--dry-run",
         "--out", str(tmp_path / "d")],
        env={"OPENAI_API_KEY": ""},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "90 games" in result.output and "cost unknown" in result.output
    assert not (tmp_path / "d" / "traces").exists()


def test_failed_games_are_counted_never_scored_and_exit_1(tmp_path: Path) -> None:
    out = tmp_path / "dead"
    dead = ["-M", "fault_rate=1.0", "-M", "faults=[timeout]", "-M", "max_retries=0"]
    result = runner.invoke(
        app,
        ["reproduce", "grounding", "--table", "3", "--model", "mock/schema", "--smoke", "--yes",
         "--pilot", "0", "--out", str(out), *dead],
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "3 games failed" in result.output
    rep = json.loads((out / "reproduction.json").read_text())
    assert rep["complete"] == 0 and sum(rep["failed"].values()) == 3
    assert rep["tables"]["3"] == []  # no value comes from a failed game
    assert "3 failed (kept out of every value)" in (out / "reproduction.md").read_text()
