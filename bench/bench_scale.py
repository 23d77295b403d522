"""A run at scale: many mock games through one driver, into a local folder and into an S3
server, then read back (printed, never asserted).

Each play is a fresh child process that plays N negotiation games (one round, one talk turn,
``mock/schema`` in both seats: no latency, the cheapest game with model seats) through
`run_specs` at ``--concurrency``, into a local run folder or ``s3://bench/run-N`` on moto's
S3 server (started here on 127.0.0.1, as the store tests do). Its wall time gives games per
second, and its peak resident set size comes from the kernel (``wait4``). Peak memory of the
largest size against the smallest is the figure to watch (target: within 1.2x). The planned
games themselves (the list of `GameSpec` a run is given, about 2 KB each) are measured apart
(``planned MB``: the resident size once they are built, before the run starts), so what the
runner adds over them (``peak-plan``) shows on its own.

Each local run is then read back, in a fresh child each: ``accord.load`` (every trace into
records), ``accord query`` (``SELECT count(*) ... FROM games`` with the per-run cache built,
then warm) and ``accord report``; each is printed as seconds per 1,000 traces.

On a machine of two shared cores 100,000 games take most of an hour per target: pass
``--sizes 10000,30000`` and extrapolate (the output says which sizes ran).

Measured on two cores shared with other heavy work (2,000 and 10,000 games):

    local   2,000: 15.6 games/s, peak 108.1 MB (plan 64.1, runner 44.0)
    local  10,000: 12.8 games/s, peak 113.5 MB (plan 69.6, runner 43.9)  1.05x, runner flat
    s3      2,000: 11.0 games/s, peak 104.3 MB (plan 63.9, runner 40.4)
    s3     10,000: 18.2 games/s, peak 150.1 MB (plan 69.3, runner 80.9)  1.44x
    read 10,000 local traces, per 1,000: load 7.4 s, query 7.4 s cold / 0.1 s warm,
    report 23 s (peak 1.2 GB)

Run:  python bench/bench_scale.py [--sizes 10000,100000] [--targets local,s3] [--read]
      python bench/bench_scale.py --read-only RUN_DIR... [--what load,query,report]
"""

from __future__ import annotations

import argparse
import logging
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

PLAY = """
import asyncio, sys, time
from pathlib import Path
from accord.runner.config import Batch, Defaults, Experiment, expand
from accord.runner.run import run_specs

games, concurrency, out, store = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
exp = Experiment(
    name="bench-scale",
    max_games=games,
    defaults=Defaults(game="negotiation", games=games, agents=["mock/schema", "mock/schema"]),
    batches=[Batch(name="m", options={"rounds": 1, "talk_turns": 1})],
)
specs = expand(exp)
plan_mb = int(open("/proc/self/statm").read().split()[1]) * 4096 / 2**20
options = {"store": store} if store != "-" else {}
t0 = time.perf_counter()
report = asyncio.run(run_specs(specs, Path(out), concurrency=concurrency, **options))
elapsed = time.perf_counter() - t0
assert report.played == games and not report.failed, (report.played, report.failed[:3])
print(elapsed, report.summary["games"], plan_mb)
"""

READ = """
import sys, tempfile, time
from pathlib import Path
import accord
from accord.analysis.query import run_query
from accord.analysis.report import build_report

run, what = Path(sys.argv[1]), sys.argv[2]
t0 = time.perf_counter()
if what == "load":
    n = len(accord.load(run).games)
elif what == "query":
    (n,), = run_query([run], "SELECT count(*) FROM games")[2]
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    run_query([run], "SELECT game, avg(efficiency) FROM games GROUP BY game")
    print(cold, n)
elif what == "report":
    build_report([run], Path(tempfile.mkdtemp()) / "report")
    n = -1
print(time.perf_counter() - t0, n)
"""


