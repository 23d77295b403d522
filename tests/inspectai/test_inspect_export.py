"""`accord export --inspect RUN`: Inspect AI logs written from an Accord run's traces."""

from __future__ import annotations

import json
import math
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("inspect_ai", reason="Inspect AI is not installed (the inspect extra)")

from inspect_ai.log import read_eval_log

from accord.cli.main import app
from accord.traces.io import read_trace

runner = CliRunner(env={"COLUMNS": "200"})

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run with model seats (the schema-following mock) and one with reference agents."""
    base = tmp_path_factory.mktemp("inspect-export")
    out = base / "run"
    (out / "traces").mkdir(parents=True)
    for i, args in enumerate(
        (
            ["negotiation-v3", "--model", "mock/schema", "--games", "2"],
            ["sorting-v3", "--agents", "share-all,share-all,share-all", "--games", "1"],
        )
    ):
        result = runner.invoke(app, ["run", *args, "--out", str(base / str(i))])
        assert result.exit_code == 0, result.output
        for path in (base / str(i) / "traces").glob("*.json"):
            shutil.copy(path, out / "traces" / path.name)
    return out


def test_export_writes_one_log_per_game_with_transcripts_and_scores(
    run_dir: Path, tmp_path: Path
) -> None:
    target = tmp_path / "logs"
    result = runner.invoke(app, ["export", "--inspect", str(run_dir), "--out", str(target)])
    assert result.exit_code == 0, result.output
    logs = sorted(target.glob("*.eval"))
    assert len(logs) == 2
    by_task = {
        read_eval_log(str(p), resolve_attachments=True).eval.task: read_eval_log(
            str(p), resolve_attachments=True
        )
        for p in logs
    }
    assert set(by_task) == {"accord_negotiation_v3", "accord_sorting_v3"}

    neg = by_task["accord_negotiation_v3"]
    traces = {p.stem: read_trace(p) for p in sorted((run_dir / "traces").glob("negotiation*"))}
    assert neg.samples is not None and [s.id for s in neg.samples] == list(traces)
    for sample in neg.samples:
        trace = traces[str(sample.id)]
        # The score is the game's summary metrics, exactly.
        value = sample.scores["accord_metrics"].value
        for key in ("overdraw_rate", "efficiency", "optimum_rate", "early_decision_rate"):
            want = trace.metrics[key]
            assert (math.isnan(value[key]) and want is None) or value[key] == pytest.approx(want)
        # One model event per model call, sent exactly the messages the transcript names.
        calls = [e for e in trace.events if e["type"] == "model_call"]
        events = [e for e in sample.events if e.event == "model"]
        assert len(events) == len(calls) > 0
        for call, event in zip(calls, events, strict=True):
            seat = trace.seats[call["seat"]].name
            stored = trace.transcripts[seat].messages
            sent = [m for a, b in call["sent"] for m in stored[a : b + 1]]
            assert event.role == seat and event.model == "mock/schema"
            assert [m.text for m in event.input] == [m["content"] for m in sent]
            assert event.output.completion == stored[call["reply"]]["content"]
        # Token usage per role is the trace's usage per seat.
        for seat in ("A", "B"):
            assert sample.role_usage[seat].input_tokens == trace.usage[seat].input_tokens
        assert sample.store["accord_trace"]["trace_id"] == trace.trace_id
    # Means over games: what Accord's summary gives.
    eff = [t.metrics["efficiency"] for t in traces.values()]
    score = next(s for s in neg.results.scores if s.name == "efficiency")
    assert score.metrics["mean"].value == pytest.approx(sum(eff) / len(eff))

    sorting = by_task["accord_sorting_v3"]
    assert sorting.samples is not None and len(sorting.samples) == 1
    assert not [e for e in sorting.samples[0].events if e.event == "model"]  # reference agents
    assert "wrote" in result.output and "2 games" in result.output


def test_failed_game_is_unscored_and_secrets_never_reach_the_log(
    run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-test-Zq81vK2mNp4RtY7wXc"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    copy = tmp_path / "run" / "traces"
    copy.mkdir(parents=True)
    source = sorted((run_dir / "traces").glob("negotiation*"))[0]
    data = json.loads(source.read_text())
    data["status"], data["error"] = "failed", f"bad key {secret}"
    data["transcripts"]["A"]["messages"][1]["content"] += f" (the key is {secret})"
    (copy / source.name).write_text(json.dumps(data))
    (copy / "broken.json").write_text("{not json")

    target = tmp_path / "logs"
    result = runner.invoke(
        app, ["export", "--inspect", str(tmp_path / "run"), "--out", str(target)]
    )
    assert result.exit_code == 0, result.output
    assert "skipped" in result.output and "broken.json" in result.output
    (path,) = target.glob("*.eval")
    log = read_eval_log(str(path), resolve_attachments=True)
    assert log.samples is not None
    score = log.samples[0].scores["accord_metrics"]
    assert isinstance(score.value, float) and math.isnan(score.value)
    assert all(s.scored_samples == 0 for s in log.results.scores)
    with zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            assert secret not in archive.read(name).decode("utf-8", "replace"), name
    assert "[redacted:OPENAI_API_KEY]" in log.samples[0].messages[1].text


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, run_dir: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = runner.invoke(app, ["export", "--inspect", str(empty)])
    assert result.exit_code == 2
    assert "no readable trace" in result.output and len(result.output.strip().splitlines()) == 1

    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = runner.invoke(app, ["export", "--inspect", str(run_dir), "--out", str(blocker)])
    assert result.exit_code == 2 and "not a directory" in result.output


def test_missing_inspect_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from accord.core.errors import ConfigError
    from accord.inspectai import require_inspect

    monkeypatch.setitem(sys.modules, "inspect_ai", None)
    with pytest.raises(ConfigError, match=r"pip install 'accord\[inspect\]'"):
        require_inspect()


def test_export_help_shows_the_inspect_example(cli_help: Callable[..., str]) -> None:
    assert "accord export --inspect" in cli_help("export")
