"""What typed trace events cost, against the untyped event dicts of trace schema 2.

Plays a few mock games of each built-in game (no network; the model seats fall back often, so
every harness event type that a run writes is there), then times, alternating:

- baseline: parsing each trace's JSON and validating it with its events as plain dicts (what
  schema 2 did), then writing it back;
- typed: the same with typed events (`accord.traces.events`), as `read_trace` does, and
  writing it back (`model_dump_json`), the order of every event's fields kept.

Prints the medians per trace, their ratio, and the events per trace. Target: reading and
writing a trace under 2x the untyped baseline (a trace is read once per command; model calls
take seconds). Nothing is asserted.

Measured (15 traces, 197 to 703 events, two cores shared with other jobs, so noisy): write
1.0-1.2x (1.0 ms against 0.8 ms a trace: events write back the fields they were read with,
one pass per trace); read 3.0-3.9x (6.8 ms against 1.8-2.2 ms a trace), over the target:
about 10 us an event to build its model, most of it in pydantic's tagged union. A first
version that kept the written fields with a validator and a serializer per event measured
12x and 6.5x.

Run:  python bench/bench_trace_events.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from typing import Any

from pydantic import Field, create_model

from accord.core.registry import make
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.schema import Trace

Untyped = create_model(
    "UntypedTrace",
    __base__=Trace,
    events=(list[dict[str, Any]], Field(default_factory=list)),
)


def _texts() -> list[str]:
    texts = []
    for game in ("negotiation", "calendar", "sorting"):
        seats = make(game).num_seats
        for seed in range(5):
            models = ["mock/echo", "mock/schema"]
            agents = [AgentSpec(model=models[(seed + i) % 2]) for i in range(seats)]
            spec = GameSpec(trace_id=f"{game}-{seed}", game=game, seed=seed, agents=agents)
            texts.append(asyncio.run(play_game(spec)).model_dump_json(indent=1))
    return texts


def _time(model: type[Trace], texts: list[str]) -> tuple[float, float]:
    start = time.perf_counter()
    traces = [model.model_validate(json.loads(t)) for t in texts]
    read = time.perf_counter() - start
    start = time.perf_counter()
    for t in traces:
        t.model_dump_json(indent=1)
    return read, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    texts = _texts()
    datas = [json.loads(t) for t in texts]
    base: list[tuple[float, float]] = []
    typed: list[tuple[float, float]] = []
    for _ in range(args.repeats):
        base.append(_time(Untyped, texts))
        typed.append(_time(Trace, texts))
    n = len(datas)
    events = sorted(len(d["events"]) for d in datas)
    for i, what in enumerate(("read", "write")):
        b = statistics.median(x[i] for x in base) / n
        t = statistics.median(x[i] for x in typed) / n
        print(f"{what}: typed {t * 1e3:.1f} ms vs untyped {b * 1e3:.1f} ms a trace, {t / b:.1f}x")
    print(f"{n} traces, {events[0]} to {events[-1]} events")


if __name__ == "__main__":
    main()
