"""What the first `accord.run` of a process costs on top of the game's own work.

Prints numbers, asserts nothing. Each repeat is a fresh interpreter that imports accord, then
plays one short negotiation game between two reference agents with `accord.run` twice (into
two folders): the first call pays for loading what the run needs (the registry discovering
every installed game, prompt templates, the run machinery), the second only for the game. The
difference is the start-up cost a user of the Python API sees once. Target: under 0.5 s.

Run with the sources byte-compiled (``python -m compileall -q src``): where
PYTHONDONTWRITEBYTECODE is set, a fresh interpreter otherwise compiles every module it
imports, which is not what an installed package pays.

Usage: python bench/bench_first_run.py [--repeats N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

PROBE = """
import json, sys, tempfile, time
t0 = time.perf_counter()
import accord
run = accord.run
t1, c1 = time.perf_counter(), time.process_time()
with tempfile.TemporaryDirectory() as d:
    kw = dict(game="negotiation", agents=["cooperative", "greedy"], games=1,
              options={"rounds": 2, "talk_turns": 1})
    run(out=d + "/a", **kw)
    t2, c2 = time.perf_counter(), time.process_time()
    run(out=d + "/b", **kw)
    t3, c3 = time.perf_counter(), time.process_time()
heavy = sorted(m for m in ("litellm", "ortools", "pandas", "openai", "llama_cpp")
               if m in sys.modules)
print(json.dumps({"import": t1 - t0, "first": t2 - t1, "second": t3 - t2, "heavy": heavy,
                  "first_cpu": c2 - c1, "second_cpu": c3 - c2}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rows = []
    for _ in range(args.repeats):
        out = subprocess.run(
            [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True
        )
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    imp = statistics.median(r["import"] for r in rows)
    first = statistics.median(r["first"] for r in rows)
    second = statistics.median(r["second"] for r in rows)
    extra = statistics.median(r["first"] - r["second"] for r in rows)
    print(f"import accord + accord.run   {imp * 1000:8.0f} ms")
    print(f"first accord.run (one game)  {first * 1000:8.0f} ms")
    print(f"second accord.run (same)     {second * 1000:8.0f} ms")
    print(f"first-call cost on top       {extra * 1000:8.0f} ms  (target < 500 ms)")
    # CPU time of this process alone: what the wall time would be on an idle core.
    extra_cpu = statistics.median(r["first_cpu"] - r["second_cpu"] for r in rows)
    print(f"  the same in CPU time         {extra_cpu * 1000:8.0f} ms  (unaffected by other load)")
    print(f"heavy modules loaded: {', '.join(rows[0]['heavy']) or 'none'}")


if __name__ == "__main__":
    main()
