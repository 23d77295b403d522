"""`accord query` over 10,000 traces (printed seconds, never asserted).

Plays a few real scripted games of each game (negotiation with cooperative / greedy /
equal-split seats, talk and no-talk; calendar with the oracle-follower team; sorting with
share-all and local-sort), then clones them under fresh trace ids and seeds into a temporary
run directory until it holds 10,000 traces (60% negotiation, 20% calendar, 20% sorting).

Timed, in this order:

- baseline: ``read_trace`` on every file in a Python loop (parse + pydantic validation);
- ``accord query`` without the cache (parse, build the tables in memory, run the query);
- ``accord query`` building the per-directory cache (first query after a run);
- ``accord query`` on the warm cache, for a few typical queries, in-process and through the
  command line (a fresh interpreter, so import time is included).

Run:  python bench/bench_query.py [--traces N]
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
from typing import Any

from accord.analysis.query import run_query
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.io import read_trace

QUERIES = {
    "count games": "SELECT count(*) FROM games",
    "efficiency by pairing": (
        "SELECT pairing, count(*) AS n, avg(efficiency) AS eff FROM games "
        "WHERE game = 'negotiation' GROUP BY pairing ORDER BY eff DESC"
    ),
    "messages per channel": (
        "SELECT game, channel, count(*) AS n, avg(length(text)) AS chars FROM messages GROUP BY ALL"
    ),
    "event types": "SELECT type, count(*) FROM events GROUP BY type ORDER BY 2 DESC",
    "seat join": (
        "SELECT s.player, avg(g.efficiency) FROM seats s JOIN games g USING (run_dir, trace_id) "
        "GROUP BY 1"
    ),
}


def _specs() -> list[GameSpec]:
    specs: list[GameSpec] = []
    pairs = [("cooperative", "cooperative"), ("cooperative", "greedy"), ("equal-split", "greedy")]
    for i, (a, b) in enumerate(pairs):
        for talk in (True, False):
            specs.append(
                GameSpec(
                    trace_id=f"neg-{i}-{int(talk)}",
                    game="negotiation",
                    options={"ratio": 0.5, "cheap_talk": talk},
                    seed=i,
                    agents=[AgentSpec(agent=a), AgentSpec(agent=b)],
                )
            )
    for i in range(2):
        specs.append(
            GameSpec(
                trace_id=f"cal-{i}",
                game="calendar",
                seed=i,
                agents=[AgentSpec(agent="oracle-follower")] * 3,
            )
        )
    for i, agent in enumerate(("share-all", "local-sort")):
        specs.append(
            GameSpec(
                trace_id=f"sort-{i}", game="sorting", seed=i, agents=[AgentSpec(agent=agent)] * 3
            )
        )
    return specs


def make_run(root: Path, n: int) -> Path:
    """A run directory with `n` traces cloned from real scripted games."""
    seed_run = root / "seed-run"
    run_sync(_specs(), seed_run, concurrency=4)
    by_game: dict[str, list[dict[str, Any]]] = {}
    for p in sorted((seed_run / "traces").glob("*.json")):
        d = json.loads(p.read_text(encoding="utf-8"))
        by_game.setdefault(d["game"], []).append(d)
    plan = ["negotiation"] * 3 + ["calendar", "sorting"]
    out = root / "big"
    (out / "traces").mkdir(parents=True)
    for i in range(n):
        pool = by_game[plan[i % len(plan)]]
        d = dict(pool[(i // len(plan)) % len(pool)])
        d["trace_id"] = f"clone-{i:05d}"
        d["seed"] = 1000 + i
        (out / "traces" / f"clone-{i:05d}.json").write_text(json.dumps(d, indent=1))
    return out


def timed(label: str, fn: Any) -> float:
    t0 = time.perf_counter()
    fn()
    dt = time.perf_counter() - t0
    print(f"  {label:<46} {dt:8.2f} s")
    return dt


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--traces", type=int, default=10_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["ACCORD_CACHE_DIR"] = str(root / "cache")
        t0 = time.perf_counter()
        run = make_run(root, args.traces)
        size = sum(p.stat().st_size for p in (run / "traces").glob("*.json")) / 1e6
        print(f"{args.traces} traces, {size:.0f} MB, made in {time.perf_counter() - t0:.1f} s")
        files = sorted((run / "traces").glob("*.json"))
        base = timed("baseline: read_trace loop", lambda: [read_trace(p) for p in files])
        sql = QUERIES["efficiency by pairing"]
        cold = timed(
            "query, no cache (parse + build + query)", lambda: run_query([run], sql, cache=False)
        )
        build = timed("query, first run (builds the cache)", lambda: run_query([run], sql))
        print(f"  no-cache query vs baseline: {base / cold:.1f}x faster")
        print("warm cache, in-process:")
        warm = [timed(name, lambda q=q: run_query([run], q)) for name, q in QUERIES.items()]
        print("warm cache, `accord query` command line (includes start-up):")
        cli = [sys.executable, "-m", "accord", "query", str(run), sql, "--format", "csv"]
        timed("efficiency by pairing", lambda: subprocess.run(cli, check=True, capture_output=True))
        print(
            f"summary: baseline {base:.2f} s; query cold {cold:.2f} s ({base / cold:.1f}x), "
            f"cache build {build:.2f} s, warm median {sorted(warm)[len(warm) // 2]:.3f} s "
            f"({base / sorted(warm)[len(warm) // 2]:.0f}x)"
        )


if __name__ == "__main__":
    main()
