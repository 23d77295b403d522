"""What OpenTelemetry tracing costs a run: off, on, and the code before tracing existed.

Each measurement is a fresh child process that plays `--games` negotiation games with the mock
model in both seats (``mock/schema``, no latency: the harness is all there is to time) through
`run_specs` at concurrency 8, and prints the wall time of the run. Three ways, interleaved
(``--repeats`` rounds, medians reported):

- ``before``: the source tree given by ``--baseline-src`` (a checkout of the commit before
  tracing; skipped without it): today's runner, no hook at all;
- ``off``: this tree, tracing off (no ``OTEL_*`` variable, no ``otel``): each hook is one
  context-variable lookup and the SDK is never imported;
- ``on``: this tree, ``otel=`` a `TracerProvider` with the SDK's batch processor feeding an
  exporter that drops the spans (the SDK's own cost, not a network's).

Prints ms per game (wall, and CPU time of the child alone, which other load on the machine
does not inflate) and each way's ratio to ``before`` (or to ``off``). Target: off
indistinguishable from before (within the noise of the repeats, which is printed too).

Measured (200 games a run, 5 runs a way, two cores shared with other heavy work), wall ms per
game / CPU ms per game: before 92.50 / 10.75; off 92.58 (1.001x) / 10.42 (0.970x); on 99.50
(1.076x) / 11.83 (1.101x). Off is indistinguishable from before; on costs about a tenth of the
harness's own CPU on games whose model answers instantly (nothing next to a real model's
latency).

Run:  python bench/bench_otel.py [--games 200] [--repeats 5] [--baseline-src OLD/src]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

CHILD = """
import asyncio, sys, time
from pathlib import Path
from accord.runner.config import Batch, Defaults, Experiment, expand
from accord.runner.run import run_specs

games, out, way = int(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
exp = Experiment(
    name="bench-otel",
    max_games=games,
    defaults=Defaults(game="negotiation", games=games, agents=["mock/schema", "mock/schema"]),
    batches=[Batch(name="m", options={"rounds": 2, "talk_turns": 1})],
)
specs = expand(exp)
options = {}
if way == "on":
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

    class Drop(SpanExporter):
        spans = 0
        def export(self, spans):
            Drop.spans += len(spans)
            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(Drop()))
    options["otel"] = provider
t0, c0 = time.perf_counter(), time.process_time()
report = asyncio.run(run_specs(specs, out, concurrency=8, live=False, **options))
elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
assert report.played == games and not report.failed, report.failed
if way == "on":
    provider.shutdown()
    assert Drop.spans > games * 3, Drop.spans
print(elapsed, cpu)
"""


def _child(src: Path, games: int, out: Path, way: str) -> tuple[float, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env["PYTHONPATH"] = str(src)
    env.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(games), str(out), way],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{way}: the child failed:\n{done.stderr[-2000:]}")
    wall, cpu = done.stdout.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="Games per measurement.")
    parser.add_argument("--repeats", type=int, default=5, help="Rounds of the three ways.")
    parser.add_argument(
        "--baseline-src", type=Path, default=None, help="src/ of the code before tracing."
    )
    args = parser.parse_args()
    ways: list[tuple[str, Path]] = []
    if args.baseline_src is not None:
        ways.append(("before", args.baseline_src.resolve()))
    ways += [("off", SRC), ("on", SRC)]
    times: dict[str, list[float]] = {w: [] for w, _ in ways}
    cpus: dict[str, list[float]] = {w: [] for w, _ in ways}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeats):
            for way, src in ways:
                out = Path(tmp) / f"{way}-{r}"
                wall, cpu = _child(src, args.games, out, way)
                times[way].append(wall)
                cpus[way].append(cpu)
    base_way = ways[0][0]
    base = statistics.median(times[base_way])
    base_cpu = statistics.median(cpus[base_way])
    print(f"{args.games} mock games per run, concurrency 8, {args.repeats} runs per way (medians)")
    print(f"{'way':<8} {'ms/game':>9} {'ratio':>7} {'spread (min-max ms/game)':>26}"
          f"{'CPU ms/game':>13} {'ratio':>7}")  # fmt: skip
    for way, _ in ways:
        med, cpu = statistics.median(times[way]), statistics.median(cpus[way])
        lo, hi = min(times[way]), max(times[way])
        per = 1000 / args.games
        spread = f"{lo * per:.2f}-{hi * per:.2f}"
        print(f"{way:<8} {med * per:9.2f} {med / base:6.3f}x {spread:>26}"
              f"{cpu * per:13.2f} {cpu / base_cpu:6.3f}x")  # fmt: skip
    print(f"(ratios to '{base_way}')")


if __name__ == "__main__":
    main()
