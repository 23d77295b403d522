"""What keeping a run in an object store costs a driver: the same N reference games played
into a local directory (baseline), into a ``file://`` store and into an S3-compatible server
(moto's server mode on 127.0.0.1, started here), in one process; then the same run read back
for a report (``accord report`` over a store copies it first).

Prints games per second of each and the ratio to the local baseline. Nothing is asserted.

Measured (two shared cores, loaded by other work; 100 games): playing 16.1 games/s into a
local directory, 13.3 into file:// (1.21x the time), 14.4 into the S3 test server (1.12x);
the report over the S3 copy took 0.97x the local time (the copy is a small part of it).
Timings vary by tens of percent between runs on this machine.

Run:  python bench/bench_store.py [--games 200]
"""

from __future__ import annotations

import argparse
import logging
import os
import tempfile
import time
import urllib.request
from pathlib import Path

import accord
from accord.analysis.report import build_report
from accord.store import local_view


def play(out: str, games: int) -> float:
    start = time.perf_counter()
    report = accord.run(
        "negotiation", agents="cooperative,greedy", games=games, out=out, live=False
    )
    assert report.played == games
    return time.perf_counter() - start


def read(out: str) -> float:
    start = time.perf_counter()
    where = local_view(out) if "://" in out else Path(out)
    build_report([where], Path(tempfile.mkdtemp()) / "report")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=200)
    games = parser.parse_args().games
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    os.environ.update(
        AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench-secret-value",
        AWS_REGION="us-east-1", AWS_ENDPOINT_URL=f"http://{host}:{port}", AWS_ALLOW_HTTP="true",
    )  # fmt: skip
    urllib.request.urlopen(
        urllib.request.Request(f"http://{host}:{port}/bench", method="PUT")
    ).close()
    tmp = Path(tempfile.mkdtemp())
    where = {
        "local dir": str(tmp / "local"),
        "file://": (tmp / "filestore").as_uri(),
        "s3 (moto)": "s3://bench/run",
    }
    play(str(tmp / "warm-up"), 5)  # imports and first-game costs out of the baseline
    read(str(tmp / "warm-up"))
    print(f"{games} reference negotiation games per run")
    print(f"{'where':<12}{'play s':>9}{'games/s':>10}{'x local':>9}{'report s':>10}{'x local':>9}")
    base_play = base_read = 0.0
    for name, out in where.items():
        played, took = play(out, games), 0.0
        took = read(out)
        base_play, base_read = base_play or played, base_read or took
        print(f"{name:<12}{played:>9.2f}{games / played:>10.1f}{played / base_play:>9.2f}"
              f"{took:>10.2f}{took / base_read:>9.2f}")  # fmt: skip
    server.stop()


if __name__ == "__main__":
    main()
