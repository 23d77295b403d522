"""Security of remote seats: a token opens one seat only, bad calls are refused with one clear
error and recorded, the server listens on loopback, and no token reaches any file Accord
writes, in any encoding."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from typer.testing import CliRunner

from accord.cli.main import app
from accord.core.spec import ActionSpec, Request
from accord.remote import hub as hub_module
from accord.remote.app import build_app
from accord.remote.protocol import MAX_BODY_BYTES, message_schemas
from accord.remote.seat import SeatSession
from accord.remote.spec import RemoteSeatSpec


async def test_a_token_reads_its_own_seat_only(kit) -> None:
    seen: dict[int, list[dict[str, Any]]] = {0: [], 1: []}
    tokens: dict[int, str] = {}

    async def agent(via: str, url: str, token: str) -> None:
        del via
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=url, headers=headers) as c:
            seat = (await c.get("/seat")).json()["seat"]
        tokens[seat] = token
        await kit.http_agent(url, token, log=seen[seat])

    trace, _ = await kit.play_with("negotiation", [kit.remote(), kit.remote()], agent)
    assert trace.status == "complete", trace.error
    assert tokens[0] != tokens[1]
    for seat in (0, 1):
        sent = [r["request"] for r in seen[seat] if r.get("request")]
        own = [m["content"] for m in trace.transcripts[trace.seats[seat].name].messages
               if m["role"] == "user"]  # fmt: skip
        assert [r["observation"] for r in sent] == own
    systems = {s: {r["request"]["system"] for r in seen[s] if r.get("request")} for s in (0, 1)}
    assert systems[0].isdisjoint(systems[1])  # private briefings never cross


async def test_a_token_cannot_act_for_another_seat() -> None:
    hub = hub_module.Hub("127.0.0.1", 0)
    spec = RemoteSeatSpec(remote="http")
    a, b = (
        SeatSession(token=hub.new_token(), game_id="g-v1", trace_id="t", seat=i, spec=spec)
        for i in (0, 1)
    )
    hub.add(a)
    hub.add(b)
    request = Request(seat=1, observation="B only", spec=ActionSpec(kind="talk", parse=_text))
    rid = b.open_request(request)
    transport = httpx.ASGITransport(app=build_app(hub))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
        as_a = {"Authorization": f"Bearer {a.token}"}
        seen = (await c.get("/v1/observe", headers=as_a)).json()
        acted = await c.post("/v1/act", headers=as_a, json={"request_id": rid, "reply": "x"})
    assert seen == {"status": "waiting", "request": None, "reason": None}
    assert acted.status_code == 409 and "none is open" in acted.json()["error"]
    assert b.open is not None and not b.open.future.done()
    assert b.calls == [] and [c["tool"] for c in a.calls] == ["observe", "act"]


def _text(text: str) -> dict[str, Any]:
    return {"text": text}


async def test_bad_calls_get_one_clear_error_and_are_recorded(kit) -> None:
    statuses: dict[str, tuple[int, str]] = {}

    async def probe(via: str, url: str, token: str) -> None:
        del via
        good = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=url) as c:
            for name, headers in (("none", {}), ("wrong", {"Authorization": "Bearer nope"})):
                r = await c.get("/observe", headers=headers)
                statuses[name] = (r.status_code, r.json()["error"])
            r = await c.post("/act", headers=good, content=b"x" * (MAX_BODY_BYTES + 1))
            statuses["oversize"] = (r.status_code, r.json()["error"])
            r = await c.post("/act", headers=good, json={"request_id": "one"})
            statuses["malformed"] = (r.status_code, r.json()["error"])
            r = await c.post("/wait", headers=good, content=b"[1, 2")
            statuses["not json"] = (r.status_code, r.json()["error"])
            r = await c.get("/nowhere", headers=good)
            statuses["unknown path"] = (r.status_code, r.text)
        await kit.http_agent(url, token)

    trace, _ = await kit.play_with("negotiation", [kit.remote(max_errors=10), "greedy"], probe)
    assert trace.status == "complete", trace.error
    assert statuses["none"][0] == statuses["wrong"][0] == 401
    assert "Authorization: Bearer <token>" in statuses["wrong"][1]
    assert statuses["oversize"] == (413, f"the body is over {MAX_BODY_BYTES} bytes; send less")
    assert statuses["malformed"][0] == 400 and "request_id" in statuses["malformed"][1]
    assert statuses["not json"] == (400, "the body must be a JSON object")
    assert statuses["unknown path"][0] == 404
    (unauthenticated,) = [e for e in trace.events if e["type"] == "remote_unauthenticated"]
    assert unauthenticated["calls"] == 2 and "401" in unauthenticated["note"]
    refused = [c for c in trace.events if c["type"] == "remote_call" and not c["ok"]]
    errors = [c["error"] for c in refused]
    assert errors[0] == "request body too large"
    assert errors[1].startswith("malformed act arguments (request_id")
    assert errors[2] == "the body is not a JSON object"


async def test_mcp_refuses_a_wrong_token_and_records_unknown_tools(kit) -> None:
    from mcp.client.session import ClientSession  # noqa: F401  (the SDK is installed)

    outcomes: dict[str, Any] = {}
    agent = kit.example()

    async def probe(via: str, url: str, token: str) -> None:
        del via
        async with httpx.AsyncClient() as c:
            r = await c.post(url, headers={"Authorization": "Bearer wrong"}, json={})
            outcomes["wrong token"] = r.status_code
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        headers = {"Authorization": f"Bearer {token}"}
        async with (
            httpx2.AsyncClient(headers=headers) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            tools = await client.list_tools()
            outcomes["tools"] = sorted(t.name for t in tools.tools)
            bad = await client.call_tool("read_other_seat", {})
            outcomes["unknown"] = (bad.is_error, bad.content[0].text)
            bad = await client.call_tool("act", {"request_id": None, "reply": {}})
            outcomes["malformed"] = (bad.is_error, bad.content[0].text)
        await agent.play(url, token)

    trace, _ = await kit.play_with(
        "negotiation", [kit.remote("mcp", max_errors=10), "greedy"], probe
    )
    assert trace.status == "complete", trace.error
    assert outcomes["wrong token"] == 401
    assert outcomes["tools"] == ["act", "observe", "seat_info", "wait_for_request"]
    assert outcomes["unknown"][0] and "read_other_seat" in outcomes["unknown"][1]
    assert outcomes["malformed"][0] and "malformed act arguments" in outcomes["malformed"][1]
    refused = [c for c in trace.events if c["type"] == "remote_call" and not c["ok"]]
    assert refused[0]["tool"] == "read_other_seat" and refused[0]["via"] == "mcp"
    assert refused[1]["tool"] == "act" and "malformed" in refused[1]["error"]


async def test_the_server_listens_on_loopback_by_default(kit) -> None:
    bound: list[tuple[str, str]] = []

    async def check(via: str, url: str, token: str) -> None:
        del via
        (hub,) = [h for hubs in hub_module._HUBS.values() for h in hubs.values()]
        bound.append((hub.host, url))
        await kit.http_agent(url, token)

    trace, _ = await kit.play_with("negotiation", [kit.remote(), "greedy"], check)
    assert trace.status == "complete"
    assert bound[0][0] == "127.0.0.1" and bound[0][1].startswith("http://127.0.0.1:")
    assert not any(hub_module._HUBS.values())  # stopped with its last seat


async def test_the_message_schemas_are_served_and_describe_the_replies(kit) -> None:
    import jsonschema

    schemas = message_schemas()["messages"]
    got: dict[str, Any] = {}

    async def agent(via: str, url: str, token: str) -> None:
        del via
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=url, headers=headers) as c:
            got["schema"] = (await c.get("/schema", headers={})).json()
            got["seat"] = (await c.get("/seat")).json()
            got["wait"] = (await c.post("/wait", json={"timeout_s": 10})).json()
        await kit.http_agent(url, token)

    trace, _ = await kit.play_with("negotiation", [kit.remote(), "greedy"], agent)
    assert trace.status == "complete"
    assert got["schema"]["protocol"] == "accord-seat/1"
    assert got["schema"]["messages"] == json.loads(json.dumps(schemas))
    jsonschema.validate(got["seat"], schemas["SeatInfoReply"])
    jsonschema.validate(got["wait"], schemas["WaitReply"])
    assert got["wait"]["request"]["reply_schema"] is not None


TOKENS: list[str] = []

LEAKY_AGENT = """
import base64, os, sys, runpy
token = os.environ["ACCORD_SEAT_TOKEN"]
print("my token", token, base64.b64encode(token.encode()).decode(), token.encode().hex(),
      file=sys.stderr)
