"""Fuzz tests of the seat protocol, of tool-call replies and of the trace written for a game.

Invariants (issue 37 "Deliver" 6):

* the seat server never answers 500 nor logs a traceback; every answer is JSON; every
  authenticated ``/v1`` call is recorded on the seat;
* a model reply of any shape (any number of tool calls, any arguments: garbage, deep, huge)
  ends in an action (its own or the documented fallback), with the calls kept within bounds;
* a trace is written only as something the reader reads back: ``complete`` as it was, or
  ``failed`` with a reason.

Example counts are bounded so the file runs in seconds; they are printed in the report of the
work that added them, not asserted on time (no wall clock in tests).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import threading
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accord.agents.llm import LLMAgent
from accord.core.inputs import MAX_TOOL_ARGUMENT_CHARS, MAX_TOOL_CALLS
from accord.core.spec import ActionSpec, Request
from accord.games.negotiation.actions import turn_spec
from accord.games.negotiation.scenario import Market, Project
from accord.models.base import Completion, ToolCall
from accord.models.mock import MockModel
from accord.remote import hub as hub_module
from accord.remote.seat import SeatSession
from accord.remote.spec import RemoteSeatSpec
from accord.runner.run import run_sync, write_checked_trace
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.io import read_trace
from accord.traces.schema import SeatUsage, Trace

SEAT_EXAMPLES = 150
TOOL_EXAMPLES = 80
TRACE_EXAMPLES = 40

_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()  # NaN and infinities included: json.dumps writes NaN / Infinity
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner),
    max_leaves=20,
)


def _nested(n: int, balanced: bool) -> bytes:
    return b"[" * n + (b"]" * n if balanced else b"")


_act = st.fixed_dictionaries(
    {
        "request_id": st.one_of(
            st.integers(-3, 3), st.booleans(), st.text(max_size=3), st.floats()
        ),
        "reply": st.one_of(st.text(max_size=40), _json),
    },
    optional={
        "usage": st.dictionaries(
            st.sampled_from(["input_tokens", "output_tokens", "cost_usd", "other"]),
            st.one_of(
                st.floats(), st.integers(-(2**80), 2**80), st.booleans(), st.text(max_size=4)
            ),
        )
    },
)

_bodies = st.one_of(
    _json.map(lambda v: json.dumps(v).encode()),
    _act.map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=200),
    st.builds(_nested, st.integers(1, 30_000), st.booleans()),
    st.just(b'{"request_id": 1, "reply": "hi", "usage": {"cost_usd": 1e309}}'),
    # MCP tool calls of the seat's tools with fuzzed arguments (the MCP SDK parses these).
    st.builds(
        lambda name, args: json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": name, "arguments": args},
            }
        ).encode(),
        st.sampled_from(["act", "wait_for_request", "observe", "seat_info", "nope"]),
        st.one_of(_act, st.dictionaries(st.text(max_size=8), _json, max_size=3)),
    ),
)


class _Served:
    """A real seat server (uvicorn, 127.0.0.1, a free port) on a loop in a thread of its own,
    shared by the examples of a test; each example gets a seat of its own."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.hub = hub_module.Hub("127.0.0.1", 0)
        self.run(self.hub.start())

    def run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=60)

    async def seat(self) -> SeatSession:
        spec = RemoteSeatSpec(remote="http", max_errors=5)
        seat = SeatSession(
            token=self.hub.new_token(), game_id="g-v1", trace_id="t", seat=0, spec=spec
        )
        self.hub.add(seat)
        seat.open_request(
            Request(seat=0, observation="say", spec=ActionSpec(kind="talk", parse=_said))
        )
        return seat

    async def drop(self, seat: SeatSession) -> None:
        seat.end("over")
        self.hub.remove(seat)

    def close(self) -> None:
        self.run(self.hub.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@pytest.fixture(scope="module")
def served() -> Iterator[_Served]:
    server = _Served()
    yield server
    server.close()


def _seat_call(
    served: _Served, path: str, body: bytes, origin: str | None
) -> tuple[httpx.Response, SeatSession]:
    seat: SeatSession = served.run(served.seat())
    headers = {"Authorization": f"Bearer {seat.token}", "Content-Type": "application/json"}
    if path == "/mcp":
        headers["Accept"] = "application/json, text/event-stream"
    if origin is not None:
        headers["Origin"] = origin
    try:
        with httpx.Client(base_url=served.hub.base_url, timeout=60) as c:
            if path in ("/v1/seat", "/v1/observe"):
                return c.get(path, headers=headers), seat
            return c.post(path, headers=headers, content=body), seat
    finally:
        served.run(served.drop(seat))


def _said(text: str) -> dict[str, Any]:
    return {"said": text[:10]}


@settings(
    max_examples=SEAT_EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    path=st.sampled_from(["/v1/act", "/v1/wait", "/mcp", "/v1/seat", "/v1/observe"]),
    body=_bodies,
    origin=st.sampled_from([None, None, None, "http://evil.com", "http://localhost:1", "null"]),
)
def test_fuzz_the_seat_protocol(
    path: str, body: bytes, origin: str | None, caplog: pytest.LogCaptureFixture, served: _Served
) -> None:
    caplog.clear()
    caplog.set_level(logging.DEBUG)
    response, seat = _seat_call(served, path, body, origin)
    assert response.status_code != 500, response.text
    assert response.status_code < 500
    if response.headers.get("content-type", "").startswith("application/json"):
        response.json()
    else:  # only the MCP endpoint may answer otherwise (an event stream), never plain text
        assert path == "/mcp", (response.status_code, response.text[:200])
    if path.startswith("/v1"):
        assert len(seat.calls) == 1, (response.status_code, response.text[:200])
        assert (response.status_code < 300) == bool(seat.calls[0]["ok"])
    for record in caplog.records:
        assert record.exc_info is None, record.getMessage()
        assert "Traceback" not in record.getMessage()


def _talk() -> ActionSpec:
    names = {"r1": "wood", "r2": "stone", "r3": "gold"}
    projects = [Project(name="alpha", requirements={"r1": 2, "r2": 1}, reward=10)]
    return turn_spec(names, projects, Market(), thinking=True, must_decide=False)


_arguments = st.one_of(
    _json.map(json.dumps),
    st.text(max_size=60),
    st.builds(lambda n, b: _nested(n, b).decode(), st.integers(1, 20_000), st.booleans()),
    st.integers(0, 200_000).map(lambda n: json.dumps({"message": "x" * n})),
    st.fixed_dictionaries({"message": st.text(max_size=40), "to": st.integers(0, 3)}).map(
        json.dumps
    ),
)
_calls = st.lists(
    st.builds(
        ToolCall,
        id=st.text(max_size=8),
        name=st.one_of(st.sampled_from(["talk", "decide", "x", ""]), st.text(max_size=300)),
        arguments=_arguments,
    ),
    max_size=MAX_TOOL_CALLS + 8,
)


@settings(max_examples=TOOL_EXAMPLES, deadline=None, database=None)
@given(replies=st.lists(st.tuples(st.text(max_size=50), _calls), min_size=4, max_size=4))
def test_fuzz_tool_call_replies(replies: list[tuple[str, list[ToolCall]]]) -> None:
    model = MockModel(replies=[Completion(text=t, tool_calls=c) for t, c in replies])
    agent = LLMAgent(model, action_mode="tools")
    events: list[tuple[str, dict[str, Any]]] = []
    spec = _talk()
    action = asyncio.run(
        agent.act(
            Request(seat=0, observation="talk", spec=spec),
            lambda type_, **f: events.append((type_, f)),
        )
    )
    assert isinstance(action, dict)
    kinds = [k for k, _ in events]
    assert kinds.count("model_call") >= 1
    assert kinds.count("heuristic_fallback") <= 1
    for kind, fields in events:
        if kind == "model_call":
            assert len(fields["tool_calls"]) <= MAX_TOOL_CALLS
            for call in fields["tool_calls"]:
                assert len(call["arguments"]) <= MAX_TOOL_ARGUMENT_CHARS + 60
        if kind == "validation_error":
            assert fields["error"] and "RecursionError" not in fields["error"]
    for message in agent.transcript.messages:
        assert len(message.get("tool_calls", [])) <= MAX_TOOL_CALLS


@cache
def _played(folder: str) -> Trace:
    spec = GameSpec(
        trace_id="fz-000",
        game="negotiation",
        options={"rounds": 1, "talk_turns": 1},
        seed=0,
        agents=[AgentSpec(agent="cooperative"), AgentSpec(agent="greedy")],
    )
    run_sync([spec], Path(folder) / "first")
    return read_trace(Path(folder) / "first" / "traces" / "fz-000.json")


_numbers = st.one_of(
    st.floats(), st.integers(0, 2**80).map(float), st.floats(0, 1e6, allow_nan=False)
)


def _readable(cost: float, seconds: float) -> bool:
    """What the trace schema accepts for a cost and a latency: finite and not negative."""
    return all(math.isfinite(v) and v >= 0 for v in (cost, seconds))


@settings(
    max_examples=TRACE_EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(cost=_numbers, seconds=_numbers)
def test_fuzz_every_written_trace_reads_back(
    cost: float, seconds: float, tmp_path_factory: pytest.TempPathFactory
) -> None:
    base = _played(str(tmp_path_factory.getbasetemp() / "fuzz-trace"))
    usage = dict(base.usage)
    # Built without validation, as numbers a seat or provider reported would reach a trace
    # in memory; the reader's schema (finite, not negative) decides what reads back.
    usage["total"] = SeatUsage.model_construct(
        **{**SeatUsage().model_dump(), "cost_usd": cost, "latency_s": seconds}
    )
    trace = base.model_copy(update={"usage": usage})
    out = tmp_path_factory.mktemp("written")
    path, written = write_checked_trace(out, trace)
    back = read_trace(path)
    assert back.status in ("complete", "failed")
    if back.status == "failed":
        assert back.error and "would not read back" in back.error
        assert not _readable(cost, seconds)
    else:
        assert _readable(cost, seconds)
        assert back.usage["total"].cost_usd == cost
    assert written.status == back.status
