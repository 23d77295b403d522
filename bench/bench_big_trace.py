"""A 30 MB trace of 120,000 events: read, reported, leaderboarded, queried and exported
(issue 37 item 7), each command in a fresh process, printing its time and peak memory.
``query`` names the events view (it reads the traces); ``query games`` does not (it reads
the run index, built by that command the first time).

The trace is a real negotiation game of two reference agents whose event list is extended
with 120,000 game events of the kinds the game writes (messages), so every command reads
it as a trace of that game. ``--src DIR`` runs the commands with another checkout's
``src`` first on the import path (the numbers before a change); both can be printed in one
run with ``--src`` given twice (``--src new --src old``).

Run:  python bench/bench_big_trace.py [--events 120000] [--src path/to/src ...]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_CHILD = r"""
import json, resource, sys, time
start = time.perf_counter()
kind, args = sys.argv[1], sys.argv[2:]
if kind == "read_trace":
    import accord
    accord.read_trace(args[0])
elif kind == "read_header":
    from accord.traces.reader import read_header
    read_header(args[0])
else:
    from accord.cli.main import main
    sys.argv = ["accord", *args]
    try:
        main()
    except SystemExit as exc:
        if exc.code not in (0, None):
            raise
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"s": time.perf_counter() - start, "peak_mb": peak}), file=sys.stderr)
"""


def build(run: Path, events: int) -> Path:
    """A run directory with one small game and the big trace beside it."""
    from accord.runner.run import run_sync
    from accord.runner.specs import AgentSpec, GameSpec

    spec = GameSpec(
        trace_id="small",
        game="negotiation",
        seed=1,
        agents=[AgentSpec(agent="cooperative"), AgentSpec(agent="greedy")],
    )
    run_sync([spec], run)
    data = json.loads((run / "traces" / "small.json").read_text())
    t = max((e["t"] for e in data["events"]), default=0)
    text = "x" * 180
    extra = [
        {"type": "message", "t": t + i, "seat": i % 2, "round": i // 100, "text": text}
        for i in range(events)
    ]
    data["trace_id"], data["events"] = "big", data["events"] + extra
    path = run / "traces" / "big.json"
    path.write_text(json.dumps(data, indent=1) + "\n")
    return path


def measure(src: str | None, kind: str, args: list[str], timeout: float) -> str:
    env = dict(os.environ, LITELLM_LOCAL_MODEL_COST_MAP="True", COLUMNS="200")
    if src:
        env["PYTHONPATH"] = src
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD, kind, *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return f"over {timeout:.0f} s (stopped)"
    wall = time.perf_counter() - start
    last = proc.stderr.strip().splitlines()[-1:] or [""]
    try:
        stats = json.loads(last[0])
    except ValueError:
        return f"exit {proc.returncode} after {wall:.1f} s: {last[0][:120]}"
    return f"{stats['s']:7.1f} s  {stats['peak_mb']:7.0f} MB peak  (process {wall:.1f} s)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=120_000)
    parser.add_argument("--src", action="append", default=None, help="checkout src to measure")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--build-only", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build_only is not None:
        build(args.build_only, args.events)
        return
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        # Built in a process of its own: a child's peak memory (ru_maxrss) counts what its
        # parent held when it was forked, so this process must stay small.
        subprocess.run(
            [sys.executable, __file__, "--events", str(args.events), "--build-only", str(run)],
            check=True,
        )
        path = run / "traces" / "big.json"
        print(f"trace: {path.stat().st_size / 1e6:.1f} MB, {args.events} events added")
        cases = {
            "read_trace": ("read_trace", [str(path)]),
            "read_header": ("read_header", [str(path)]),
            "report": ("cli", ["report", str(run)]),
            "leaderboard": ("cli", ["leaderboard", str(run)]),
            "query": ("cli", ["query", str(run), "SELECT count(*) FROM events"]),
            "query games": ("cli", ["query", str(run), "SELECT sum(num_messages) FROM games"]),
            "export": ("cli", ["export", str(run), "--out", f"{tmp}/parquet"]),
            "export --inspect": ("cli", ["export", "--inspect", str(run), "--out", f"{tmp}/i"]),
        }
        for src in args.src or [None]:
            print(f"\nsrc: {src or 'installed accord'}")
            for name, (kind, cargs) in cases.items():
                env_cache = ["ACCORD_CACHE_DIR", str(Path(tmp) / f"cache-{hash(src)}")]
                os.environ[env_cache[0]] = env_cache[1]
                print(f"  {name:18s} {measure(src, kind, cargs, args.timeout)}", flush=True)
            shutil.rmtree(run / "index", ignore_errors=True)  # each checkout builds its own


if __name__ == "__main__":
    main()
