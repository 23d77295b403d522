"""Fifty games against a mock provider that fails in every way we know; the run survives."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from accord.models import get_model
from accord.models.client import RetryRecord
from accord.runner.config import Batch, Defaults, Experiment, expand
from accord.runner.executors import LocalExecutor
from accord.runner.run import run_sync
from accord.runner.specs import GameSpec
from accord.traces.io import iter_traces
from accord.traces.schema import Trace

FAULTY = {
    "fault_rate": 0.4,
    # Enough retries that no call runs out of them (that would rightly fail its game); the
    # cap lets the mock's Retry-After of 1 s through (waits are recorded, never slept).
    "max_retries": 8,
    "backoff_base_s": 0.001,
    "backoff_cap_s": 1.0,
    "timeout_s": 5.0,
}
LOST = {"faulty-p00-g007", "faulty-p00-g023", "faulty-p00-g041"}


class LosesWorkers(LocalExecutor):
    """Plays games locally, except that the process playing three of them "dies"."""

    async def play(self, spec: GameSpec) -> Trace:
        if spec.trace_id in LOST:
            raise ConnectionResetError("worker lost")
        return await super().play(spec)


def test_every_game_ends_complete_or_failed_with_its_reason(tmp_path: Path, monkeypatch) -> None:
    client = get_model("mock/schema", **FAULTY)  # the very client the games will get
    waits: list[float] = []
    retries: list[RetryRecord] = []

    async def no_wait(seconds: float) -> None:
        waits.append(seconds)  # a 429 asks for 1 s; the test records it instead of waiting

    monkeypatch.setattr(client, "_sleep", no_wait)
    monkeypatch.setattr(client, "on_retry", retries.append)
    faulty = {"model": "mock/schema", "options": FAULTY}
    exp = Experiment(
        name="faults",
        defaults=Defaults(game="negotiation", options={"rounds": 1, "talk_turns": 1}),
        batches=[Batch(name="faulty", games=50, agents=[faulty, faulty])],
    )
    report = run_sync(expand(exp), tmp_path, concurrency=16, executor=LosesWorkers())
    assert report.played == 50 and len(report.failed) == 3

    traces = list(iter_traces(tmp_path / "traces"))
    assert len(traces) == 50 == len(list((tmp_path / "traces").glob("*.json")))
    failed = [t for t in traces if t.status == "failed"]
    assert {t.trace_id for t in failed} == LOST
    for t in failed:
        assert t.error == "ConnectionResetError: worker lost"
        assert any(e["type"] == "game_failed" and e["error"] == t.error for e in t.events)
    assert all(t.status == "complete" for t in traces if t not in failed)

    summary = json.loads((tmp_path / "summary.json").read_text())
    assert (summary["games"], summary["complete"], summary["failed"]) == (50, 47, 3)
    assert sum(g["games"] for g in summary["groups"]) == 50
    rows = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 100
    by_id = {t.trace_id: t.status for t in traces}
    assert all(r["status"] == by_id[r["trace_id"]] for r in rows)

    # Every kind of fault happened: transport failures were retried by the client ...
    errors = " ".join(r["error"] for r in retries)
    for marker in ("HTTP 429", "HTTP 500", "timed out", "connection dropped"):
        assert marker in errors, marker
    assert all(r["wait_s"] >= 1.0 for r in retries if "429" in r["error"]), "Retry-After"
    # Every retry's wait was slept through the client (the shared pool's pauses after a 429
    # go through the same sleep, so they may add waits of their own).
    slept = Counter(round(w, 3) for w in waits)
    wanted = Counter(r["wait_s"] for r in retries)
    assert not wanted - slept
    # ... and bad replies were sent back to the model with the parser's error.
    bad = [e["raw"] for t in traces for e in t.events if e["type"] == "validation_error"]
    assert "" in bad, "empty replies"
    assert any(raw.startswith("more more") for raw in bad), "replies far over the limit"
    assert any(raw.startswith("{") and not _is_json(raw) for raw in bad), "truncated JSON"
    calls = [e for t in traces for e in t.events if e["type"] == "model_call"]
    assert any(e["attempts"] > 1 for e in calls)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return False
    return True
