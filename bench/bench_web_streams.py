"""``/api/runs`` while many live streams are open on a large running run (issue 25).

Builds a run of 2,000 traces (copies of a few reference-agent games under new ids) that is
still "running" (its progress file names this live process, 8 games in flight as live logs),
serves it with `accord serve`'s app in a separate process, and times ``/api/runs``:

1. with no stream open (the baseline);
2. with 200 run streams (``/api/runs/<run>/live``) open;
3. with 100 run streams and 100 game streams (``.../games/<id>/stream``) open.

Each timing is the median of sequential requests after the streams have been open a few
seconds. The server is started with its per-client stream cap raised so that all 200 streams
of this one client are served (the default cap, 32 per address, would refuse most of them;
the count refused under it is printed too). Target: under 2x the baseline. Nothing is
asserted; the whole bench is bounded (about a minute).

``--src DIR`` serves from another checkout's ``src`` (e.g. the code before the shared
watcher) with the same client, for a before/after comparison.

Run:  python bench/bench_web_streams.py [--traces 2000] [--streams 200] [--src path/to/src]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from accord.runner.live import LIVE_DIR, RUN_FILE
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec

IN_FLIGHT = 8
TIMED = 15
SETTLE_S = 3.0
BUDGET_S = 30.0
"""Timed requests stop after this long (at least 3 are made): slow code ends the bench too."""

SERVER = """
import sys, uvicorn
from pathlib import Path
from accord.web.app import create_app
kw = {"max_streams": int(sys.argv[3])} if sys.argv[3] != "default" else {}
try:
    app = create_app([Path(sys.argv[1])], **kw)
except TypeError:  # code from before the stream cap
    app = create_app([Path(sys.argv[1])])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="error")
"""


def build_run(root: Path, traces: int) -> Path:
    """A running run of `traces` finished games and `IN_FLIGHT` games in flight."""
    out = root / "run"
    refs = [AgentSpec(agent="cooperative"), AgentSpec(agent="greedy")]
    specs = [
        GameSpec(
            trace_id=f"seed{i}",
            game="negotiation",
            options={"rounds": 3},
            seed=i,
            agents=refs,
        )
        for i in range(10)
    ]
    run_sync(specs, out)
    folder = out / "traces"
    seeds = [json.loads(p.read_text("utf-8")) for p in sorted(folder.glob("*.json"))]
    for p in folder.glob("*.json"):
        p.unlink()
    for i in range(traces):
        trace = dict(seeds[i % len(seeds)], trace_id=f"g{i:05d}")
        (folder / f"g{i:05d}.json").write_text(json.dumps(trace), "utf-8")
    live = out / LIVE_DIR
    for i in range(IN_FLIGHT):
        trace = seeds[i % len(seeds)]
        header = {"live_format": 1, "trace_id": f"f{i}", "game_id": trace["game_id"]}
        lines = [header, *trace["events"][:20]]
        (live / f"f{i}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    progress = json.loads((live / RUN_FILE).read_text("utf-8"))
    progress.update(finished=False, pid=os.getpid(), in_flight=IN_FLIGHT, planned=traces * 2)
    (live / RUN_FILE).write_text(json.dumps(progress), "utf-8")
    return out


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """The web app in its own process (so the bench's client does not share its GIL)."""

    def __init__(self, run: Path, src: Path, max_streams: str) -> None:
        self.port = free_port()
        env = {**os.environ, "PYTHONPATH": str(src), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(run), str(self.port), max_streams], env=env
        )
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{self.url}/api/games", timeout=5)
                return
            except httpx.HTTPError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    self.stop()
                    raise SystemExit("the web server did not start") from None
                time.sleep(0.2)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


async def hold(client: httpx.AsyncClient, url: str, opened: list[int], stop: asyncio.Event) -> None:
    """Keep one stream open (reading what it sends) until `stop`."""
    try:
        async with client.stream("GET", url) as response:
            opened.append(response.status_code)
            if response.status_code != 200:
                return
            async for _ in response.aiter_bytes():
                if stop.is_set():
                    return
    except httpx.HTTPError:
        opened.append(0)


async def time_runs(client: httpx.AsyncClient) -> float:
    """Median seconds of `TIMED` sequential ``/api/runs`` requests (fewer, at least 3, when
    they take longer than `BUDGET_S` in all)."""
    times: list[float] = []
    end = time.monotonic() + BUDGET_S
    while len(times) < TIMED and (len(times) < 3 or time.monotonic() < end):
        start = time.perf_counter()
        response = await client.get("/api/runs", timeout=120)
        times.append(time.perf_counter() - start)
        response.raise_for_status()
    return statistics.median(times)


async def measure(url: str, streams: list[str]) -> tuple[float, list[int]]:
    limits = httpx.Limits(max_connections=len(streams) + 10, max_keepalive_connections=10)
    timeout = httpx.Timeout(120, connect=30)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=timeout) as client:
        for _ in range(3):
            (await client.get("/api/runs")).raise_for_status()  # warm the row cache
        stop = asyncio.Event()
        opened: list[int] = []
        tasks = [asyncio.create_task(hold(client, s, opened, stop)) for s in streams]
        await asyncio.sleep(SETTLE_S)
        median = await time_runs(client)
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return median, opened


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=2000)
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--src", type=Path, default=Path(__file__).parents[1] / "src")
    args = parser.parse_args()
    n = args.streams
    tmp = Path(tempfile.mkdtemp(prefix="accord-bench-web-"))
    try:
        run = build_run(tmp, args.traces)
        run_streams = ["/api/runs/run/live"] * n
        mixed = ["/api/runs/run/live"] * (n // 2) + [
            f"/api/runs/run/games/f{i % IN_FLIGHT}/stream" for i in range(n - n // 2)
        ]
        print(f"{args.traces} traces, {IN_FLIGHT} games in flight, served from {args.src}")
        server = Server(run, args.src, str(n + 10))
        try:
            base, _ = asyncio.run(measure(server.url, []))
            print(f"  no streams (baseline):        /api/runs median {base * 1000:8.1f} ms")
            for name, streams in ((f"{n} run streams", run_streams), (f"{n} mixed", mixed)):
                took, opened = asyncio.run(measure(server.url, streams))
                served = opened.count(200)
                print(
                    f"  {name + ':':<29} /api/runs median {took * 1000:8.1f} ms  "
                    f"ratio {took / base:5.2f}x  ({served}/{len(streams)} streams open; "
                    "target < 2x)"
                )
        finally:
            server.stop()
        server = Server(run, args.src, "default")
        try:
            _, opened = asyncio.run(measure(server.url, run_streams))
            print(
                f"  default per-client cap: {opened.count(200)} of {n} streams from one address "
                f"served, {opened.count(429)} refused with 429"
            )
        finally:
            server.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
