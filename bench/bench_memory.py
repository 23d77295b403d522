"""Peak memory of a run against its size: 20,000 mock games vs 1,000 (printed, never asserted).

Each run plays negotiation games with the mock model in both seats (``mock/schema``: replies
valid against the action schema, no network) at concurrency 500, through `run_specs`: traces
written, then ``results.jsonl`` and ``summary.json`` rebuilt. Each run is a fresh child process,
and its peak resident set size comes from the kernel (``wait4``), so the two numbers are
independent. The rebuild reads one trace at a time, so the large run should peak within 1.2x
of the small one (issue 12 item 9); before streaming, peak memory grew with every game.

Run:  python bench/bench_memory.py [--games 20000] [--baseline 1000] [--concurrency 500]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = """
import sys
from pathlib import Path
from accord.runner.config import Batch, Defaults, Experiment, expand
from accord.runner.run import run_sync

games, concurrency, out = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
exp = Experiment(
    name="bench-memory",
    max_games=games,
    defaults=Defaults(game="negotiation", games=games, agents=["mock/schema", "mock/schema"]),
    batches=[Batch(name="m", options={"rounds": 2, "talk_turns": 1})],
)
report = run_sync(expand(exp), out, concurrency=concurrency)
print(report.played, report.summary["games"], len(report.failed))
"""


def run_child(games: int, concurrency: int, out: Path) -> tuple[float, float, str]:
    """(peak RSS in MB, seconds, the child's output) of one run in a fresh process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(games), str(concurrency), str(out)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    output = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"the {games}-game run failed ({proc.returncode})")
    return usage.ru_maxrss / 1024, time.perf_counter() - t0, output.strip()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--baseline", type=int, default=1_000)
    parser.add_argument("--concurrency", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base_mb, base_s, base_out = run_child(args.baseline, args.concurrency, Path(tmp) / "base")
        big_mb, big_s, big_out = run_child(args.games, args.concurrency, Path(tmp) / "big")
    print(f"{args.baseline:>6} games: peak RSS {base_mb:7.1f} MB  ({base_s:6.1f} s; {base_out})")
    print(f"{args.games:>6} games: peak RSS {big_mb:7.1f} MB  ({big_s:6.1f} s; {big_out})")
    print(f"ratio {big_mb / base_mb:.2f}x for {args.games / args.baseline:.0f}x the games "
          "(target: within 1.2x)")  # fmt: skip


if __name__ == "__main__":
    main()
