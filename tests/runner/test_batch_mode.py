"""Batch mode against the fake OpenAI Batch API: the three games complete, their traces equal
the live run's (timing and batch records aside), and the step scheduler batches each step."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from accord.models.batch import BatchOutcome, BatchRequest, request_id
from accord.models.batched import batch_api_for
from accord.runner.batch_plan import with_batch
from accord.runner.batch_store import BatchRecord, load_records, save_record
from accord.runner.planning import plan_run
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.runner.steps import StepScheduler
from accord.testing.batch_server import FakeBatchServer, batch_server

MODEL = "openai-compatible/fake"
CLAUDE = "anthropic/claude-fake"


@pytest.fixture(autouse=True)
def anthropic_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-fake-key")


def specs_for(
    game: str,
    url: str,
    *,
    games: int = 2,
    agents: list[str] | None = None,
    model: str = MODEL,
) -> list[GameSpec]:
    plan = plan_run(game, agents=agents, model=None if agents else model, games=games, seed=7)

    def seat(a: AgentSpec) -> AgentSpec:
        if a.model is None:
            return a
        return a.model_copy(update={"options": {"base_url": url}})

    return [s.model_copy(update={"agents": [seat(a) for a in s.agents]}) for s in plan.specs]


def normalised(trace_file: Path) -> dict[str, Any]:
    """A trace without what differs between a live and a batch run: wall-clock times, the
    batch that answered each call, the version headers of live replies, and the seats'
    batch flag."""
    data = json.loads(trace_file.read_text())
    for key in ("started_at", "ended_at"):
        data.pop(key, None)
    for event in data["events"]:
        if event["type"] == "model_call":
            event.pop("latency_s", None)
            event.pop("batch", None)
            event.pop("versions", None)  # HTTP headers of a live reply: a batch line has none
    for usage in data["usage"].values():
        usage.pop("latency_s", None)
    for agent in data["agents_config"]:
        agent.pop("batch", None)
    return data


def traces(out: Path) -> dict[str, dict[str, Any]]:
    return {p.stem: normalised(p) for p in sorted((out / "traces").glob("*.json"))}


def play(specs: list[GameSpec], out: Path, **kw: Any) -> Any:
    return run_sync(specs, out, concurrency=4, live=False, batch_poll_s=0.01, **kw)


@pytest.mark.parametrize("game", ["negotiation", "calendar", "sorting"])
def test_batch_traces_equal_live(game: str, tmp_path: Path) -> None:
    with batch_server() as server:
        specs = specs_for(game, server.url)
        live = play(specs, tmp_path / "live")
        assert server.live_calls > 0 and server.creates == 0
        calls_live = server.live_calls
        batch = play(with_batch(specs), tmp_path / "batch")
        assert server.live_calls == calls_live  # nothing went out live in batch mode
    assert live.failed == [] and batch.failed == []
    got, want = traces(tmp_path / "batch"), traces(tmp_path / "live")
    assert set(got) == set(want) and got
    for tid in want:
        assert got[tid]["status"] == "complete"
        assert got[tid] == want[tid], tid
    assert server.paid_twice() == []
    assert sum(server.paid.values()) == calls_live
    # Lock-step: the two games' calls of one step share a batch.
    assert server.creates < calls_live
    calls = [
        e
        for p in (tmp_path / "batch" / "traces").glob("*.json")
        for e in json.loads(p.read_text())["events"]
        if e["type"] == "model_call"
    ]
    assert calls and all(e["batch"]["id"].startswith("b") for e in calls)
    records = sorted((tmp_path / "batch" / "batches").glob("*.json"))
    assert len(records) == server.creates
    assert all(json.loads(r.read_text())["state"] == "done" for r in records)


def test_reference_seat_plays_live_beside_a_batch_seat(tmp_path: Path) -> None:
    with batch_server() as server:
        specs = with_batch(specs_for("negotiation", server.url, agents=[MODEL, "cooperative"]))
        report = play(specs, tmp_path / "run")
    assert report.failed == []
    assert server.creates > 0 and server.live_calls == 0
    assert [a.batch for a in specs[0].agents] == [True, None]


def _run_with(server: FakeBatchServer, out: Path, model: str = MODEL) -> Any:
    return play(with_batch(specs_for("negotiation", server.url, games=2, model=model)), out)


@pytest.mark.parametrize("game", ["negotiation", "calendar", "sorting"])
def test_anthropic_message_batches_play_the_three_games(game: str, tmp_path: Path) -> None:
    with batch_server() as server:
        report = play(with_batch(specs_for(game, server.url, model=CLAUDE)), tmp_path / "run")
    assert report.failed == []
    assert server.creates > 0 and server.live_calls == 0
    assert server.paid_twice() == []
    calls = [
        e
        for p in (tmp_path / "run" / "traces").glob("*.json")
        for e in json.loads(p.read_text())["events"]
        if e["type"] == "model_call"
    ]
    assert len(calls) == sum(server.paid.values())
    assert all(e["batch"]["id"] for e in calls)


@pytest.mark.parametrize("model", [MODEL, CLAUDE])
def test_failed_and_malformed_lines_are_resubmitted_visibly(model: str, tmp_path: Path) -> None:
    with batch_server(fail_first=2, malformed_first=1) as server:
        report = _run_with(server, tmp_path / "run", model)
    assert report.failed == []
    events = [
        e
        for p in (tmp_path / "run" / "traces").glob("*.json")
        for e in json.loads(p.read_text())["events"]
        if e["type"] == "model_call" and e.get("retries")
    ]
    errors = [r["error"] for e in events for r in e["retries"]]
    assert len(errors) == 3
    assert sum("server_error" in e or "api_error" in e for e in errors) == 2
    assert sum("not answered" in e for e in errors) == 1
    assert report.batches["resubmitted"] == 3


@pytest.mark.parametrize("model", [MODEL, CLAUDE])
def test_expired_batch_resubmits_only_what_is_missing(model: str, tmp_path: Path) -> None:
    with batch_server(expire={1}) as server:
        report = _run_with(server, tmp_path / "run", model)
        first = json.loads(
            sorted((tmp_path / "run" / "batches").glob("b00001-*.json"))[0].read_text()
        )
        second = json.loads(
            sorted((tmp_path / "run" / "batches").glob("b00002-*.json"))[0].read_text()
        )
    assert report.failed == []
    assert first["status"] in ("expired", "ended")
    n = len(first["requests"])
    assert second["resubmitted"] == n - n // 2
    assert server.paid_twice() == []


def test_a_request_never_answered_fails_its_game(tmp_path: Path) -> None:
    with batch_server(expire={1, 2, 3, 4, 5, 6, 7, 8}) as server:
        report = play(with_batch(specs_for("negotiation", server.url, games=1)), tmp_path / "r")
    assert len(report.failed) == 1
    trace = json.loads(next((tmp_path / "r" / "traces").glob("*.json")).read_text())
    assert trace["status"] == "failed"
    assert "no batch answered" in trace["error"]
    assert server.creates == 4  # the first submission and three resubmissions


def _record_of(out: Path, number: int) -> dict[str, Any] | None:
    for path in (out / "batches").glob(f"b{number:05d}-*.json"):
        try:
            return dict(json.loads(path.read_text()))
        except ValueError:  # caught mid-rename: read it again
            return None
    return None


@pytest.mark.parametrize(
    ("model", "hold_from", "resume_with"),
    [(MODEL, 1, "4"), (MODEL, 3, "1"), (CLAUDE, 2, "4")],
)
def test_kill_during_a_pending_batch_then_resume_pays_for_nothing_twice(
    model: str, hold_from: int, resume_with: str, tmp_path: Path
) -> None:
    """Killed with both games waiting on a pending batch; resumed with as many games at
    once, or one at a time (so the second game asks for its calls only after the batch it
    shared with the first was followed to its end)."""
    killed = tmp_path / "killed"
    with batch_server(hold_from=hold_from) as server:
        cmd = [sys.executable, "-m", "accord", "run", "negotiation", "--model", model]
        cmd += ["--model-base-url", server.url, "--batch", "--batch-poll", "0.01"]
        cmd += ["--games", "2", "--seed", "7", "--out", str(killed)]
        log = tmp_path / "stderr.txt"
        with log.open("wb") as err:
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            record = _record_of(killed, hold_from)
            if record is not None and record["state"] == "submitted" and record["status"]:
                break  # submitted, and polled at least once: pending at the provider
            if proc.poll() is not None:
                pytest.fail(f"run ended before the kill: {log.read_text()}")
            time.sleep(0.01)
        else:
            pytest.fail("the held batch was never submitted")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        created_before = server.creates
        assert not list((killed / "traces").glob("*.json"))  # both games were in flight
        server.release()
        resume = [*cmd, "--resume", "--concurrency", resume_with]
        resumed = subprocess.run(resume, capture_output=True, text=True)
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
        assert server.paid_twice() == []
        created = server.creates
        # The uninterrupted run: live for the OpenAI-style server (its live path is the same
        # request), in batch mode for Anthropic (whose live calls go through LiteLLM).
        clean = specs_for("negotiation", server.url, model=model)
        play(with_batch(clean) if model == CLAUDE else clean, tmp_path / "live")
    # The batch pending at the kill was followed, not submitted again.
    records = [json.loads(p.read_text()) for p in (killed / "batches").glob("*.json")]
    ids = [cid for r in records for cid in (q["custom_id"] for q in r["requests"])]
    assert len(ids) == len(set(ids))
    assert len(records) == created > created_before
    got, want = traces(killed), traces(tmp_path / "live")
    assert got == want and len(got) == 2


def test_a_batch_created_just_before_a_kill_is_found_by_its_label(tmp_path: Path) -> None:
    """The provider accepted the batch but the kill came before its id was written: the
    record says 'submitting', and the resumed run finds the batch by its label."""
    folder = tmp_path / "batches"
    with batch_server() as server:
        api = batch_api_for(MODEL, {"base_url": server.url})
        request = BatchRequest(
            request_id("s", {"model": "fake", "messages": []}),
            {"model": "fake", "messages": [{"role": "user", "content": "hi"}]},
        )
        record = BatchRecord(
            label="b00001-aaaa",
            api=api.describe(),
            requests=[{"custom_id": request.custom_id, "body": request.body}],
        )
        save_record(folder, record)

        async def go() -> BatchOutcome:
            await api.submit([request], label=record.label)  # then the kill
            steps = StepScheduler(folder, poll_s=0.01)
            try:
                return await steps.ask(api, request)
            finally:
                await steps.aclose()

        outcome = asyncio.run(go())
    assert outcome.ok and outcome.batch == "b00001-aaaa"
    assert server.creates == 1 and server.paid_twice() == []
    assert load_records(folder)[0].state == "done"


def test_the_model_cache_answers_before_any_batch(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with batch_server() as server:
        specs = with_batch(specs_for("negotiation", server.url, games=1))
        first = play(specs, tmp_path / "first", cache=cache)
        created = server.creates
        second = play(specs, tmp_path / "second", cache=cache)
    assert first.failed == [] and second.failed == []
    assert created > 0 and server.creates == created  # every call of the replay was a hit
    assert second.cache is not None and second.cache.misses == 0


def test_a_seat_can_answer_what_no_batch_answered_live(tmp_path: Path) -> None:
    with batch_server(expire={1, 2, 3, 4, 5, 6, 7, 8, 9, 10}) as server:
        specs = with_batch(specs_for("negotiation", server.url, games=1))
        live_fallback = [
            s.model_copy(
                update={
                    "agents": [
                        a.model_copy(update={"options": {**a.options, "batch_missing": "live"}})
                        for a in s.agents
                    ]
                }
            )
            for s in specs
        ]
        report = play(live_fallback, tmp_path / "r")
    assert report.failed == []
    assert server.live_calls > 0
    calls = [
        e
        for e in json.loads(next((tmp_path / "r" / "traces").glob("*.json")).read_text())["events"]
        if e["type"] == "model_call"
    ]
    answered_live = [e for e in calls if e["batch"]["id"] == "live"]
    assert answered_live and all("batch_expired" in e["retries"][0]["error"] for e in answered_live)
    assert len(answered_live) == server.live_calls
