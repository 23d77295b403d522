"""The sorting convention-misalignment judge (MAS-Bench §5.3; `accord.games.sorting.judge`)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.core.errors import ActionError
from accord.games.sorting.judge import (
    conventions_table,
    judge_trace,
    needs_judge,
    parse_verdict,
    transcript,
    verdict_row,
)
from accord.models.mock import MockModel
from accord.runner.play import play_game
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.schema import Trace


def spec(agent: str, trace_id: str = "s") -> GameSpec:
    return GameSpec(
        trace_id=trace_id,
        game="sorting",
        seed=1,
        options={"n": 3, "k": 2, "mode": "desc", "backend": "p2p"},
        agents=[AgentSpec(agent=agent)] * 3,
    )


def failed_trace() -> Trace:
    trace = asyncio.run(play_game(spec("local-sort")))
    assert trace.metrics["success"] == 0.0
    return trace


def test_only_failed_sorting_games_are_judged() -> None:
    assert needs_judge(failed_trace())
    assert not needs_judge(asyncio.run(play_game(spec("share-all"))))


def test_transcript_shows_turns_submissions_and_rule_labels() -> None:
    text = transcript(failed_trace())
    assert "backend p2p" in text and "=== Phase 1 ===" in text
    assert "[round 1, Agent-0] ```\nsubmit_result" in text
    assert "wrong (premature_submission)" in text and "expected" in text


@pytest.mark.parametrize(
    ("reply", "needle"),
    [
        ('{"evidence": "x"}', "true or false"),
        ('{"convention_misalignment": "yes", "evidence": "x"}', "true or false"),
        ('{"convention_misalignment": true, "evidence": ""}', "non-empty"),
        ('{"convention_misalignment": true, "evidence": "' + "x" * 401 + '"}', "at most 400"),
    ],
)
def test_bad_verdicts_say_what_to_fix(reply: str, needle: str) -> None:
    with pytest.raises(ActionError, match=needle):
        parse_verdict(reply)


def test_a_bad_verdict_is_retried_and_a_good_one_kept() -> None:
    good = json.dumps({"convention_misalignment": True, "evidence": "A splits by index."})
    model = MockModel(replies=["not json", good])
    trace = failed_trace()
    verdict = asyncio.run(judge_trace(model, trace))
    assert verdict == {"convention_misalignment": True, "evidence": "A splits by index."}
    assert len(model.calls) == 2 and "could not be used" in model.calls[1][-1]["content"]
    row = verdict_row(trace, verdict)
    assert row["rule_labels"] == "premature_submission" and row["judged"]
    never = asyncio.run(judge_trace(MockModel(replies=["no"] * 10), trace))
    assert never is None and not verdict_row(trace, never)["judged"]


def test_conventions_table_shares() -> None:
    rows = [
        {"model": "m", "backend": "kv", "rule_labels": "other", "judged": True,
         "convention_misalignment": True},
        {"model": "m", "backend": "kv", "rule_labels": "stale_kv_read", "judged": True,
         "convention_misalignment": False},
        {"model": "m", "backend": "kv", "rule_labels": "other", "judged": False,
         "convention_misalignment": None},
    ]  # fmt: skip
    (t,) = conventions_table(rows)
    assert t["failed games"] == 3 and t["judged"] == 2
    assert t["convention misalignment %"] == "50.0" and t["of those misaligned %"] == "100.0"


def test_accord_judge_writes_the_sorting_verdicts(tmp_path: Path) -> None:
    run_sync([spec("local-sort", "a"), spec("share-all", "b")], tmp_path, concurrency=2)
    result = CliRunner().invoke(app, ["judge", str(tmp_path), "--model", "mock/schema"])
    assert result.exit_code == 0, result.output
    assert "Judged 1/1 failed sorting games" in result.output
    lines = (tmp_path / "judge" / "conventions.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(x)["trace_id"] for x in lines] == ["a"]
    assert (tmp_path / "judge" / "conventions.md").is_file()
