"""Per-call overhead of the model-call layers (printed as ratios, never asserted).

A `ModelClient` call runs through its layers (retrying, pool slot, one timed attempt) and,
with ``--cache``, a cache lookup. This bench times many calls of the instant ``mock/echo``
model through `ModelClient.complete` against the same number of direct calls of the
provider's one attempt (`_complete_once`, the baseline: what the mock alone costs), and the
difference per call in microseconds. Target: the layers add well under a millisecond a call,
invisible next to any real model's latency.

Run:  python bench/bench_model_layers.py [--calls N]
"""

from __future__ import annotations

import argparse
import asyncio
import time

from accord.models.client import Call
from accord.models.mock import MockModel
from accord.models.options import ModelOptions


async def _time(calls: int) -> tuple[float, float]:
    model = MockModel(model="echo", options=ModelOptions())
    ask = [{"role": "user", "content": "hello"}]
    one = Call(messages=list(ask))
    start = time.perf_counter()
    for _ in range(calls):
        await model._complete_once(one)
    bare = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(calls):
        await model.complete(ask)
    layered = time.perf_counter() - start
    return bare, layered


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000)
    args = parser.parse_args()
    bare, layered = asyncio.run(_time(args.calls))
    per_call_us = (layered - bare) / args.calls * 1e6
    print(f"{args.calls} calls of mock/echo")
    print(f"  one attempt only (baseline): {bare * 1e6 / args.calls:8.1f} us a call")
    print(f"  through the layers:          {layered * 1e6 / args.calls:8.1f} us a call")
    print(f"  layers add {per_call_us:.1f} us a call; ratio {layered / bare:.2f}x the baseline")


if __name__ == "__main__":
    main()
