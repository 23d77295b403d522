"""The seat protocol an agent can rely on: structured observations with published schemas,
idempotent acts, self-reported identity and cost, MCP errors as the docs say, ``label`` inside
``agent: {...}``, and answer times that start at the join."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.core.gameinfo import all_infos
from accord.core.spec import Request
from accord.remote.client import mock_policy
from accord.remote.observations import (
    DOCS_BEGIN,
    DOCS_END,
    docs_section,
    facts,
    hidden_keys,
    observation_schemas,
    played_requests,
)
from accord.runner.specs import parse_agent
from accord.traces.schema import Trace

DOCS = Path(__file__).resolve().parents[2] / "docs" / "agents.md"
GAMES = ["negotiation-v3", "calendar-v2", "sorting-v3"]


def _events(trace: Trace, kind: str) -> list[Any]:
    return [e for e in trace.events if e["type"] == kind]


@pytest.mark.parametrize("game_id", GAMES)
def test_facts_of_unseen_games_validate_against_the_published_schema(game_id: str) -> None:
    published = observation_schemas(game_id)["kinds"]
    hidden = hidden_keys(game_id)
    requests = played_requests(game_id, seeds=(5, 9))
    assert requests
    for request in requests:
        sent = facts(request, hidden)
        assert not set(hidden) & set(sent)
        jsonschema.validate(sent, published[request.spec.kind]["facts"])


def test_hints_for_reference_agents_are_never_sent() -> None:
    assert hidden_keys("calendar-v2") == ("oracle_slots",)
    request = played_requests("calendar-v2", seeds=(0,))[0]
    assert "oracle_slots" in request.info
    assert "oracle_slots" not in facts(request, hidden_keys("calendar-v2"))


def test_the_docs_tables_are_generated_from_the_schemas() -> None:
    text = DOCS.read_text()
    start, end = text.index(DOCS_BEGIN), text.index(DOCS_END) + len(DOCS_END)
    ids = [i.game_id for i in all_infos() if i.agent_check is not None]
    assert sorted(ids) == sorted(GAMES)
    assert text[start:end] == docs_section(sorted(ids)), (
        "docs/agents.md's observation tables are stale: paste docs_section(...) between the markers"
    )


def test_agent_schema_game_prints_each_kind() -> None:
    done = CliRunner().invoke(app, ["agent", "schema", "negotiation"])
    assert done.exit_code == 0, done.output
    printed = json.loads(done.output)
    assert printed["game_id"] == "negotiation-v3"
    assert set(printed["kinds"]) == set(observation_schemas("negotiation-v3")["kinds"])
    assert printed["kinds"]["talk"]["facts"]["properties"]["projects"]["type"] == "array"
    bad = CliRunner().invoke(app, ["agent", "schema", "chess"])
    assert bad.exit_code == 2


async def _act_twice(kit: Any, *, key: bool) -> tuple[Trace, list[httpx.Response]]:
    """An agent that sends every accepted act a second time (a client retry)."""
    seconds: list[httpx.Response] = []

    async def retrying(via: str, url: str, token: str) -> None:
        del via
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=url, headers=headers) as c:
            n = 0
            while True:
                try:
                    state = (await c.post("/wait", json={"timeout_s": 10})).json()
                except httpx.TransportError:  # the game ended with the last retry
                    return
                if state["status"] == "ended":
                    return
                if state["status"] != "request":
                    continue
                request = state["request"]
                messages = [{"role": "user", "content": request["observation"]}]
                while True:
                    n += 1
                    body = {
                        "request_id": request["request_id"],
                        "reply": await mock_policy(request, messages),  # type: ignore[arg-type]
                        **({"key": f"k{n}"} if key else {}),
                    }
                    r = await c.post("/act", json=body)
                    if r.json().get("ok"):
                        # The game may end with that act (then the server is gone).
                        with contextlib.suppress(httpx.TransportError):
                            seconds.append(await c.post("/act", json=body))
                        break
                    messages.append({"role": "user", "content": r.json()["error"]})

    trace, _ = await kit.play_with("negotiation", [kit.remote(max_errors=40), "greedy"], retrying)
    return trace, seconds


@pytest.mark.parametrize("key", [True, False])
async def test_a_repeated_accepted_act_gets_the_original_answer(kit: Any, key: bool) -> None:
    trace, seconds = await _act_twice(kit, key=key)
    assert trace.status == "complete", trace.error
    # No retry counted as acting out of turn (the only bad calls are the parser's refusals).
    errors = [c.get("error", "") for c in _events(trace, "remote_call") if not c["ok"]]
    assert not [e for e in errors if "not open" in e or "key" in e]
    assert seconds and all(r.status_code == 200 for r in seconds)
    assert all(r.json() == {"ok": True, "repeated": True} for r in seconds)
    repeats = [c for c in _events(trace, "remote_call") if c.get("repeated")]
    # Calls after the seat's last request are not recorded (docs/agents.md): the last retry.
    assert len(repeats) == len(seconds) - 1 and all(c["ok"] for c in repeats)


async def test_a_key_reused_for_another_request_is_a_bad_call(kit: Any) -> None:
    answers: list[httpx.Response] = []

    async def reuse(via: str, url: str, token: str) -> None:
        del via
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=url, headers=headers) as c:
            while True:
                state = (await c.post("/wait", json={"timeout_s": 10})).json()
                if state["status"] == "ended":
                    return
                if state["status"] != "request":
                    continue
                request = state["request"]
                messages = [{"role": "user", "content": request["observation"]}]
                while True:
                    reply = await mock_policy(request, messages)  # type: ignore[arg-type]
                    r = await c.post(
                        "/act",
                        json={"request_id": request["request_id"], "reply": reply, "key": "k"},
                    )
                    answers.append(r)
                    if r.status_code != 422:
                        break
                    messages.append({"role": "user", "content": r.json()["error"]})

    await kit.play_with(
        "negotiation", [kit.remote(max_errors=50), "greedy"], reuse, options={"rounds": 1}
    )
    refused = [r for r in answers if r.status_code == 409]
    assert refused, [(r.status_code, r.text) for r in answers]
    assert refused and "key 'k' was used for request 1" in refused[0].json()["error"]
    assert refused[0].json()["errors_left"] is not None


async def test_identity_and_cost_are_recorded_as_self_reported(kit: Any) -> None:
    me = {"name": "probe", "version": "0.3", "framework": "plain-http"}

    async def reporting(via: str, url: str, token: str) -> None:
        del via
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=url, headers=headers) as c:
            first = True
            while True:
                body: dict[str, Any] = {"timeout_s": 10}
                if first:
                    body["agent"] = me
                    first = False
                state = (await c.post("/wait", json=body)).json()
                if state["status"] == "ended":
                    return
                if state["status"] != "request":
                    continue
                request = state["request"]
                messages = [{"role": "user", "content": request["observation"]}]
                while True:
                    reply = await mock_policy(request, messages)  # type: ignore[arg-type]
                    usage = {"input_tokens": 100, "cost_usd": 0.25}
                    r = await c.post(
                        "/act",
                        json={"request_id": request["request_id"], "reply": reply, "usage": usage},
                    )
                    if r.json().get("ok"):
                        break
                    messages.append({"role": "user", "content": r.json()["error"]})

    trace, _ = await kit.play_with("negotiation", [kit.remote(max_errors=40), "greedy"], reporting)
    assert trace.status == "complete", trace.error
    (said,) = _events(trace, "remote_identity")
    assert {k: said[k] for k in me} == me and said["self_reported"] is True
    assert trace.seats[0].agent == "remote-http (says: probe 0.3)"
    actions = _events(trace, "remote_action")
    assert all(a["self_reported_usage"] == {"input_tokens": 100, "cost_usd": 0.25} for a in actions)
    assert all(isinstance(a["self_reported_usage"]["input_tokens"], int) for a in actions)
    usage = trace.usage[trace.seats[0].name]
    assert usage.cost_usd == 0 and usage.cost_known is False


async def test_a_malformed_identity_is_a_bad_call(kit: Any) -> None:
    answers: list[httpx.Response] = []

    async def odd(via: str, url: str, token: str) -> None:
        del via
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=url, headers=headers) as c:
            answers.append(await c.post("/wait", json={"timeout_s": 0, "agent": {"name": 3}}))
        await kit.http_agent(url, token)

    trace, _ = await kit.play_with("negotiation", [kit.remote(max_errors=5), "greedy"], odd)
    assert trace.status == "complete", trace.error
    assert answers[0].status_code == 400
    assert "malformed agent identity" in answers[0].json()["error"]


async def test_facts_reach_the_agent_beside_the_prose(kit: Any) -> None:
    seen: list[dict[str, Any]] = []
    trace, _ = await kit.play_with(
        "calendar",
        [kit.remote(), "oracle-follower", "oracle-follower"],
        lambda via, url, token: kit.http_agent(url, token, log=seen),
        options={"max_turns_per_round": 2},
    )
    assert trace.status == "complete", trace.error
    sent = [s["request"] for s in seen if s.get("request")]
    assert sent and all(r["observation"] and r["facts"] for r in sent)
    assert all("oracle_slots" not in r["facts"] for r in sent)
    kinds = observation_schemas("calendar-v2")["kinds"]
    for r in sent:
        jsonschema.validate(r["facts"], kinds[r["kind"]]["facts"])


async def test_mcp_errors_carry_the_documented_message(kit: Any) -> None:
    mcp = pytest.importorskip("mcp")
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    results: list[Any] = []
    too_big: list[str] = []

    async def mcp_agent(via: str, url: str, token: str) -> None:
        del via
        mcp_url = url.removesuffix("/v1") + "/mcp"
        headers = {"Authorization": f"Bearer {token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as http,
            mcp.Client(streamable_http_client(mcp_url, http_client=http)) as client,
        ):
            results.append(await client.call_tool("act", {"request_id": 99, "reply": {}}))
            try:
                await client.call_tool("act", {"request_id": 1, "reply": "x" * 70_000})
            except Exception as exc:
                too_big.append(str(exc))
        await kit.http_agent(url, token)

    trace, _ = await kit.play_with("negotiation", [kit.remote(max_errors=5), "greedy"], mcp_agent)
    assert trace.status == "complete", trace.error
    (refused,) = results
    assert refused.is_error
    assert refused.structured_content["ok"] is False
    assert "request 99 is not open" in refused.structured_content["error"]
    assert refused.structured_content["errors_left"] == 4
    assert "request 99 is not open" in refused.content[0].text
    assert too_big and "the body is over 65536 bytes" in too_big[0]


def test_label_inside_the_agent_mapping_names_the_seat() -> None:
    spec = parse_agent({"agent": {"command": "python my_agent.py", "label": "mine"}})
    assert spec.label == "mine" and spec.display == "mine"
    assert spec.remote is not None and spec.remote.command == "python my_agent.py"
    from accord.core.errors import ConfigError

    with pytest.raises(ConfigError, match="label once"):
        parse_agent({"agent": {"remote": "mcp", "label": "a"}, "label": "b"})


async def test_answer_time_starts_at_the_join() -> None:
    from accord.agents.remote import answer_seconds
    from accord.core.spec import ActionSpec
    from accord.remote.seat import SeatSession
    from accord.remote.spec import RemoteSeatSpec

    now = [0.0]
    seat = SeatSession(
        token="t",
        game_id="negotiation-v3",
        trace_id="g",
        seat=0,
        spec=RemoteSeatSpec(remote="http", deadline_s=5),
        clock=lambda: now[0],
    )
    spec = ActionSpec(kind="talk", parse=lambda text: {}, schema=None)
    seat.open_request(Request(seat=0, observation="hi", spec=spec))
    asked = seat.clock()
    now[0] = 31.6  # the agent's start-up, before its first call
    await seat.call("http", "seat_info", {})
    assert seat.joined_at == 31.6
    assert seat.open is not None and seat.open.deadline_at == 31.6 + 5  # restarted at the join
    now[0] = 33.0
    assert answer_seconds(asked, seat.joined_at, seat.clock()) == 1.4
    # Joined before the request opened: counted from the opening.
    assert answer_seconds(40.0, seat.joined_at, 41.0) == 1.0


def test_request_payload_carries_facts() -> None:
    from accord.core.spec import ActionSpec
    from accord.remote.protocol import payload

    spec = ActionSpec(kind="talk", parse=lambda text: {}, schema=None)
    request = Request(seat=0, observation="hi", spec=spec, info={"a": (1, 2), 3: {4}})
    sent = payload(request, 1, 5.0, facts(request))
    assert sent.facts == {"a": [1, 2], "3": [4]}


@pytest.mark.parametrize(
    ("game", "others", "options"),
    [
        ("negotiation", ["greedy"], {}),
        ("calendar", ["oracle-follower", "oracle-follower"], {"max_turns_per_round": 2}),
        ("sorting", ["share-all", "share-all"], {"max_rounds": 3}),
    ],
)
async def test_the_example_agent_plays_from_facts_alone(
    kit: Any, monkeypatch: pytest.MonkeyPatch, game: str, others: list[str], options: Any
) -> None:
    """With every prose field blanked, the example agent still completes each game: it plays
    from the structured observation only."""
    from accord.remote import protocol, seat

    def no_prose(*args: Any, **kwargs: Any) -> protocol.RequestPayload:
        sent = protocol.payload(*args, **kwargs)
        return sent.model_copy(update={"observation": "", "system": None, "format_hint": ""})

    monkeypatch.setattr(seat, "payload", no_prose)
    agent = kit.example()
    trace, _ = await kit.play_with(
        game,
        [kit.remote("mcp", max_errors=10), *others],
        lambda via, url, token: agent.play(url, token),
        options=options,
    )
    assert trace.status == "complete", trace.error
    assert trace.usage[trace.seats[0].name].decisions > 0
    (said,) = _events(trace, "remote_identity")
    assert said["name"] == "accord-example"
