"""Several drivers, one experiment: three ``accord run --shard auto`` processes on one store
location, one killed with SIGKILL while it holds a game; every planned game is played exactly
once and the traces are those of a single driver."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from accord.store import RunStore
from accord.store.lease import read_record

Run = Callable[..., subprocess.CompletedProcess[str]]
Start = Callable[..., subprocess.Popen[bytes]]
GAMES = 8
PLAN = [
    "run", "negotiation", "--model", "mock/schema", "-M", "latency_s=0.03",
    "--games", str(GAMES), "--concurrency", "1", "-o", "rounds=2",
]  # fmt: skip


def claims_of(store: RunStore, pid: int) -> list[str]:
    """The games whose newest claim belongs to the driver with process id `pid`."""
    held = []
    for entry in store.list("claims"):
        record = json.loads(store.read(entry.name) or b"{}")
        _, lease = read_record(store, str(record.get("driver")))
        if lease is not None and lease.get("pid") == pid:
            held.append(entry.name.split("/")[1])
    return held


def test_three_drivers_one_killed_play_every_game_once(
    bucket: str,
    s3_env: dict[str, str],
    tmp_path: Path,
    accord: Run,
    start_accord: Start,
    normalized: Callable[[object], object],
) -> None:
    loc = f"{bucket}/runs/shared"
    env = {**s3_env, "ACCORD_LEASE_SECONDS": "4"}
    store = RunStore(loc)
    drivers = [start_accord(*PLAN, "--out", loc, "--shard", "auto", env=env, cwd=tmp_path)
               for _ in range(3)]  # fmt: skip
    victim = drivers[0]
    orphaned: list[str] = []
    try:
        end = time.monotonic() + 240
        while not orphaned and time.monotonic() < end and victim.poll() is None:
            orphaned = claims_of(store, victim.pid)
            time.sleep(0.1)
        assert orphaned, "the first driver never claimed a game"
        victim.kill()  # SIGKILL while it holds a claim: its game is orphaned
        victim.wait(timeout=30)
        for proc in drivers[1:]:
            assert proc.wait(timeout=600) == 0, [p.read_text() for p in tmp_path.glob("err-*")]
    finally:
        for proc in drivers:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    planned = [f"negotiation-p00-g{i:03d}" for i in range(GAMES)]
    assert [e.name for e in store.list("traces")] == [f"traces/{t}.json" for t in planned]
    assert store.list("attempts") == [], "no game was replaced"
    assert store.list("claims") == [], "every claim was settled"
    for trace_id in orphaned:  # the killed driver's game was played by another
        assert store.exists(f"traces/{trace_id}.json")
    summary = json.loads(store.read("summary.json") or b"{}")
    assert summary["games"] == GAMES
    rows = (store.read("results.jsonl") or b"").decode().splitlines()
    assert len(rows) == 2 * GAMES

    single = accord(*PLAN, "--out", str(tmp_path / "single"), env=env, cwd=tmp_path)
    assert single.returncode == 0, single.stderr
    for trace_id in planned:
        shared = json.loads(store.read(f"traces/{trace_id}.json") or b"{}")
        alone = json.loads((tmp_path / "single" / "traces" / f"{trace_id}.json").read_text())
        assert normalized(shared) == normalized(alone), trace_id


def test_a_driver_with_another_experiment_is_refused(
    bucket: str, s3_env: dict[str, str], tmp_path: Path, accord: Run
) -> None:
    loc = f"{bucket}/runs/shared"
    quick = ["run", "negotiation", "--agents", "cooperative,greedy", "--out", loc]
    first = accord(*quick, "--games", "2", "--shard", "auto", env=s3_env, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    other = accord(*quick, "--games", "3", "--shard", "auto", env=s3_env, cwd=tmp_path)
    assert other.returncode == 2
    assert "holds another driver's different experiment" in other.stderr
    assert other.stderr.strip().count("\n") == 0
    same = accord(*quick, "--games", "2", "--shard", "auto", env=s3_env, cwd=tmp_path)
    assert same.returncode == 0, same.stderr  # a late driver finds the run finished
    assert len(RunStore(loc).list("traces")) == 2