def _run(
    code: str, *args: str, env: dict[str, str] | None = None
) -> tuple[list[str], float, float]:
    """Run `code` in a fresh interpreter: (its output lines, its own peak RSS in MB, wall
    seconds); its errors go to a file, so a full pipe never blocks it."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as errors:
        proc = subprocess.Popen(
            [sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=errors,
            text=True, env={**os.environ, **(env or {})},
        )  # fmt: skip
        assert proc.stdout is not None
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            errors.seek(0)
            raise SystemExit(f"{args} failed ({proc.returncode}):\n{errors.read()[-3000:]}")
    return out.strip().splitlines(), usage.ru_maxrss / 1024, time.perf_counter() - t0


def _numbers(line: str) -> bool:
    try:
        [float(x) for x in line.split()]
    except ValueError:
        return False
    return len(line.split()) == 2


def _s3() -> object:
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    os.environ.update(
        AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench-secret-value",
        AWS_REGION="us-east-1", AWS_ENDPOINT_URL=f"http://{host}:{port}", AWS_ALLOW_HTTP="true",
    )  # fmt: skip
    request = urllib.request.Request(f"http://{host}:{port}/bench", method="PUT")
    urllib.request.urlopen(request).close()
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="Comma-separated game counts.")
    parser.add_argument("--targets", default="local,s3", help="local, s3 or both.")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--read", action="store_true", help="Also read the local runs back.")
    parser.add_argument("--keep", type=Path, default=None, help="Keep the runs in this folder.")
    parser.add_argument("--what", default="load,query,report", help="What to read back.")
    parser.add_argument(
        "--read-only", type=Path, nargs="*", default=None, help="Only read these runs back."
    )
    args = parser.parse_args()
    if args.read_only is not None:
        args.read, args.targets = True, ""
    sizes = [int(s) for s in args.sizes.split(",")]
    targets = [t for t in args.targets.split(",") if t]
    server = _s3() if "s3" in targets else None
    root = args.keep or Path(tempfile.mkdtemp(prefix="accord-scale-"))
    root.mkdir(parents=True, exist_ok=True)
    print(f"negotiation, 1 round x 1 turn, mock/schema seats, concurrency {args.concurrency}")
    print(f"{'target':<7}{'games':>8}{'play s':>10}{'games/s':>9}{'peak MB':>9}{'x first':>8}"
          f"{'planned MB':>11}{'peak-plan':>10}{'x first':>8}")  # fmt: skip
    local_runs: list[tuple[int, Path]] = [
        (len(list((run / "traces").glob("*.json"))), run) for run in args.read_only or []
    ]
    for target in targets:
        first = None
        for n in sizes:
            out = root / f"{target}-{n}"
            store = f"s3://bench/run-{n}" if target == "s3" else "-"
            lines, peak, _ = _run(PLAY, str(n), str(args.concurrency), str(out), store)
            elapsed, plan = float(lines[-1].split()[0]), float(lines[-1].split()[2])
            first = first or (peak, peak - plan)
            print(f"{target:<7}{n:>8}{elapsed:>10.1f}{n / elapsed:>9.1f}{peak:>9.1f}"
                  f"{peak / first[0]:>7.2f}x{plan:>11.1f}{peak - plan:>10.1f}"
                  f"{(peak - plan) / first[1]:>7.2f}x", flush=True)  # fmt: skip
            if target == "local":
                local_runs.append((n, out))
    if args.read:
        print(f"{'read':<7}{'traces':>8}{'what':>14}{'s':>9}{'s/1000':>9}{'peak MB':>9}")
        for n, out in local_runs:
            for what in args.what.split(","):
                # A query cache of its own, so "cold" is cold (`accord.analysis.query`).
                caches = {"ACCORD_CACHE_DIR": tempfile.mkdtemp(prefix="accord-scale-cache-")}
                lines, peak, _ = _run(READ, str(out), what, env=caches)
                lines = [ln for ln in lines if _numbers(ln)]  # progress lines left out
                took = float(lines[-1].split()[0])
                label = "query (warm)" if what == "query" else what
                if what == "query":
                    cold = float(lines[0].split()[0])
                    print(f"{'':<7}{n:>8}{'query (cold)':>14}{cold:>9.1f}"
                          f"{cold / n * 1000:>9.3f}{peak:>9.1f}")  # fmt: skip
                print(f"{'':<7}{n:>8}{label:>14}{took:>9.1f}{took / n * 1000:>9.3f}{peak:>9.1f}",
                      flush=True)  # fmt: skip
    if server is not None:
        server.stop()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
