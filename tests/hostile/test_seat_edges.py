"""The seat server's edges: malformed and deeply nested bodies, non-integer request ids,
non-finite self-reported usage, cross-origin calls and slow clients (docs/agents.md "Limits").

Every refused call is a JSON answer (never a plain-text 500, never a traceback on the console)
and, with a valid token, a bad call recorded on the seat.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from accord.core.spec import ActionSpec, Request
from accord.remote import app as app_module
from accord.remote import hub as hub_module
from accord.remote.app import build_app
from accord.remote.seat import SeatCallError, SeatSession
from accord.remote.spec import RemoteSeatSpec

NESTED = b"[" * 20_000 + b"]" * 20_000
"""Issue 40: 20,000 nested brackets (40 KB, under the body cap) once answered a 500."""


def _text(text: str) -> dict[str, Any]:
    return {"text": text}


def _seat(hub: hub_module.Hub, max_errors: int = 50) -> SeatSession:
    spec = RemoteSeatSpec(remote="http", max_errors=max_errors)
    seat = SeatSession(token=hub.new_token(), game_id="g-v1", trace_id="t", seat=0, spec=spec)
    hub.add(seat)
    return seat


def _open(seat: SeatSession) -> int:
    request = Request(seat=0, observation="say", spec=ActionSpec(kind="talk", parse=_text))
    return seat.open_request(request)


def _client(hub: hub_module.Hub) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=build_app(hub), raise_app_exceptions=False)
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1")


def _no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    for record in caplog.records:
        assert record.exc_info is None, record.getMessage()
        assert "Traceback" not in record.getMessage()


@pytest.mark.parametrize("path", ["/v1/act", "/v1/wait", "/mcp"])
async def test_deeply_nested_bodies_are_a_recorded_json_400(
    path: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    hub = hub_module.Hub("127.0.0.1", 0)
    seat = _seat(hub)
    _open(seat)
    headers = {"Authorization": f"Bearer {seat.token}", "Content-Type": "application/json"}
    if path == "/mcp":
        headers["Accept"] = "application/json, text/event-stream"
    async with _client(hub) as c:
        r = await c.post(path, headers=headers, content=NESTED)
    assert r.status_code == 400, r.text
    assert "MAX_DEPTH" in _message(r.json())
    [call] = seat.calls
    assert call["ok"] is False and "MAX_DEPTH" in call["error"]
    assert seat.errors_in_row == 1
    _no_traceback(caplog)


@pytest.mark.parametrize(
    "body",
    [b'{"timeout_s": 1', b"\xff\xfe{}", b'{"timeout_s": NaN}', b'{"timeout_s": 1e309}'],
    ids=["truncated", "not utf-8", "NaN", "1e309"],
)
async def test_malformed_bodies_are_a_recorded_json_400(body: bytes) -> None:
    hub = hub_module.Hub("127.0.0.1", 0)
    seat = _seat(hub)
    async with _client(hub) as c:
        r = await c.post(
            "/v1/wait", headers={"Authorization": f"Bearer {seat.token}"}, content=body
        )
    assert r.status_code == 400 and "error" in r.json()
    assert [c["ok"] for c in seat.calls] == [False]


@pytest.mark.parametrize("request_id", [True, "1", 1.0])
async def test_request_id_must_be_an_integer(request_id: Any) -> None:
    hub = hub_module.Hub("127.0.0.1", 0)
    seat = _seat(hub)
    rid = _open(seat)
    assert rid == 1
    headers = {"Authorization": f"Bearer {seat.token}"}
    async with _client(hub) as c:
        r = await c.post("/v1/act", headers=headers, json={"request_id": request_id, "reply": "x"})
        assert r.status_code == 400 and "request_id" in r.json()["error"], r.text
        assert seat.open is not None and not seat.open.future.done()
        ok = await c.post("/v1/act", headers=headers, json={"request_id": 1, "reply": "x"})
    assert ok.status_code == 200 and ok.json() == {"ok": True}


@pytest.mark.parametrize(
    "usage",
    [
        b'{"cost_usd": 1e309, "input_tokens": 1e309}',
        b'{"cost_usd": Infinity}',
        b'{"input_tokens": 1e30}',
        b'{"output_tokens": -5}',
        b'{"cost_usd": true}',
    ],
    ids=["1e309", "Infinity", "1e30", "negative", "boolean"],
)
async def test_non_finite_or_absurd_usage_is_refused_not_written(usage: bytes) -> None:
    """Issue 37 case 1: ``inf`` passed a ``>= 0`` check and voided the trace."""
    hub = hub_module.Hub("127.0.0.1", 0)
    seat = _seat(hub)
    _open(seat)
    headers = {"Authorization": f"Bearer {seat.token}", "Content-Type": "application/json"}
    body = b'{"request_id": 1, "reply": "hello", "usage": ' + usage + b"}"
    async with _client(hub) as c:
        r = await c.post("/v1/act", headers=headers, content=body)
        assert r.status_code == 400, r.text
        assert seat.open is not None and not seat.open.future.done()
        assert seat.calls[-1]["ok"] is False
        ok = await c.post(
            "/v1/act",
            headers=headers,
            json={"request_id": 1, "reply": "hello", "usage": {"cost_usd": 0.25}},
        )
    assert ok.status_code == 200
    assert seat.open is not None and seat.open.future.result()[1] == {"cost_usd": 0.25}


async def test_non_finite_usage_over_mcp_names_the_limit() -> None:
    """The MCP SDK reads ``1e309`` as ``inf`` itself: the seat's own check refuses it."""
    hub = hub_module.Hub("127.0.0.1", 0)
    seat = _seat(hub)
    _open(seat)
    with pytest.raises(SeatCallError) as err:
        await seat.call(
            "mcp", "act", {"request_id": 1, "reply": "x", "usage": {"cost_usd": float("inf")}}
        )
    assert err.value.status == 400 and "MAX_USAGE_NUMBER" in err.value.message
    assert seat.calls[-1]["ok"] is False


