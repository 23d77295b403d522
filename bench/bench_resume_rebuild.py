"""What a resumed run's rebuild of ``results.jsonl`` and ``summary.json`` costs, reading every
trace again (a fresh rebuild) against reusing the one read made before play
(`accord.runner.scan.scan_run` keeps each kept trace's rows and summary entry).

Plays N negotiation games between reference agents into a temporary directory, scans it once,
then times both rebuilds (the same bytes: checked) and prints the ratio, and the memory the scan
keeps per game (tracemalloc, a separate pass). Nothing is asserted.

Measured (two shared cores, 300 games of 4 rounds, two runs): fresh 0.84-0.88 s, from the
scan 0.22-0.24 s (3.7-3.8x), identical files; the scan keeps about 2.7 KB a game (rows as
JSON text, summary numbers, the pooled process-metric cells, status and cost), never the
traces. The rebuild from the scan still bootstraps every CI, which is most of what is left.

Run:  python bench/bench_resume_rebuild.py [--games 300]
"""

from __future__ import annotations

import argparse
import tempfile
import time
import tracemalloc
from pathlib import Path

from accord.runner.config import Batch, Defaults, Experiment, expand
from accord.runner.results import write_outputs
from accord.runner.run import run_sync
from accord.runner.scan import scan_run


def main() -> None:
    """Play, scan, time both rebuilds and print the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=300)
    args = parser.parse_args()
    exp = Experiment(
        name="bench",
        defaults=Defaults(game="negotiation", games=args.games, agents=["cooperative", "greedy"]),
        batches=[Batch(name="b", options={"rounds": 4})],
    )
    specs = expand(exp)
    order = [s.trace_id for s in specs]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        run_sync(specs, out, live=False)
        scan = scan_run(out)
        started = time.perf_counter()
        write_outputs(out, order)
        fresh = time.perf_counter() - started
        expected = (out / "summary.json").read_bytes(), (out / "results.jsonl").read_bytes()
        started = time.perf_counter()
        write_outputs(out, order, known=scan.records)
        reused = time.perf_counter() - started
        same = expected == (
            (out / "summary.json").read_bytes(),
            (out / "results.jsonl").read_bytes(),
        )
        tracemalloc.start()
        kept = scan_run(out)
        held, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(
            f"{args.games} games: fresh rebuild {fresh:.2f} s, from the scan {reused:.2f} s "
            f"({fresh / reused:.1f}x); identical files: {same}"
        )
        print(f"the scan keeps {held / max(1, len(kept.records)) / 1024:.1f} KB a game")


if __name__ == "__main__":
    main()
