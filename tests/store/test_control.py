"""`accord ctl`: a running run paused (no game starts while paused), retuned and resumed, and
stopped with --drain, each change kept with its time in the run's control log."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from accord.runner.control import history, send

Run = Callable[..., subprocess.CompletedProcess[str]]
Start = Callable[..., subprocess.Popen[bytes]]
PLAN = [
    "run", "negotiation", "--model", "mock/schema", "-M", "latency_s=0.1",
    "--concurrency", "1", "-o", "rounds=2",
]  # fmt: skip
ENV = {"ACCORD_CONTROL_POLL_S": "0.2"}


def wait_for(check: Callable[[], bool], what: str, timeout: float = 180) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def idle_for(out: Path, seconds: float) -> bool:
    """Whether no game of the run in `out` was in flight during the next `seconds`."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if list(out.glob("live/*.jsonl")):
            return False
        time.sleep(0.05)
    return True


def acked(out: Path, seq: int) -> dt.datetime | None:
    """When a driver applied control record `seq`, if it did."""
    for path in (out / "control").glob(f"{seq:08d}.applied-*.json"):
        return dt.datetime.fromisoformat(json.loads(path.read_text())["at"])
    return None


def when(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


def test_pause_retune_resume(tmp_path: Path, accord: Run, start_accord: Start) -> None:
    """Pause after the first game; while paused no game starts; concurrency 3 then resume:
    the remaining games run three at a time."""
    out = tmp_path / "run"
    proc = start_accord(*PLAN, "--games", "6", "--out", str(out), env=ENV, cwd=tmp_path)
    try:
        wait_for(lambda: len(list(out.glob("traces/*.json"))) >= 1, "the first game")
        send(out, "pause")  # from Python: `accord ctl` is the same call
        wait_for(lambda: acked(out, 0) is not None, "the pause to be applied", 60)
        # The game in flight finishes; then a game would start at once, were one allowed to.
        # A game admitted a moment before the pause was applied may still be starting: wait
        # until no game has been in flight for a second before counting what starts.
        wait_for(lambda: idle_for(out, 1.0), "the games in flight to end", 120)
        assert send(out, "concurrency", 3).seq == 1
        wait_for(lambda: acked(out, 1) is not None, "the new concurrency", 60)
        assert proc.poll() is None, "the paused run waits"
        assert not list(out.glob("live/*.jsonl")), "no game started while paused"
        resumed = accord("ctl", str(out), "resume", env=ENV, cwd=tmp_path)
        assert resumed.returncode == 0, resumed.stderr
        assert "control record 2" in resumed.stdout
        assert proc.wait(timeout=300) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    pause_at, resume_at = acked(out, 0), acked(out, 2)
    assert pause_at is not None and resume_at is not None
    traces = [json.loads(p.read_text()) for p in sorted(out.glob("traces/*.json"))]
    assert len(traces) == 6 and all(t["status"] == "complete" for t in traces)
    spans = [(when(t["started_at"]), when(t["ended_at"])) for t in traces]
    assert not [s for s, _ in spans if pause_at < s < resume_at], "a game started while paused"
    after = sorted(span for span in spans if span[0] >= resume_at)
    assert len(after) >= 3
    overlapping = any(b[0] < a[1] for a, b in itertools.pairwise(after))
    assert overlapping, "after concurrency 3, games were in flight together"
    log = [r for r in history(out) if "action" in r]
    assert [(r["action"], r.get("value")) for r in log] == [
        ("pause", None),
        ("concurrency", 3),
        ("resume", None),
    ]
    assert all(when(r["at"]) <= resume_at for r in log)


def test_stop_drain_leaves_the_rest_for_resume(
    tmp_path: Path, accord: Run, start_accord: Start
) -> None:
    out = tmp_path / "run"
    proc = start_accord(*PLAN, "--games", "5", "--out", str(out), env=ENV, cwd=tmp_path)
    try:
        wait_for(lambda: len(list(out.glob("traces/*.json"))) >= 1, "the first game")
        send(out, "stop", drain=True)
        assert proc.wait(timeout=300) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    kept = len(list(out.glob("traces/*.json")))
    assert 1 <= kept < 5
    assert all(json.loads(p.read_text())["status"] == "complete" for p in out.glob("traces/*"))
    resumed = accord(*PLAN, "--games", "5", "--out", str(out), "--resume", env=ENV, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert len(list(out.glob("traces/*.json"))) == 5


def test_bad_ctl_input_is_one_line(tmp_path: Path, accord: Run) -> None:
    for args, why in [
        (["ctl", str(tmp_path / "none"), "pause"], "is not a run directory"),
        (["ctl", str(tmp_path), "pause"], "holds no run"),
        (["ctl", str(tmp_path), "concurrency"], "needs a number"),
        (["ctl", str(tmp_path), "jump"], "unknown action"),
    ]:
        result = accord(*args, env=ENV, cwd=tmp_path)
        assert result.returncode == 2 and why in result.stderr, result.stderr
        assert result.stderr.strip().count("\n") == 0
