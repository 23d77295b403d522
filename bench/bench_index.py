"""Time to the first answer of `accord query` and `accord report` on runs of 10,000 and
100,000 games, cold and warm, with and without the run index (issue "fast at every size",
item 2).

A run of N traces is made fast: a few real negotiation games of reference agents are played
once, then copied with new trace ids (and seeds) until the run holds N files. Each command
runs in a fresh process (imports included: what a person waits for), and is timed in wall
and CPU seconds (on a shared machine the CPU time is the steadier number):

- ``cold``: nothing derived exists yet (no run index, no query cache);
- ``warm``: the same command again (the index, or the query cache, left by the cold run).

``--src DIR`` runs the commands with another checkout's ``src`` first on the import path
(the numbers before a change); give it twice (``--src new --src old``) to print both in one
run. ``accord index RUN`` is timed too where the checkout has it (what a run's end, or one
command, pays once). The machine's load is printed: compare ratios within one run.

Run:  python bench/bench_index.py [--traces 10000] [--src path/to/src ...] [--skip-report]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_QUERY = "SELECT count(*), avg(efficiency) FROM games WHERE status = 'complete'"


def build(run: Path, n: int, seeds: int = 12) -> None:
    """A run directory of `n` traces: `seeds` played games, copied with new ids."""
    from accord.runner.run import run_sync
    from accord.runner.specs import AgentSpec, GameSpec

    pairs = [("cooperative", "greedy"), ("greedy", "greedy"), ("equal-split", "cooperative")]
    specs = [
        GameSpec(
            trace_id=f"seed{i:02d}",
            game="negotiation",
            seed=i,
            agents=[AgentSpec(agent=a) for a in pairs[i % len(pairs)]],
        )
        for i in range(seeds)
    ]
    played = run.parent / "played"
    run_sync(specs, played)
    texts = [(played / "traces" / f"{s.trace_id}.json").read_text() for s in specs]
    folder = run / "traces"
    folder.mkdir(parents=True)
    for i in range(n):
        text = texts[i % len(texts)]
        data_id = f"g{i:06d}"
        src_id = specs[i % len(specs)].trace_id
        (folder / f"{data_id}.json").write_text(
            text.replace(f'"trace_id": "{src_id}"', f'"trace_id": "{data_id}"', 1)
        )
    (run / "experiment.json").write_text(json.dumps({"note": "copied traces"}))


def timed(src: str | None, args: list[str], cache: Path, timeout: float) -> str:
    env = dict(
        os.environ, LITELLM_LOCAL_MODEL_COST_MAP="True", COLUMNS="200", ACCORD_CACHE_DIR=str(cache)
    )
    if src:
        env["PYTHONPATH"] = src
    start = time.perf_counter()
    cpu = _children_cpu()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "accord", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return f"over {timeout:.0f} s (stopped)"
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        return f"exit {proc.returncode} after {wall:.1f} s: {proc.stderr.strip()[-160:]}"
    return f"{wall:7.1f} s wall {_children_cpu() - cpu:7.1f} s CPU"


def _children_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes: on a machine shared by
    many, wall time mostly measures waiting for a core."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--traces", type=int, default=10_000)
    parser.add_argument("--src", action="append", default=None, help="checkout src to measure")
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--skip-report", action="store_true", help="time query only")
    parser.add_argument("--dir", type=Path, default=None, help="keep the run here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = args.dir or Path(tmp)
        run = base / f"run-{args.traces}"
        if not (run / "traces").is_dir():
            start = time.perf_counter()
            build(run, args.traces)
            print(f"built {args.traces} traces in {time.perf_counter() - start:.0f} s")
        size = sum(p.stat().st_size for p in (run / "traces").iterdir())
        print(f"run: {args.traces} traces, {size / 1e6:.0f} MB; load {os.getloadavg()[0]:.1f}")
        for src in args.src or [None]:
            print(f"\nsrc: {src or 'installed accord'}", flush=True)
            cache = Path(tmp) / f"cache-{abs(hash(src))}"
            cases = [("query", ["query", str(run), _QUERY])]
            if not args.skip_report:
                cases.append(("report", ["report", str(run), "--out", str(Path(tmp) / "rep")]))
            for name, cmd in cases:
                shutil.rmtree(run / "index", ignore_errors=True)
                shutil.rmtree(cache, ignore_errors=True)
                cold = timed(src, cmd, cache, args.timeout)
                warm = timed(src, cmd, cache, args.timeout)
                print(f"  {name:8s} cold {cold}   warm {warm}", flush=True)
            shutil.rmtree(run / "index", ignore_errors=True)
            index = timed(src, ["index", str(run)], cache, args.timeout)
            if "exit" not in index:
                after = timed(src, cases[0][1], cache, args.timeout)
                print(f"  accord index {index}   then query {after}", flush=True)
            shutil.rmtree(run / "index", ignore_errors=True)


if __name__ == "__main__":
    main()
