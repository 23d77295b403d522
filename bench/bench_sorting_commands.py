"""Sorting game: commands dispatched per second per backend (printed, never asserted).

Each backend runs a typical mix of its commands for 20 agents (MAS-Bench Table 5): messaging
backends alternate a send and a receive, the K-V store a write, a read and a listing. The named
baseline is ``wait`` on the same dispatcher: parsing and dispatch with no SQLite work, so the
ratio is what the in-memory database adds per command.

Run:  python bench/bench_sorting_commands.py
"""

from __future__ import annotations

import time
from collections.abc import Callable

from accord.games.sorting.commands import BACKENDS, BackendKind, Dispatcher

N = 20
SUBMITTED = [False] * N


def mix(kind: BackendKind) -> Callable[[int], str]:
    """The i-th command of a backend's typical traffic."""
    body = "Agent-3 here. My list: [12, 40, 7, 91, 55, 3, 18, 77, 64, 29]"
    if kind == "broadcast":
        return lambda i: f"broadcast_message {body}" if i % 2 == 0 else "receive_messages"
    if kind == "p2p":
        return lambda i: f"send_message {(i + 1) % N} {body}" if i % 2 == 0 else "receive_messages"
    return lambda i: (
        f"write_file list_agent_{i // 3 % N}\n{body}",
        f"read_file list_agent_{i // 3 % N}",
        "list_files list_",
    )[i % 3]


def rate(kind: BackendKind, command: Callable[[int], str], count: int) -> float:
    """Commands per second over `count` commands spread over the agents."""
    d = Dispatcher(kind)
    d.reset(N)
    texts = [command(i) for i in range(count)]
    t0 = time.perf_counter()
    for i, text in enumerate(texts):
        out = d.run(i % N, text, SUBMITTED)
        if not out.ok:
            raise RuntimeError(f"{text!r} failed: {out.reply}")
    elapsed = time.perf_counter() - t0
    d.close()
    return count / elapsed


def main(count: int = 20_000) -> None:
    print(f"commands per second, {N} agents, {count} commands per measurement")
    for kind in BACKENDS:
        base = rate(kind, lambda i: "wait", count)
        real = rate(kind, mix(kind), count)
        print(
            f"  {kind:9s} mix {real:10,.0f}/s   baseline 'wait' {base:10,.0f}/s   "
            f"cost per command {base / real:5.1f}x the baseline"
        )


if __name__ == "__main__":
    main()
