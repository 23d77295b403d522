"""A fake OpenAI-compatible model server whose "model" is a seeded policy, for the drift sentinel.

Every chat completion gets a reply valid under the request's JSON schema, drawn by a policy:
`PolicyRandom` with a ``lean`` (1.0: uniform choices, as `accord.models.mock.sample_valid`
draws them; above 1: early enum options, ``true``, small numbers and short lists more often;
below 1: the reverse). A *swapped model* is the same name served with another lean, so its
games have another metric distribution; whether the reply also names another fingerprint or
version header is up to the test (`PolicyServer.swap`), so a swap can be visible in what the
provider says or only in the metrics.

With ``noise`` on, each reply also depends on the server's ``seed`` and on how often it has
seen the same request (a model sampled at a temperature: the same scenario played twice, in
one run or in two, gives two games; the same seed gives the same games, in whatever order the
requests arrive); with it off a reply is a pure function of the request and the policy (the
same scenario played twice gives the same game). Tests and ``bench/bench_drift.py`` use it
to measure how often `accord drift` raises a false alarm on an unchanged model and detects a
swapped one.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, TypeVar

from accord.models.mock import sample_valid
from accord.testing.served import prompt_tokens
from accord.testing.wire import error_body, send_json

if TYPE_CHECKING:
    from _typeshed import SupportsLenAndGetItem

T = TypeVar("T")


class PolicyRandom(random.Random):
    """A `random.Random` whose draws lean: each uniform draw ``u`` becomes ``u ** lean``, and
    choices, integers and floats are read from that (so ``lean`` shifts every choice the
    schema sampler makes the same way)."""

    def __init__(self, seed: str, lean: float) -> None:
        super().__init__(seed)
        self.lean = lean

    def random(self) -> float:
        return float(super().random() ** self.lean)

    def choice(self, seq: SupportsLenAndGetItem[T]) -> T:
        return seq[min(len(seq) - 1, int(len(seq) * self.random()))]

    def randint(self, a: int, b: int) -> int:
        return a + min(b - a, int((b - a + 1) * self.random()))

    def uniform(self, a: float, b: float) -> float:
        return a + (b - a) * self.random()


@dataclass
class PolicyServer:
    """The running fake: its ``/v1`` base URL, what it serves, and what it counted.

    Attributes:
        url: the base URL to give as ``base_url``.
        lean: the policy of the model served now.
        fingerprint: the ``system_fingerprint`` its replies carry.
        version: the ``x-model-version`` header its replies carry (and ``openai-version``
            always, as OpenAI sends it).
        served: the model id replies name (None: the model asked for).
        noise: whether replies also depend on `seed` and repetition (module docstring).
        seed: the noise's seed.
        calls: chat completions answered.
    """

    url: str = ""
    lean: float = 1.0
    fingerprint: str = "fp_policy"
    version: str = "2026-01-01"
    served: str | None = None
    noise: bool = True
    seed: int = 0
    calls: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    _seen: Counter[str] = field(default_factory=Counter)

    def swap(
        self, lean: float, *, fingerprint: str | None = None, version: str | None = None
    ) -> None:
        """Serve another policy under the same name; with `fingerprint` / `version` the
        replies say so, without them they do not (a silent swap)."""
        with self.lock:
            self.lean = lean
            self.fingerprint = fingerprint or self.fingerprint
            self.version = version or self.version

    def reseed(self, seed: int) -> None:
        """Draw the noise anew from `seed` (another run of the same model)."""
        with self.lock:
            self.seed = seed
            self._seen.clear()

    def reply(self, body: dict[str, Any]) -> tuple[dict[str, str], dict[str, Any]]:
        """Headers and chat-completions body answering `body` (called under the lock)."""
        self.calls += 1
        messages = body.get("messages") or []
        fmt = body.get("response_format") or {}
        schema = (fmt.get("json_schema") or {}).get("schema") or fmt.get("schema")
        key = json.dumps([messages, schema, body.get("seed"), self.lean], sort_keys=True)
        digest = hashlib.sha256(key.encode()).hexdigest()
        if self.noise:
            self._seen[digest] += 1
            digest = hashlib.sha256(
                f"{digest}|{self.seed}|{self._seen[digest]}".encode()
            ).hexdigest()
        rng = PolicyRandom(digest, self.lean)
        reply = sample_valid(schema, rng) if schema else {"say": "hi"}
        content = json.dumps(reply, ensure_ascii=False)
        prompt = prompt_tokens(messages)
        data = {
            "id": f"chatcmpl-policy-{self.calls}",
            "object": "chat.completion",
            "created": 1700000000,
            "model": self.served or str(body.get("model", "policy")),
            "system_fingerprint": self.fingerprint,
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": content},
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": len(content) // 4,
                "total_tokens": prompt + len(content) // 4,
            },
        }
        headers = {
            "openai-version": "2020-10-01",
            "x-model-version": self.version,
            "x-request-id": f"req_{self.calls}",  # not a version: never recorded as one
        }
        return headers, data


@contextmanager
def policy_server(
    *, lean: float = 1.0, noise: bool = True, seed: int = 0
) -> Iterator[PolicyServer]:
    """Serve a policy model on a free port of 127.0.0.1 until the block ends."""
    state = PolicyServer(lean=lean, noise=noise, seed=seed)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.split("?", 1)[0] == "/v1/models":
                send_json(self, 200, {}, {"object": "list", "data": [{"id": "policy"}]})
            else:
                send_json(self, 404, {}, error_body("not found"))

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path.split("?", 1)[0] != "/v1/chat/completions":
                send_json(self, 404, {}, error_body(f"no endpoint {self.path}"))
                return
            with state.lock:
                headers, body = state.reply(json.loads(raw or b"{}"))
            send_json(self, 200, headers, body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