sys.argv = ["agent.py"]
runpy.run_path(sys.argv[1] if len(sys.argv) > 1 else {example!r}, run_name="__main__")
"""


@pytest.fixture
def recorded_tokens(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    made: list[str] = []
    original = hub_module.Hub.new_token

    def new_token(self: hub_module.Hub) -> str:
        made.append(original(self))
        return made[-1]

    monkeypatch.setattr(hub_module.Hub, "new_token", new_token)
    return made


def _forms(token: str) -> list[str]:
    raw = token.encode()
    return [
        token,
        raw.hex(),
        raw.hex().upper(),
        base64.b64encode(raw).decode().rstrip("="),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
        json.dumps(token)[1:-1],
    ]


def test_no_token_reaches_any_file_of_the_run(
    kit, tmp_path: Path, recorded_tokens: list[str]
) -> None:
    script = tmp_path / "leaky.py"
    script.write_text(LEAKY_AGENT.format(example=str(kit.example().__file__)))
    seat = {"agent": {"command": f"{sys.executable} {script}", "max_errors": 40}}
    config = {
        "name": "leak",
        "defaults": {"game": "negotiation", "games": 2, "seed": 5},
        "batches": [{"name": "b", "agents": [seat, "greedy"]}],
    }
    (tmp_path / "exp.yaml").write_text(yaml.safe_dump(config))
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app, ["run", str(tmp_path / "exp.yaml"), "--out", str(out), "--concurrency", "2"]
    )
    assert result.exit_code == 0, result.output
    assert len(recorded_tokens) == 2
    logs = sorted((out / "remote").glob("*.stderr.log"))
    assert len(logs) == 2
    assert "my token [redacted:seat-token]" in logs[0].read_text()
    files = [p for p in out.rglob("*") if p.is_file()]
    assert len(files) > 5
    for path in files:
        text = path.read_bytes().decode("utf-8", errors="replace")
        for token in recorded_tokens:
            for form in _forms(token):
                assert form not in text, f"{path.name} holds a seat token"


async def test_a_non_loopback_host_header_is_refused() -> None:
    hub = hub_module.Hub("127.0.0.1", 0)
    transport = httpx.ASGITransport(app=build_app(hub))
    async with httpx.AsyncClient(transport=transport, base_url="http://evil.example") as c:
        r = await c.get("/v1/schema")
    assert r.status_code == 421 and "loopback" in r.json()["error"]
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost:9") as c:
        assert (await c.get("/v1/schema")).status_code == 200


async def test_the_seat_server_leaves_signal_handling_to_the_run() -> None:
    import signal

    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    hub = hub_module.Hub("127.0.0.1", 0)
    await hub.start()
    try:
        assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
    finally:
        await hub.stop()
