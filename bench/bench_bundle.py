"""What `accord view bundle` costs, against reading the same traces once.

Plays N mock negotiation games (no network) into a run directory, then times, alternating:

- baseline: `read_trace` of every trace file (what any tool that opens the run pays);
- bundle: `write_bundle` of the run into a fresh folder (every API answer of the web view,
  scrubbed, keyed and compressed, plus the leaderboard and comparisons).

Prints the medians, their ratio, the time per game and the site's size against the traces'
(the compression the bundle gets). Target: a bundle under 5x the baseline read and under a
third of the traces' size. Nothing is asserted.

Measured (300 games, two shared cores): 0.80 s vs 4.59 s, 5.7x (15 ms a game), data 0.23 of
the traces. Over the 5x target: most of a game's time is the app answering it as `accord
serve` does (FastAPI's `jsonable_encoder` of the trace alone took 5.2 ms a game against 3.4 ms
for `read_trace`).

Run:  python bench/bench_bundle.py [--games 300] [--repeats 3]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.io import read_trace
from accord.web.bundle import write_bundle


def _play(run: Path, games: int) -> None:
    model = AgentSpec(model="mock/schema")
    specs = [
        GameSpec(
            trace_id=f"g{i:05d}",
            game="negotiation",
            options={"rounds": 2, "talk_turns": 1},
            seed=i,
            agents=[model, model],
        )
        for i in range(games)
    ]
    run_sync(specs, run, concurrency=16)


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        _play(run, args.games)
        base_times: list[float] = []
        bundle_times: list[float] = []
        site = Path(tmp) / "site"
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            for path in sorted((run / "traces").glob("*.json")):
                read_trace(path)
            base_times.append(time.perf_counter() - t0)
            shutil.rmtree(site, ignore_errors=True)
            t0 = time.perf_counter()
            write_bundle([run], site, max_games=args.games)
            bundle_times.append(time.perf_counter() - t0)
        base, bundled = statistics.median(base_times), statistics.median(bundle_times)
        traces, data = _size(run / "traces"), _size(site / "data")
        print(f"{args.games} games, {args.repeats} repeats (medians)")
        ratio = bundled / base
        print(f"read every trace: {base:.2f} s   bundle: {bundled:.2f} s   ratio {ratio:.1f}x")
        print(f"bundle per game: {1000 * bundled / args.games:.1f} ms")
        print(
            f"traces {traces / 1e6:.1f} MB   site data {data / 1e6:.1f} MB   "
            f"ratio {data / traces:.2f}   whole site {_size(site) / 1e6:.1f} MB"
        )


if __name__ == "__main__":
    main()
