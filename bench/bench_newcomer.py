"""The newcomer path: from `accord new game NAME` to a first finished `accord run` of it.

Prints numbers, asserts nothing. Each step runs as its own process, as a person would type it:

1. ``accord new game bench_game`` (writes the skeleton and plays its golden traces);
2. ``pip install`` of the new package (offline: no dependencies, no build isolation; into a
   temporary folder, so this environment is left as it was);
3. ``accord run bench_game --agents follow,follow --games 3`` (found through its entry points).

Baseline, in the same run: ``accord run negotiation --agents cooperative,greedy --games 3``,
the same command on a built-in game, so the ratio is what a new game costs beyond one run.

Usage: python bench/bench_newcomer.py [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(args: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(args, cwd=cwd, env=env, check=True, capture_output=True, text=True)
    return time.perf_counter() - start


def once(work: Path) -> dict[str, float]:
    env = {**os.environ, "COLUMNS": "200"}
    accord = [sys.executable, "-m", "accord"]
    site = work / "site"
    steps = {
        "new game": timed([*accord, "new", "game", "bench_game"], work, env),
        "pip install": timed(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--no-deps",
                "--no-index",
                "--no-build-isolation",
                "--target",
                str(site),
                "./bench_game",
            ],
            work,
            env,
        ),
    }
    with_game = {**env, "PYTHONPATH": str(site)}
    steps["first run"] = timed(
        [*accord, "run", "bench_game", "--agents", "follow,follow", "--games", "3",
         "--out", "runs/new"], work, with_game,
    )  # fmt: skip
    steps["baseline run"] = timed(
        [*accord, "run", "negotiation", "--agents", "cooperative,greedy", "--games", "3",
         "--out", "runs/base"], work, env,
    )  # fmt: skip
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    repeats = parser.parse_args().repeats
    results = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as tmp:
            results.append(once(Path(tmp)))
    print(f"newcomer path, best of {repeats} (seconds):")
    best = {step: min(r[step] for r in results) for step in results[0]}
    for step, seconds in best.items():
        print(f"  {step:<13} {seconds:6.2f}")
    total = best["new game"] + best["pip install"] + best["first run"]
    print(f"  {'total':<13} {total:6.2f}  (new game + install + first run)")
    print(f"  ratio to the baseline run: {total / best['baseline run']:.1f}x")


if __name__ == "__main__":
    main()
