"""Adaptive concurrency against a rate-limited server, compared with fixed limits (printed,
never asserted).

A local fake OpenAI-compatible server (`accord.testing.ratelimit`, 127.0.0.1) enforces token
buckets of requests and tokens per minute, answers ``429`` with ``Retry-After`` beyond them,
and takes `--latency` seconds per answer. 200 negotiation games (one round, one talk turn;
both seats ``openai-compatible/fake`` pointed at it; replies valid against the action schema)
are played through it four times, all games launched at once (``--concurrency 200``): with the
adaptive limit (the default: no ``max_concurrency``) and with ``max_concurrency`` pinned at 4,
32 and 256. Each line gives the answered requests per minute as a ratio of the server's
request limit, the 429s (and their share of all requests) and the failed games.

The limits are scaled down so the bench takes minutes on a laptop: 1,800 requests and
3,000,000 tokens per minute with one second of burst (a hosted tier's numbers are larger, their
shape the same). A call of these games sends about 1,000 tokens, so the request limit is the one
that binds (the token ratio is printed too: with ``--tpm 600000`` the token limit binds instead,
and the adaptive limit paces calls by tokens). At 0.3 s per answer the request limit is reached
with about 9 calls in flight, so 4 is too few and 32 or 256 too many. Target: adaptive at 0.9
of the limit or more, no failed game, 429s at most 5% of requests.

Run:  python bench/bench_rate_limit.py [--games 200] [--rpm 1800] [--tpm 3000000] [--latency 0.3]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.testing.ratelimit import rate_limited_server


def play(args: argparse.Namespace, fixed: int | None, out: Path) -> str:
    with rate_limited_server(rpm=args.rpm, tpm=args.tpm, latency_s=args.latency) as server:
        options: dict[str, object] = {
            "base_url": server.url,
            "max_retries": 40,
            "backoff_cap_s": 10.0,
            "timeout_s": 60.0,
        }
        if fixed is not None:
            options["max_concurrency"] = fixed
        seat = AgentSpec(model="openai-compatible/fake", options=options)
        specs = [
            GameSpec(
                trace_id=f"g{i:04d}",
                game="negotiation",
                options={"rounds": 1, "talk_turns": 1},
                seed=i,
                agents=[seat, seat],
                labels={"batch": "b", "pairing": "fake vs fake"},
            )
            for i in range(args.games)
        ]
        t0 = time.perf_counter()
        report = run_sync(specs, out, concurrency=args.games)
        seconds = time.perf_counter() - t0
        answered, refused = len(server.ok_times), server.refused
        ratio = server.achieved_rpm() / args.rpm
        span = server.ok_times[-1] - server.ok_times[0] if len(server.ok_times) > 1 else 0.0
        token_ratio = 60 * server.tokens / span / args.tpm if span else 0.0
    name = "adaptive" if fixed is None else f"fixed {fixed}"
    share = refused / max(1, answered + refused)
    return (
        f"{name:<10} {ratio:6.2f} of the request limit ({token_ratio:4.2f} of the token limit)  "
        f"{refused:6d} x 429 ({100 * share:5.1f}% of "
        f"{answered + refused} requests)  failed games {len(report.failed):3d}  ({seconds:5.1f} s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rpm", type=float, default=1800)
    parser.add_argument("--tpm", type=float, default=3_000_000)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--only", choices=["adaptive", "4", "32", "256"])
    args = parser.parse_args()
    print(
        f"{args.games} games; server limit {args.rpm:g} requests and {args.tpm:g} tokens per "
        f"minute, {args.latency:g} s per answer"
    )
    strategies: list[int | None] = [None, 4, 32, 256]
    if args.only:
        strategies = [None if args.only == "adaptive" else int(args.only)]
    with tempfile.TemporaryDirectory() as tmp:
        for i, fixed in enumerate(strategies):
            print(play(args, fixed, Path(tmp) / f"run{i}"), flush=True)


if __name__ == "__main__":
    main()
