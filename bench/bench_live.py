"""What the live view costs a run: 100 mock games with ``DIR/live`` written vs not.

A run writes, for `accord serve`, a progress file and one append-only event log per game in
flight (`accord.runner.live`); a log's events are written at most every 0.25 s, so a game
that ends sooner never touches the disk. This plays the same 100 negotiation games (the
mock model in both seats: no network, so harness work is all there is) with the live files
on and off, alternating, each run into a fresh directory, and prints the median wall times
and their ratio, twice:

- instant replies: games end in milliseconds (the pure harness cost of the live hooks);
- replies after 20 ms: each game lasts about half a second, so every game's log is created,
  written a few times and removed (the file-system cost).

Target: under 5% (issue 14). Nothing is asserted.

Run:  python bench/bench_live.py [--games 100] [--repeats 5] [--concurrency 8]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec


def _specs(games: int, latency_s: float = 0.0) -> list[GameSpec]:
    model = AgentSpec(model="mock/schema", options={"latency_s": latency_s} if latency_s else {})
    return [
        GameSpec(
            trace_id=f"g{i:04d}",
            game="negotiation",
            options={"rounds": 4},
            seed=i,
            agents=[model, model],
        )
        for i in range(games)
    ]


def _one(specs: list[GameSpec], root: Path, name: str, *, live: bool, concurrency: int) -> float:
    out = root / name
    start = time.perf_counter()
    report = run_sync(specs, out, concurrency=concurrency, live=live)
    elapsed = time.perf_counter() - start
    assert report.played == len(specs) and not report.failed, report.failed[:3]
    return elapsed


def _compare(args: argparse.Namespace, latency_s: float, repeats: int) -> None:
    specs = _specs(args.games, latency_s)
    times: dict[bool, list[float]] = {False: [], True: []}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _one(specs[:10], root, "warm-up", live=True, concurrency=args.concurrency)
        for r in range(repeats):
            for live in (False, True) if r % 2 == 0 else (True, False):
                name = f"{'on' if live else 'off'}-{r}"
                times[live].append(_one(specs, root, name, live=live, concurrency=args.concurrency))
        from accord.traces.io import read_trace

        events = sum(len(read_trace(p).events) for p in (root / "on-0" / "traces").glob("*.json"))
    off, on = statistics.median(times[False]), statistics.median(times[True])
    print(
        f"{args.games} mock negotiation games, replies after {latency_s * 1000:g} ms "
        f"(4 rounds, {events} events in all), concurrency {args.concurrency}, {repeats} runs each"
    )
    print(f"  live files off (baseline): median {off:.3f} s  {[round(t, 3) for t in times[False]]}")
    print(f"  live files on:             median {on:.3f} s  {[round(t, 3) for t in times[True]]}")
    print(f"  on / off = {on / off:.3f}  (overhead {100 * (on / off - 1):+.1f}%; target < +5%)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    _compare(args, 0.0, args.repeats)
    _compare(args, 0.02, max(1, args.repeats - 2))


if __name__ == "__main__":
    main()
