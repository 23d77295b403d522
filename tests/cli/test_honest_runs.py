"""Runs against models that cannot answer: failed games, exit codes, visible errors, resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from accord.cli.main import app
from accord.testing.wire import error_body, openai_body, wire_server
from accord.traces.io import iter_traces, read_trace

runner = CliRunner(env={"COLUMNS": "200"})

DEAD = {"fault_rate": 1.0, "faults": ["timeout"], "max_retries": 0}


def _experiment(tmp_path: Path, game: str, options: dict, agents: list, games: int = 2) -> Path:
    path = tmp_path / "exp.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "name": "honest",
                "defaults": {"game": game, "games": games, "options": options},
                "batches": [{"name": "b", "agents": agents}],
            }
        )
    )
    return path


GAMES = [
    ("negotiation", {"rounds": 1, "talk_turns": 1}, 2),
    ("sorting", {"n": 2, "k": 2, "max_rounds": 3}, 2),
    ("calendar", {}, 3),
]


@pytest.mark.parametrize(("game", "options", "seats"), GAMES)
def test_a_model_that_never_answers_fails_every_game(tmp_path, game, options, seats) -> None:
    dead = {"model": "mock/schema", "options": DEAD}
    exp = _experiment(tmp_path, game, options, [dead] * seats)
    out = tmp_path / "run"
    result = runner.invoke(app, ["run", str(exp), "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert "2 games failed" in result.output
    assert "2 x mock/schema: all 1 attempts failed; last error: request timed out" in result.output
    assert "model error:" in result.output, "the error is shown when it happens"
    assert "--resume" in result.output
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["games"], summary["complete"], summary["failed"]) == (2, 0, 2)
    (group,) = summary["groups"]
    assert group["failed"] == 2
    # No fallback outcome enters a mean: every metric has no value at all.
    assert all(m["n"] == 0 for m in group["metrics"].values())
    for trace in iter_traces(out / "traces"):
        assert trace.status == "failed"
        assert "could not reach its model" in (trace.error or "")
        assert any(e["type"] == "model_error" for e in trace.events)
        assert not [e for e in trace.events if e["type"] == "heuristic_fallback"]
    rows = [json.loads(r) for r in (out / "results.jsonl").read_text().splitlines()]
    assert rows and all(r["status"] == "failed" for r in rows)


def test_max_failures_tolerates_some_and_resume_retries_them(tmp_path) -> None:
    dead = {"model": "mock/schema", "options": DEAD}
    exp = _experiment(tmp_path, "negotiation", {"rounds": 1, "talk_turns": 1}, [dead, dead])
    out = tmp_path / "run"
    assert (
        runner.invoke(app, ["run", str(exp), "--out", str(out), "--max-failures", "2"]).exit_code
        == 0
    )
    assert (
        runner.invoke(app, ["run", str(exp), "--out", str(out), "--max-failures", "0.5"]).exit_code
        == 2
    ), "a fresh run refuses a used folder"
    again = runner.invoke(
        app, ["run", str(exp), "--out", str(out), "--resume", "--max-failures", "0.5"]
    )
    assert again.exit_code == 1, again.output
    assert "Playing 2 games" in again.output, "failed games are played again on resume"
    kept = runner.invoke(app, ["run", str(exp), "--out", str(out), "--resume", "--skip-failed"])
    assert kept.exit_code == 0, kept.output
    assert "Playing 0 games" in kept.output and "2 of 2 already finished" in kept.output
    bad = runner.invoke(app, ["run", str(exp), "--out", str(out), "--max-failures", "1.5"])
    assert bad.exit_code == 2 and "--max-failures" in bad.output


def test_bad_output_is_scored_and_its_fallback_rate_reported(tmp_path) -> None:
    # mock/echo repeats the prompt: a working model with unusable replies, not an outage.
    out = tmp_path / "run"
    result = runner.invoke(
        app,
        [
            "run",
            "negotiation",
            "--model",
            "mock/echo",
            "-o",
            "rounds=1",
            "-o",
            "talk_turns=1",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    (group,) = summary["groups"]
    rate = group["fallback_rate"]
    assert group["complete"] == 1 and group["fallbacks"] > 0
    assert rate == group["fallbacks"] / group["model_decisions"]
    (trace,) = iter_traces(out / "traces")
    fallbacks = [e for e in trace.events if e["type"] == "heuristic_fallback"]
    assert len(fallbacks) == group["fallbacks"]
    assert "fallback %" in result.output and f"{100 * rate:.1f}" in result.output


def test_model_base_url_and_model_options_on_the_command_line(tmp_path) -> None:
    reply = '{"message": "Let us share.", "done": true}'
    with wire_server([(200, {}, openai_body(reply))] * 40) as server:
        out = tmp_path / "run"
        result = runner.invoke(
            app,
            [
                "run",
                "negotiation",
                "--model",
                "openai-compatible/tiny",
                "--model-base-url",
                f"{server.url}/v1",
                "-M",
                "timeout_s=30",
                "-M",
                "max_retries=0",
                "-o",
                "rounds=1",
                "-o",
                "talk_turns=1",
                "--out",
                str(out),
            ],
        )
    assert result.exit_code == 0, result.output
    (trace,) = iter_traces(out / "traces")
    assert trace.agents_config[0]["options"] == {
        "base_url": f"{server.url}/v1",
        "timeout_s": 30,
        "max_retries": 0,
    }
    assert server.requests and server.requests[0]["path"] == "/v1/chat/completions"


def test_missing_base_url_says_where_to_put_it(tmp_path) -> None:
    result = runner.invoke(
        app, ["run", "negotiation", "--model", "openai-compatible/x", "--out", str(tmp_path)]
    )
    assert result.exit_code == 2 and "--model-base-url" in result.output
    bad = runner.invoke(
        app,
        [
            "run",
            "negotiation",
            "--model",
            "mock/schema",
            "-M",
            "nope=1",
            "--out",
            str(tmp_path / "b"),
        ],
    )
    assert bad.exit_code == 2 and "nope" in bad.output


@pytest.mark.parametrize(("status", "expect"), [(401, "HTTP 401"), (404, "/v1"), (503, "HTTP 503")])
def test_a_broken_server_fails_the_run_loudly(tmp_path, status, expect) -> None:
    with wire_server([(status, {}, error_body("no"))] * 20) as server:
        base = server.url + ("/v1" if status != 404 else "")
        result = runner.invoke(
            app,
            [
                "run",
                "negotiation",
                "--model",
                "openai-compatible/tiny",
                "--model-base-url",
                base,
                "-M",
                "max_retries=1",
                "-M",
                "backoff_base_s=0.01",
                "-o",
                "rounds=1",
                "--out",
                str(tmp_path / "run"),
            ],
        )
    assert result.exit_code == 1, result.output
    assert "1 games failed" in result.output and expect in result.output


def _cli(*args: str, cwd: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "COLUMNS": "200", "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "accord", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )


@pytest.mark.parametrize(
    ("sig", "code", "name"), [(signal.SIGTERM, 143, "SIGTERM"), (signal.SIGINT, 130, "SIGINT")]
)
def test_a_signal_stops_cleanly_and_keeps_what_finished(tmp_path, sig, code, name) -> None:
    slow = {"model": "mock/schema", "options": {"latency_s": 0.05}}
    exp = _experiment(tmp_path, "negotiation", {"rounds": 1, "talk_turns": 1}, [slow, slow], 400)
    out = tmp_path / "run"
    proc = _cli("run", str(exp), "--out", str(out), "--concurrency", "2", cwd=tmp_path)
    deadline = time.monotonic() + 120
    while len(list((out / "traces").glob("*.json"))) < 3:
        assert proc.poll() is None and time.monotonic() < deadline, "run ended too early"
        time.sleep(0.1)
    proc.send_signal(sig)
    output, _ = proc.communicate(timeout=120)
    assert proc.returncode == code, output
    assert f"Stopped by {name}" in output and "--resume" in output
    summary = json.loads((out / "summary.json").read_text())
    kept = list((out / "traces").glob("*.json"))
    assert summary["games"] == len(kept) >= 3
    assert len((out / "results.jsonl").read_text().splitlines()) == 2 * len(kept)
    assert all(read_trace(p).status == "complete" for p in kept)
    assert not list((out / "traces").glob(".*.tmp"))


def test_piped_runs_print_a_status_line(tmp_path) -> None:
    from accord.runner.monitor import RunMonitor

    ticks = iter(range(0, 10_000, 10))
    monitor = RunMonitor(total=10, already=2, clock=lambda: float(next(ticks)))
    line = monitor.status_line()
    assert line.startswith("games 2/10 (failed 0, in flight 0) | calls 0")
    assert "ETA unknown" in line and "$0.0000" in line


def test_transcript_prints_what_each_call_was_sent_and_returned(tmp_path) -> None:
    out = tmp_path / "run"
    played = runner.invoke(
        app,
        [
            "run",
            "negotiation",
            "--model",
            "mock/schema",
            "-o",
            "rounds=2",
            "-o",
            "talk_turns=1",
            "--out",
            str(out),
        ],
    )
    assert played.exit_code == 0, played.output
    (path,) = (out / "traces").glob("*.json")
    trace = read_trace(path)
    system = trace.transcripts["A"].messages[0]["content"]
    result = runner.invoke(app, ["transcript", str(path), "--seat", "A"])
    assert result.exit_code == 0, result.output
    assert "call 1" in result.output and "#0 system" in result.output
    assert system.splitlines()[0][:60] in result.output
    # Without --full the system prompt is printed once, however many calls resend it.
    assert result.output.count("#0 system") == 1
    full = runner.invoke(app, ["transcript", str(path), "--seat", "0", "--call", "2", "--full"])
    assert full.exit_code == 0 and "call 2" in full.output and "call 1" not in full.output
    assert "#0 system" in full.output
    missing = runner.invoke(app, ["transcript", str(path), "--seat", "Z"])
    assert missing.exit_code == 2 and "seats with one: A, B" in missing.output
    nocall = runner.invoke(app, ["transcript", str(path), "--seat", "A", "--call", "999"])
    assert nocall.exit_code == 2 and "no call 999" in nocall.output


def test_verbose_logs_every_call_and_retry(tmp_path) -> None:
    flaky = {
        "model": "mock/schema",
        "options": {
            "fault_rate": 0.5,
            "faults": ["500"],
            "max_retries": 8,
            "backoff_base_s": 0.001,
        },
    }
    exp = _experiment(tmp_path, "negotiation", {"rounds": 1, "talk_turns": 1}, [flaky, flaky], 1)
    result = runner.invoke(app, ["run", str(exp), "--out", str(tmp_path / "run"), "--verbose"])
    assert result.exit_code == 0, result.output
    assert "call mock/schema:" in result.output and "retry mock/schema: attempt 1" in result.output
    # The first HTTP 500 is announced once as a transient error, not once per retry.
    assert result.output.count("model error:") == 1


def test_the_heartbeat_fires_while_games_play_and_the_monitor_counts(tmp_path) -> None:
    from accord.runner.config import Batch, Defaults, Experiment, expand
    from accord.runner.monitor import RunMonitor
    from accord.runner.run import run_sync

    slow = {"model": "mock/schema", "options": {"latency_s": 0.02}}
    exp = Experiment(
        name="beat",
        defaults=Defaults(game="negotiation", options={"rounds": 1, "talk_turns": 1}),
        batches=[Batch(name="b", games=3, agents=[slow, slow])],
    )
    lines: list[str] = []
    monitor = RunMonitor(total=3)
    report = run_sync(
        expand(exp),
        tmp_path / "run",
        concurrency=1,
        monitor=monitor,
        heartbeat=(0.05, lambda: lines.append(monitor.status_line())),
    )
    assert report.played == 3 and lines, "a status line while games play"
    traces = list(iter_traces(tmp_path / "run" / "traces"))
    calls = sum(t.usage["total"].calls for t in traces)
    tokens = sum(t.usage["total"].input_tokens + t.usage["total"].output_tokens for t in traces)
    assert (monitor.done, monitor.failed, monitor.in_flight) == (3, 0, 0)
    assert monitor.calls == calls and monitor.input_tokens + monitor.output_tokens == tokens
    assert monitor.status_line().startswith("games 3/3 (failed 0, in flight 0)")
