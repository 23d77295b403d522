"""How long the test suite takes, and how much of it is real sleeping.

`make test` is ``python -m pytest -q`` in the project's environment (plus building it the
first time). This script runs that same command, or a part of the suite, in a subprocess with
the `sleep_probe` plugin (this folder), and prints:

- the wall time of the run (what ``time make test`` shows, minus building the environment);
- the seconds spent inside `time.sleep` and `asyncio.sleep` during tests: all of them (in
  server threads and concurrent tasks too, which overlap, so their share of the wall time is
  an upper bound) and `time.sleep` on the main thread alone (wall time spent doing nothing,
  a lower bound); a test on a fake clock sleeps zero real seconds and counts nothing;
- the tests that slept the most, and the slowest tests (real waits the probe cannot see:
  timeouts, sockets, subprocesses).

Nothing is asserted: it prints numbers to compare before and after a change. Run it on an
idle machine: with other work on the cores the wall time grows but the sleeping does not.
It is not one of the ``bench_*.py`` files ``make bench`` runs, since it runs the whole suite.

Measured (tests/runner, hostile, agents, core, judges, ratings, reproduce and web: 603 tests,
two cores shared with other work): wall 305 s; asleep in any thread or task 220 s (mostly the
browser tests' servers and a run's background progress loops, which overlap the work); on the
main thread 14.8 s (4.8 %), the polling loops of browser and process tests. Before the live
stream tests waited for events instead of sleeping, those two took 7.0 s, now 2.3 s.

Run:  python bench/suite_time.py                      # the whole suite, as make test
      python bench/suite_time.py tests/web tests/cli  # a part of it
      python bench/suite_time.py --top 20 -- -k live  # more rows; pytest options after --
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def run_suite(paths: list[str], extra: list[str]) -> tuple[float, int, dict[str, object]]:
    """Run pytest on `paths` with the probe; (wall seconds, exit code, probe report)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "sleeps.json"
        env = dict(os.environ)
        env["SLEEP_PROBE_OUT"] = str(out)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(HERE), str(ROOT / "src"), env.get("PYTHONPATH", "")) if p
        )
        env.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "sleep_probe", *extra, *paths]
        start = time.perf_counter()
        code = subprocess.run(cmd, cwd=ROOT, env=env, check=False).returncode
        wall = time.perf_counter() - start
        report = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    return wall, code, report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="test files or folders (default: all)")
    parser.add_argument("--top", type=int, default=10, help="rows in each table")
    args, extra = parser.parse_known_args()
    extra = [a for a in extra if a != "--"]
    wall, code, report = run_suite(args.paths, extra)
    tests: dict[str, dict[str, float]] = report.get("tests", {})  # type: ignore[assignment]
    slept = sum(t["sleep_s"] for t in tests.values())
    blocked = sum(t.get("blocking_s", 0.0) for t in tests.values())
    print(f"\npytest exit code {code}; {len([t for t in tests if '::' in t])} tests")
    print(f"wall time                  {wall:8.1f} s")
    print(f"asleep, every thread/task  {slept:8.1f} s in {report.get('sleep_calls', 0)} calls")
    print(f"  share of wall (at most)  {slept / wall if wall else 0.0:8.1%}")
    print(f"asleep, main thread only   {blocked:8.1f} s")
    print(f"  share of wall (at least) {blocked / wall if wall else 0.0:8.1%}")
    long_sleepers = [n for n, t in tests.items() if t["sleep_s"] >= 0.5]
    print(f"tests sleeping >= 0.5 s: {len(long_sleepers)}")
    print(f"\nmost sleep (top {args.top}):")
    by_sleep = sorted(tests.items(), key=lambda kv: -kv[1]["sleep_s"])[: args.top]
    for name, t in by_sleep:
        if t["sleep_s"] > 0:
            print(f"  {t['sleep_s']:7.2f} s sleep  {t['wall_s']:7.2f} s wall  {name}")
    print(f"\nslowest (top {args.top}):")
    for name, t in sorted(tests.items(), key=lambda kv: -kv[1]["wall_s"])[: args.top]:
        print(f"  {t['wall_s']:7.2f} s wall  {t['sleep_s']:7.2f} s sleep  {name}")


if __name__ == "__main__":
    main()
