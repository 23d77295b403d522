"""A server of one's own still working on a request its client gave up on (`accord.models.busy`):
after a timed-out attempt the retry waits for a free slot, the wait is in the retry's record,
and a call that fails while the server is still busy says so with the fix. The slots are asked
of a real HTTP server on 127.0.0.1 in the last tests."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from accord.core.errors import TransientModelError
from accord.models.base import Completion
from accord.models.busy import POLL_S, Slots, busy_slots
from accord.models.options import ModelOptions
from accord.models.retry import RetriesExhaustedError, Retrying

from .conftest import FakeTime

HELLO = [{"role": "user", "content": "hello"}]
OWN = "http://127.0.0.1:8000/v1"


class TimesOut:
    """A model whose first `timeouts` attempts run out of time."""

    spec = "openai-compatible/q"

    def __init__(self, timeouts: int) -> None:
        self.timeouts = timeouts

    async def complete(self, messages: Any, **kwargs: Any) -> Completion:
        if self.timeouts:
            self.timeouts -= 1
            raise TransientModelError("openai-compatible/q: request timed out (ReadTimeout)")
        return Completion(text="ok")

    async def aclose(self) -> None:
        pass


class Server:
    """What the server says about its one slot: busy for the first `busy_answers` questions."""

    def __init__(self, busy_answers: int) -> None:
        self.busy_answers = busy_answers
        self.asked: list[str] = []

    async def probe(self, base_url: str) -> Slots | None:
        self.asked.append(base_url)
        busy = len(self.asked) <= self.busy_answers
        return Slots(busy=int(busy), total=1)


def _retrying(model: TimesOut, server: Server, time: FakeTime, **options: Any) -> Retrying:
    return Retrying(
        model,
        model.spec,
        ModelOptions(base_url=OWN, backoff_cap_s=1.0, timeout_s=30.0, **options),
        sleep=time.sleep,
        clock=time.clock,
        rng=random.Random(0),
        probe=server.probe,
    )


async def test_a_retry_waits_for_the_abandoned_request_to_finish(fake_time: FakeTime) -> None:
    server = Server(busy_answers=3)
    completion = await _retrying(TimesOut(1), server, fake_time).complete(HELLO)
    assert completion.text == "ok" and completion.attempts == 2
    assert server.asked == [OWN] * 4  # busy, busy, busy, free
    assert fake_time.sleeps[:3] == [POLL_S] * 3, "polled until a slot was free"
    (record,) = completion.raw["retries"]
    assert "1 of 1 slot busy" in record["error"] and "waited 6 s for a free slot" in record["error"]


async def test_a_call_that_fails_on_a_busy_server_names_the_fix(fake_time: FakeTime) -> None:
    server = Server(busy_answers=10**6)
    retrying = _retrying(TimesOut(99), server, fake_time, max_retries=2)
    with pytest.raises(RetriesExhaustedError) as caught:
        await retrying.complete(HELLO, deadline=60.0)
    text = str(caught.value)
    assert "was still working on a request this client had given up on (1 of 1 slot busy)" in text
    assert "--parallel 2" in text and "raise timeout_s" in text
    assert fake_time.now <= 60.0, "the waits stay within the call's deadline"


async def test_a_free_server_and_a_hosted_one_are_retried_as_before(fake_time: FakeTime) -> None:
    free = Server(busy_answers=0)
    completion = await _retrying(TimesOut(1), free, fake_time).complete(HELLO)
    assert free.asked == [OWN] and "slot" not in completion.raw["retries"][0]["error"]
    hosted = Server(busy_answers=10**6)
    model = TimesOut(1)
    retrying = Retrying(
        model,
        model.spec,
        ModelOptions(base_url="https://api.example.com/v1", backoff_cap_s=1.0),
        sleep=fake_time.sleep,
        clock=fake_time.clock,
        rng=random.Random(0),
        probe=hosted.probe,
    )
    assert (await retrying.complete(HELLO)).text == "ok"
    assert hosted.asked == [], "a hosted provider is not asked about its slots"


class _Handler(BaseHTTPRequestHandler):
    answers: ClassVar[dict[str, tuple[int, bytes]]] = {}

    def do_GET(self) -> None:
        status, body = self.answers.get(self.path, (404, b"not found"))
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def slots_server() -> Iterator[tuple[str, type[_Handler]]]:
    handler = type("Handler", (_Handler,), {"answers": {}})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", handler
    finally:
        httpd.shutdown()
        httpd.server_close()


async def test_the_slots_as_llama_cpp_reports_them(slots_server: tuple[str, Any]) -> None:
    url, handler = slots_server
    slots = [{"id": 0, "is_processing": True}, {"id": 1, "is_processing": False}]
    handler.answers = {"/slots": (200, json.dumps(slots).encode())}
    assert await busy_slots(url) == Slots(busy=1, total=2)
    handler.answers = {"/slots": (200, json.dumps([{"id": 0, "state": 1}]).encode())}
    assert (await busy_slots(url)) == Slots(busy=1, total=1)
    # An older llama.cpp without /slots answers /health with 503 while its one slot works.
    handler.answers = {"/health": (503, b'{"error": {"message": "no slot available"}}')}
    assert await busy_slots(url) == Slots(busy=1, total=1)
    # A server that does not say (llama-cpp-python), or says nonsense: None.
    handler.answers = {"/health": (200, b'{"status": "ok"}')}
    assert await busy_slots(url) is None
    handler.answers = {"/slots": (200, b"[" * 5000)}
    assert await busy_slots(url) is None