@pytest.mark.parametrize("path", ["/v1/seat", "/v1/observe", "/v1/schema", "/v1/act", "/mcp"])
async def test_a_foreign_origin_is_refused_on_every_route(path: str) -> None:
    hub = hub_module.Hub("127.0.0.1", 0)
    seat = _seat(hub)
    headers = {"Authorization": f"Bearer {seat.token}", "Origin": "http://evil.com"}
    async with _client(hub) as c:
        if path in ("/v1/act", "/mcp"):
            r = await c.post(path, headers=headers, json={"request_id": 1, "reply": "x"})
        else:
            r = await c.get(path, headers=headers)
        assert r.status_code == 403, r.text
        assert "cross-origin" in _message(r.json())
        same = await c.get("/v1/seat", headers={**headers, "Origin": "http://127.0.0.1:9"})
    assert same.status_code == 200
    assert seat.calls[0] == {**seat.calls[0], "ok": False, "error": "cross-origin call refused"}


async def test_an_unexpected_error_is_one_line_and_a_json_500(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    hub = hub_module.Hub("127.0.0.1", 0)
    seat = _seat(hub)

    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(seat, "call", broken)
    async with _client(hub) as c:
        r = await c.get("/v1/seat", headers={"Authorization": f"Bearer {seat.token}"})
    assert r.status_code == 500 and r.json() == {
        "error": "internal error; the call was not taken, try again"
    }
    assert any("RuntimeError" in rec.getMessage() for rec in caplog.records)
    _no_traceback(caplog)


async def _served(monkeypatch: pytest.MonkeyPatch) -> tuple[hub_module.Hub, SeatSession]:
    monkeypatch.setattr(hub_module, "HEADER_TIMEOUT_S", 0.5)
    monkeypatch.setattr(app_module, "BODY_TIMEOUT_S", 0.5)
    hub = hub_module.Hub("127.0.0.1", 0)
    seat = _seat(hub)
    await hub.start()
    return hub, seat


def _drip(port: int, data: bytes, *, wait_s: float) -> tuple[bytes, float]:
    """Send `data` and keep the connection open; what the server answered and when it closed."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait_s) as sock:
        sock.sendall(data)
        start = time.monotonic()
        got = b""
        try:
            while chunk := sock.recv(65536):
                got += chunk
        except TimeoutError:
            return got + b"<still open>", time.monotonic() - start
        return got, time.monotonic() - start


async def test_slow_headers_are_cut_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 40: 60 connections dripping headers were all still open after 20 s."""
    hub, _ = await _served(monkeypatch)
    try:
        partial = b"GET /v1/seat HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
        results = await asyncio.gather(
            *(asyncio.to_thread(_drip, hub.port, partial, wait_s=20.0) for _ in range(5))
        )
    finally:
        await hub.stop()
    for got, _ in results:
        assert not got.endswith(b"<still open>"), got


async def test_a_body_that_never_comes_is_a_recorded_408(monkeypatch: pytest.MonkeyPatch) -> None:
    hub, seat = await _served(monkeypatch)
    try:
        head = (
            f"POST /v1/wait HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {seat.token}\r\n"
            "Content-Type: application/json\r\nContent-Length: 50\r\n\r\n{"
        ).encode()
        got, _ = await asyncio.to_thread(_drip, hub.port, head, wait_s=20.0)
    finally:
        await hub.stop()
    assert got.startswith(b"HTTP/1.1 408"), got[:200]
    assert b"BODY_TIMEOUT_S" in got
    assert seat.calls[-1]["ok"] is False and seat.calls[-1]["error"] == "request body too slow"


async def test_a_game_whose_agent_reports_infinite_usage_completes_and_reads_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 37 case 1 end to end: the agent's first answer to each request carries
    ``1e309``; it is refused (a recorded bad call), the agent answers again without it, and
    the game's trace is complete and reads back."""
    from accord.agents import remote as remote_agent
    from accord.runner.play import play_game
    from accord.runner.run import write_checked_trace
    from accord.runner.specs import GameSpec, parse_agent
    from accord.traces.io import read_trace

    joined: asyncio.Queue[tuple[str, str]] = asyncio.Queue()

    def announce(text: str) -> None:
        found = re.search(r"join over \w+ at (\S+) with 'Authorization: Bearer (\S+)'", text)
        assert found is not None, text
        joined.put_nowait((found.group(1), found.group(2)))

    monkeypatch.setattr(remote_agent, "ANNOUNCE", [announce])
    answers: list[int] = []

    async def agent() -> None:
        url, token = await joined.get()
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as c:
            while True:
                state = (await c.post("/wait", json={"timeout_s": 10})).json()
                if state["status"] == "ended":
                    return
                if state["request"] is None:
                    continue
                rid = state["request"]["request_id"]
                schema = state["request"]["reply_schema"]
                reply = json.dumps(_valid(schema)) if schema else '"ok"'
                body = f'{{"request_id": {rid}, "reply": {reply}, "usage": {{"cost_usd": 1e309}}}}'
                bad = await c.post("/act", content=body.encode())
                answers.append(bad.status_code)
                good = await c.post("/act", json={"request_id": rid, "reply": json.loads(reply)})
                answers.append(good.status_code)

    spec = GameSpec(
        trace_id="inf-usage",
        game="negotiation",
        options={"rounds": 1, "talk_turns": 1},
        seed=1,
        agents=[
            parse_agent({"agent": {"remote": "http", "max_errors": 10}}),
            parse_agent("greedy"),
        ],
    )
    task = asyncio.ensure_future(agent())
    trace = await play_game(spec)
    await asyncio.wait_for(task, 30)
    assert trace.status == "complete", trace.error
    assert answers and answers[0::2] == [400] * (len(answers) // 2)
    refused = [e for e in trace.events if e["type"] == "remote_call" and not e["ok"]]
    assert refused and all("MAX_USAGE_NUMBER" in e["error"] or "finite" in e["error"]
                           for e in refused)  # fmt: skip
    path, written = write_checked_trace(tmp_path, trace)
    assert written.status == "complete" and read_trace(path).status == "complete"
    assert "null" not in json.dumps(read_trace(path).usage["total"].model_dump())


def _valid(schema: dict[str, Any]) -> Any:
    from random import Random

    from accord.models.mock import sample_valid

    return sample_valid(schema, Random(0))


def _message(body: dict[str, Any]) -> str:
    """A refusal's one line: ``{"error": "..."}``, or on /mcp a JSON-RPC error's message (what
    the MCP client raises)."""
    error = body["error"]
    return str(error["message"]) if isinstance(error, dict) else str(error)
