"""A fake OpenAI-compatible server on 127.0.0.1 that enforces rate limits like a hosted API.

Two token buckets, one for requests and one for tokens, each refilling at its per-minute limit
and holding at most `burst_s` seconds of it. A request that finds either bucket short is
answered ``429`` with ``Retry-After`` (seconds until the bucket has enough) and nothing is
spent; any other request waits `latency_s` (a model thinking) and gets a reply valid against
the request's response schema, with usage and OpenAI's ``x-ratelimit-*`` headers (limit per
minute, what is left, time until the bucket is full). Used by the rate-limit tests and by
``bench/bench_rate_limit.py``.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from accord.models.mock import sample_valid
from accord.testing.wire import send_json


@dataclass
class Bucket:
    """A token bucket: `per_minute` refill, at most `capacity` held."""

    per_minute: float
    capacity: float
    level: float = 0.0
    stamp: float = 0.0

    def refill(self, now: float) -> None:
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.per_minute / 60)
        self.stamp = now

    def wait_for(self, amount: float) -> float:
        """Seconds until `amount` is available (0 when it is)."""
        short = amount - self.level
        return 0.0 if short <= 0 else short * 60 / self.per_minute

    def reset_s(self) -> float:
        """Seconds until the bucket is full."""
        return (self.capacity - self.level) * 60 / self.per_minute


@dataclass
class RateLimitedServer:
    """The running fake and what it saw."""

    url: str
    rpm: float
    tpm: float
    ok_times: list[float] = field(default_factory=list)
    """When each answered request was admitted (monotonic seconds)."""
    refused: int = 0
    """Requests answered 429."""
    tokens: int = 0
    in_flight_peak: int = 0

    def achieved_rpm(self) -> float:
        """Answered requests per minute, from the first admitted request to the last."""
        if len(self.ok_times) < 2:
            return 0.0
        span = self.ok_times[-1] - self.ok_times[0]
        return 60 * (len(self.ok_times) - 1) / span if span > 0 else 0.0


def _tokens(body: dict[str, Any]) -> int:
    text = json.dumps(body.get("messages", []))
    return len(text) // 4 + int(body.get("max_tokens") or 60)


def _schema(body: dict[str, Any]) -> dict[str, Any] | None:
    fmt = body.get("response_format") or {}
    schema = (fmt.get("json_schema") or {}).get("schema") or fmt.get("schema")
    return schema if isinstance(schema, dict) else None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024  # hundreds of clients may connect at once


@contextmanager
def rate_limited_server(
    *,
    rpm: float,
    tpm: float,
    latency_s: float = 0.3,
    burst_s: float = 1.0,
    seed: int = 0,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[RateLimitedServer]:
    """Serve on a free port of 127.0.0.1 until the block ends (base URL ends in ``/v1``).

    The buckets refill on `clock` (a test passes its clients' fake clock, so the waits the
    server asks for pass without real sleeping)."""
    state = RateLimitedServer(url="", rpm=rpm, tpm=tpm)
    now = clock()
    requests = Bucket(rpm, rpm * burst_s / 60, rpm * burst_s / 60, now)
    tokens = Bucket(tpm, tpm * burst_s / 60, tpm * burst_s / 60, now)
    lock = threading.Lock()
    rng = random.Random(seed)
    in_flight = [0]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            need = _tokens(body)
            with lock:
                t = clock()
                requests.refill(t)
                tokens.refill(t)
                wait = max(requests.wait_for(1), tokens.wait_for(need))
                if wait <= 0:
                    requests.level -= 1
                    tokens.level -= need
                    state.ok_times.append(t)
                    state.tokens += need
                    in_flight[0] += 1
                    state.in_flight_peak = max(state.in_flight_peak, in_flight[0])
                else:
                    state.refused += 1
                headers = {
                    "x-ratelimit-limit-requests": str(int(rpm)),
                    "x-ratelimit-remaining-requests": str(max(0, int(requests.level))),
                    "x-ratelimit-reset-requests": f"{requests.reset_s():.3f}s",
                    "x-ratelimit-limit-tokens": str(int(tpm)),
                    "x-ratelimit-remaining-tokens": str(max(0, int(tokens.level))),
                    "x-ratelimit-reset-tokens": f"{tokens.reset_s():.3f}s",
                }
                sample_rng = random.Random(rng.random())
            if wait > 0:
                headers["Retry-After"] = f"{wait:.3f}"
                send_json(self, 429, headers, {"error": {"message": "rate limit", "type": "rate"}})
                return
            time.sleep(latency_s)
            schema = _schema(body)
            content = (
                json.dumps(sample_valid(schema, sample_rng)) if schema else "We can agree on it."
            )
            reply = {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "model": body.get("model", "fake"),
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": content},
                    }
                ],
                "usage": {
                    "prompt_tokens": need - 60,
                    "completion_tokens": 60,
                    "total_tokens": need,
                },
            }
            with lock:
                in_flight[0] -= 1
            send_json(self, 200, headers, reply)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = _Server(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    # A short poll: shutting down waits for the next one (half a second by default).
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
