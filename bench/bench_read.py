"""What reading a trace costs against parsing its JSON (issue "fast at every size", item 1).

Plays (once, then reuses) a run of mixed traces by the scripted reference agents of the three
games, and a few games of mock-model seats (traces with transcripts), then times in one
process the CPU time of each reader, the readers taking turns on every file (so a loaded
machine slows them alike), medians over `--repeats` passes:

- ``json.load``: open each file and parse it with the standard library (the baseline);
- ``read_trace``: `accord.read_trace`, everything checked and typed (events included);
- ``read_header``: `accord.traces.reader.read_header`, everything but events and transcripts.

Prints each median per trace and its ratio to ``json.load``. Targets: ``read_trace`` within
2x of ``json.load`` on the mixed traces; ``read_header`` at least 10x faster than
``read_trace`` on traces with transcripts. Nothing is asserted. To measure another checkout
(the numbers before a change), run it with that checkout's ``src`` first on ``PYTHONPATH``:
the header read is then reported as missing.

Run:  python bench/bench_read.py [--traces 2000] [--repeats 5] [--dir DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec

_PAIRS: dict[str, list[list[str]]] = {
    "negotiation": [["cooperative", "greedy"], ["equal-split", "cooperative"], ["greedy"] * 2],
    "calendar": [["imap"], ["sd-map"], ["dsm-welfare"], ["dsm-private"]],
    "sorting": [["share-all"], ["local-sort"]],
}
_SORTING = [{"n": n, "k": k} for n in (3, 5, 10) for k in (1, 5)]


def _specs(n: int) -> list[GameSpec]:
    """`n` reference-agent games, the three games in turn."""
    specs = []
    for i in range(n):
        game = ("negotiation", "calendar", "sorting")[i % 3]
        team = _PAIRS[game][(i // 3) % len(_PAIRS[game])]
        options: dict[str, Any] = _SORTING[(i // 3) % len(_SORTING)] if game == "sorting" else {}
        seats = 2 if game == "negotiation" else 0
        agents = [AgentSpec(agent=a) for a in team] if seats else [AgentSpec(agent=team[0])]
        specs.append(
            GameSpec(trace_id=f"g{i:05d}", game=game, seed=i, options=options, agents=agents)
        )
    return specs


def _mock_specs(n: int) -> list[GameSpec]:
    """Games of mock-model seats: their traces carry transcripts."""
    models = ["mock/echo", "mock/schema"]
    return [
        GameSpec(
            trace_id=f"m{i:04d}",
            game="negotiation",
            seed=i,
            agents=[AgentSpec(model=models[(i + s) % 2]) for s in range(2)],
        )
        for i in range(n)
    ]


def _ensure(out: Path, specs: list[GameSpec]) -> list[Path]:
    folder = out / "traces"
    if not folder.is_dir() or len(list(folder.glob("*.json"))) < len(specs):
        print(f"playing {len(specs)} games into {out} ...", flush=True)
        run_sync(specs, out, concurrency=16, resume=True)
    return sorted(folder.glob("*.json"))


def _load(path: Path) -> object:
    with path.open("rb") as fh:
        return json.load(fh)


def _times(paths: list[Path], readers: dict[str, Callable[[Path], object]]) -> dict[str, float]:
    """Seconds of CPU each reader spent over `paths`, the readers taking turns on each file,
    so a busy machine slows all of them alike (CPU time leaves out waiting for a core)."""
    spent = dict.fromkeys(readers, 0.0)
    clock = time.process_time
    for path in paths:
        for name, read in readers.items():
            start = clock()
            read(path)
            spent[name] += clock() - start
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--traces", type=int, default=2000)
    parser.add_argument("--mock", type=int, default=40, help="games with transcripts")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "accord-bench")
    args = parser.parse_args()
    import accord

    try:
        from accord.traces.reader import read_header
    except ImportError:  # a checkout from before the header read
        read_header = None
    mixed = _ensure(args.dir / f"mixed-{args.traces}", _specs(args.traces))
    mocked = _ensure(args.dir / f"mock-{args.mock}", _mock_specs(args.mock))
    header: Callable[[Path], object] | None = read_header
    print(f"accord from {Path(accord.__file__).parent}")
    for name, paths in (("mixed reference traces", mixed), ("traces with transcripts", mocked)):
        size = sum(p.stat().st_size for p in paths)
        events = sum(len(json.loads(p.read_bytes())["events"]) for p in paths)
        print(f"\n{name}: {len(paths)} files, {size / 1e6:.1f} MB, {events} events")
        readers: dict[str, Callable[[Path], object]] = {
            "json.load": _load,
            "read_trace": accord.read_trace,
        }
        if header is not None:
            readers["read_header"] = header
        rounds = [_times(paths, readers) for _ in range(args.repeats)]
        base, full, head = (
            statistics.median(r.get(k, float("nan")) for r in rounds)
            for k in ("json.load", "read_trace", "read_header")
        )
        n = len(paths)
        print(f"  json.load    {base / n * 1e6:9.1f} us/trace  1.00x")
        print(f"  read_trace   {full / n * 1e6:9.1f} us/trace  {full / base:.2f}x json.load")
        if header:
            print(
                f"  read_header  {head / n * 1e6:9.1f} us/trace  {head / base:.2f}x json.load,"
                f" {full / head:.1f}x faster than read_trace"
            )
        else:
            print("  read_header  (not in this checkout)")


if __name__ == "__main__":
    main()
