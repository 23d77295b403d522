"""People in the browser (`accord serve --play`): tables, seats, answers, timeouts, privacy.

The game logic is driven in-process through the very `SeatChannel`s the HTTP routes use (a
scripted person reads its seat's feed and answers); the routes themselves are checked with
the test client. The browser itself is in `test_browser_play.py`.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from accord.core.errors import ActionError, ConfigError
from accord.core.game import Game
from accord.core.registry import game_class, game_ids, make
from accord.models.mock import sample_valid
from accord.traces.io import read_trace
from accord.web import play as play_module
from accord.web.app import create_app
from accord.web.play import PlayHub, Table
from accord.web.seat import SeatChannel

Answerer = Callable[[dict[str, Any], int], str]


def controls_answer(item: dict[str, Any]) -> dict[str, Any]:
    """What a scripted person enters with a game's own controls: a message when talking,
    nothing bought or scheduled when deciding, their own numbers as the sorting result."""
    c = item["form"]["controls"]
    if c["game"] == "calendar":
        if c["phase"] == "REFLECTION":
            return {"deltas": {str(t): [0] * c["num_slots"] for t in c["targets"]}}
        if "dm" in c["calls"]:
            return {"calls": [{"type": "dm", "to": c["agents"][0], "content": "slot 2 works"}]}
        return {"calls": []}
    if c["game"] == "negotiation":
        if c["phase"] == "reflect":
            return {"text": "we could have talked more"}
        return {"speech": "I can wait this round", "decide": c["must_decide"], "purchase": {}}
    xs = " ".join(str(x) for x in sorted(c["xs"])[: c["submit_len"]])
    return {"commands": [{"verb": "submit_result", "text": xs}]}


def mock_answer(item: dict[str, Any], attempt: int) -> str:
    """What a scripted person sends: the values of the game's own controls, or else a
    schema-valid sample (free text: a sentence)."""
    if "controls" in item["form"]:
        return json.dumps(controls_answer(item))
    schema = item["form"]["schema"]
    if schema is None:
        return "I will wait for the others this round."
    return json.dumps(sample_valid(schema, random.Random(f"{item['id']}-{attempt}")))


async def person(
    hub: PlayHub,
    table: Table,
    ch: SeatChannel,
    answer: Answerer = mock_answer,
    *,
    leave_after: int | None = None,
    errors: list[str] | None = None,
    mark_thinking: bool = False,
) -> None:
    """A scripted person at one seat: opens the link, answers each request, reads to the end.

    With `leave_after`, closes the page after that many answers and never comes back.
    """
    ch.connect()
    hub.joined(table)
    seen = answered = 0
    try:
        while True:
            version = ch.version
            while seen < len(ch.feed):
                item = ch.feed[seen]
                seen += 1
                if item["type"] == "end":
                    return
                if item["type"] != "request":
                    continue
                if leave_after is not None and answered >= leave_after:
                    ch.disconnect()
                    leave_after = None
                    await _wait_end(ch)
                    return
                for attempt in range(20):
                    text = answer(item, attempt)
                    if mark_thinking:
                        text = _mark_thinking(text, f"{THOUGHT}{ch.seat}-{item['id']}")
                    error = await ch.answer(item["id"], text)
                    if error is None:
                        answered += 1
                        break
                    if errors is not None:
                        errors.append(error)
            await ch.changed(version, 5.0)
    finally:
        if ch.connections:
            ch.disconnect()


THOUGHT = "private-thought-of-seat-"


def _mark_thinking(text: str, mark: str) -> str:
    """The answer with its private ``thinking`` replaced by a marker no one else may see."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    if isinstance(value, dict) and "thinking" in value:
        value["thinking"] = mark
    return json.dumps(value)


async def _wait_end(ch: SeatChannel) -> None:
    while True:
        version = ch.version
        if any(i["type"] == "end" for i in ch.feed):
            return
        await ch.changed(version, 5.0)


def _play(hub: PlayHub, table: Table, **people: Any) -> None:
    async def main() -> None:
        await asyncio.wait_for(
            asyncio.gather(*(person(hub, table, ch, **people) for ch in table.channels.values())),
            120,
        )
        assert table.task is not None
        await table.task

    asyncio.run(main())


@pytest.fixture
def schema_forms(monkeypatch: pytest.MonkeyPatch) -> None:
    """Play as a game without its own controls does: forms from the reply's JSON schema."""
    monkeypatch.setattr(play_module, "play_controls", lambda game_id: None)


def test_a_person_plays_a_whole_negotiation_against_a_reference_agent(tmp_path: Path) -> None:
    hub = PlayHub(tmp_path / "play")
    table = hub.create("negotiation", ["human", "greedy"], options={"rounds": 2}, seed=5)
    assert table.status == "waiting"
    _play(hub, table)
    assert table.status == "complete"
    trace = read_trace(tmp_path / "play" / "traces" / f"{table.spec.trace_id}.json")
    assert trace.status == "complete"
    assert [s.agent for s in trace.seats] == ["human", "greedy"]
    answers = [e for e in trace.events if e["type"] == "human_action"]
    assert answers and all(e["seat"] == 0 and e["response_s"] >= 0 for e in answers)
    usage = trace.usage["A"]
    assert usage.decisions == len(answers)
    assert usage.latency_s == pytest.approx(sum(e["response_s"] for e in answers), abs=0.01)
    assert trace.run["batch"] == "play"
    # An ordinary run directory: results rebuilt, so reports and queries see the game.
    assert (tmp_path / "play" / "results.jsonl").read_text("utf-8").count("\n") == 2
    # The person saw the partner's speech as it arrived, and the result row at the end.
    feed = table.channels[0].feed
    partner = [e["speech"] for e in trace.events if e["type"] == "message" and e["seat"] == 1]
    assert [i["text"] for i in feed if i["type"] == "message"] == partner
    assert feed[-1]["type"] == "end" and feed[-1]["result"]["name"] == "A"


def test_a_bad_answer_gets_the_models_error_text_and_can_be_corrected(
    tmp_path: Path, schema_forms: None
) -> None:
    hub = PlayHub(tmp_path / "play")
    # decide_now: the person's one decision follows greedy's at once (no random extra talk).
    opts = {"rounds": 1, "after_early_decision": "decide_now"}
    table = hub.create("negotiation", ["human", "greedy"], options=opts, seed=2)
    errors: list[str] = []
    tries: dict[int, int] = {}

    def sloppy(item: dict[str, Any], attempt: int) -> str:
        tries[item["id"]] = tries.get(item["id"], 0) + 1
        return "I offer half" if tries[item["id"]] == 1 else mock_answer(item, attempt)

    _play(hub, table, answer=sloppy, errors=errors)
    assert table.status == "complete"
    probe = make("negotiation", opts)
    probe.reset(2)
    with pytest.raises(ActionError) as parsed:
        probe.pending()[0].spec.parse("I offer half")
    assert errors[0] == str(parsed.value)  # word for word what a model is told
    trace = read_trace(tmp_path / "play" / "traces" / f"{table.spec.trace_id}.json")
    bad = [e for e in trace.events if e["type"] == "validation_error"]
    # Every refusal is in the trace (the free-text reflection takes the line as it is).
    assert len(bad) == len(errors) >= 2 and all(e["raw"] == "I offer half" for e in bad)


def test_a_person_who_leaves_times_out_to_the_fallback(tmp_path: Path) -> None:
    hub = PlayHub(tmp_path / "play", seat_timeout_s=0.3)
    table = hub.create("negotiation", ["human", "greedy"], options={"rounds": 2}, seed=3)
    _play(hub, table, leave_after=1)
    assert table.status == "complete"
    trace = read_trace(tmp_path / "play" / "traces" / f"{table.spec.trace_id}.json")
    types = [e["type"] for e in trace.events if e.get("seat") == 0]
    assert types.count("human_action") == 1
    timeouts = [e for e in trace.events if e["type"] == "human_timeout"]
    fallbacks = [e for e in trace.events if e["type"] == "heuristic_fallback"]
    assert timeouts and len(timeouts) == len(fallbacks)
    assert all("left the game for 0.3 s" in e["error"] for e in timeouts)
    # The first decision waited out the delay; later ones, the person still away, did not.
    assert timeouts[0]["waited_s"] >= 0.3
    assert len(timeouts) > 1 and all(e["waited_s"] < 0.3 for e in timeouts[1:])
    assert trace.usage["A"].fallbacks == len(fallbacks)


def test_two_people_at_one_table_start_together(tmp_path: Path) -> None:
    hub = PlayHub(tmp_path / "play")
    table = hub.create("negotiation", ["human", "human"], options={"rounds": 1}, seed=1)

    async def main() -> None:
        first, second = table.channels[0], table.channels[1]
        one = asyncio.ensure_future(person(hub, table, first))
        await asyncio.sleep(0.2)
        assert table.status == "waiting" and not first.feed  # nothing until both are here
        two = asyncio.ensure_future(person(hub, table, second))
        await asyncio.wait_for(asyncio.gather(one, two), 60)
        assert table.task is not None
        await table.task

    asyncio.run(main())
    trace = read_trace(tmp_path / "play" / "traces" / f"{table.spec.trace_id}.json")
    assert trace.status == "complete" and [s.agent for s in trace.seats] == ["human", "human"]
    assert {e["seat"] for e in trace.events if e["type"] == "human_action"} == {0, 1}


@pytest.mark.parametrize(
    ("seats", "message"),
    [
        (["human", "greedy", "greedy"], "2 seats"),
        (["greedy", "greedy"], "at least one person"),
        (["human", "grredy"], "Unknown agent 'grredy'"),
        (["human", "nomodel"], "Unknown agent"),
    ],
)
def test_bad_tables_are_refused_with_what_to_do(tmp_path: Path, seats, message) -> None:
    with pytest.raises(ConfigError, match=message):
        PlayHub(tmp_path / "play").create("negotiation", seats)


def test_seat_tokens_are_unguessable_and_distinct(tmp_path: Path) -> None:
    hub = PlayHub(tmp_path / "play")
    tokens = {
        ch.token
        for _ in range(20)
        for ch in hub.create("negotiation", ["human", "human"]).channels.values()
    }
    assert len(tokens) == 40 and all(len(t) >= 32 for t in tokens)


# -- the HTTP side -------------------------------------------------------------------------


def _client(tmp_path: Path) -> tuple[TestClient, PlayHub]:
    hub = PlayHub(tmp_path / "play")
    return TestClient(create_app([], play=hub)), hub


def test_the_lobby_needs_its_key(tmp_path: Path) -> None:
    client, hub = _client(tmp_path)
    body = {"game": "negotiation", "seats": ["human", "greedy"]}
    assert client.post("/api/play/tables", json=body).status_code == 403
    wrong = {"X-Accord-Key": hub.lobby_key[:-1] + "x"}
    assert client.post("/api/play/tables", json=body, headers=wrong).status_code == 403
    assert client.get("/api/play/tables", headers=wrong).status_code == 403
    key = {"X-Accord-Key": hub.lobby_key}
    made = client.post("/api/play/tables", json=body, headers=key).json()
    assert made["seats"][0]["token"] and "token" not in made["seats"][1]
    listed = client.get("/api/play/tables", headers=key).json()
    assert [t["table"] for t in listed] == [made["table"]]
    bad = client.post("/api/play/tables", json={**body, "seats": ["greedy"]}, headers=key)
    assert bad.status_code == 400 and "2 seats" in bad.json()["detail"]


def test_a_seat_page_learns_nothing_about_who_plays_the_others(tmp_path: Path) -> None:
    client, hub = _client(tmp_path)
    table = hub.create("negotiation", ["human", "cooperative"])
    token = table.channels[0].token
    state = client.get(f"/api/play/seat/{token}").json()
    assert state["name"] == "A" and state["status"] == "waiting"
    assert "cooperative" not in json.dumps(state) and token not in json.dumps(state)
    assert client.get("/api/play/seat/not-a-token").status_code == 404
    stale = client.post(f"/api/play/seat/{token}/answer", json={"id": 7, "text": "{}"})
    assert stale.status_code == 422 and "no longer open" in stale.json()["detail"]
    huge = client.post(f"/api/play/seat/{token}/answer", json={"id": 1, "text": "x" * 20_001})
    assert huge.status_code == 422


def test_the_play_output_is_served_as_a_run(tmp_path: Path) -> None:
    client, hub = _client(tmp_path)
    assert [r["run"] for r in client.get("/api/runs").json()] == ["play"]
    assert hub.run_id == "play"


def test_a_timeout_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="seat-timeout"):
        PlayHub(tmp_path / "play", seat_timeout_s=0)


# -- privacy: a seat's browser gets nothing another seat may not share ---------------------


def _private_lines(items: list[dict[str, Any]]) -> set[str]:
    lines: set[str] = set()
    for item in items:
        if item["type"] == "request":
            for text in (item.get("system") or "", item["observation"]):
                lines.update(s.strip() for s in text.splitlines() if len(s.strip()) >= 12)
    return lines


def _leaks(
    table: Table, feeds: dict[int, list[dict[str, Any]]] | None = None
) -> dict[str, list[str]]:
    """For each seat: lines of what another seat was told, and another seat's private
    thinking, that reached this seat's browser although this seat itself was never told them.

    `feeds`: what each seat's browser was sent (default: the seats' feeds as the game left
    them)."""
    found: dict[str, list[str]] = {}
    told = {seat: _private_lines(ch.feed) for seat, ch in table.channels.items()}
    for seat, ch in table.channels.items():
        sent = json.dumps(feeds[seat] if feeds else ch.feed, ensure_ascii=False)
        others = [f"{THOUGHT}{other}-" for other in table.channels if other != seat]
        found.setdefault(ch.name, []).extend(mark for mark in others if mark in sent)
        if not found[ch.name]:
            del found[ch.name]
        own = "\n".join(
            (i.get("system") or "") + "\n" + i["observation"]
            for i in ch.feed
            if i["type"] == "request"
        )
        for other, lines in told.items():
            if other == seat:
                continue
            for line in lines:
                if line not in own and json.dumps(line, ensure_ascii=False)[1:-1] in sent:
                    found.setdefault(ch.name, []).append(line)
    return found


OPTIONS = {
    "negotiation-v3": {"rounds": 2},
    "calendar-v2": {},
    "sorting-v3": {},
}


@pytest.mark.parametrize("own_controls", [True, False], ids=["controls", "schema"])
@pytest.mark.parametrize("game_id", game_ids())
def test_no_seat_is_sent_another_seats_private_information(
    tmp_path: Path, game_id, own_controls: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every registered game, every seat a (scripted) person, with the game's own controls
    and with schema forms: each seat's feed (everything its browser is sent) holds no line
    of another seat's briefing or observations that the seat was not itself told."""
    if not own_controls:
        monkeypatch.setattr(play_module, "play_controls", lambda game_id: None)
    game = make(game_id, OPTIONS.get(game_id, {}))
    hub = PlayHub(tmp_path / "play", seat_timeout_s=5)
    table = hub.create(game_id, ["human"] * game.num_seats, options=OPTIONS.get(game_id), seed=7)
    _play(hub, table, mark_thinking=True)
    assert table.status == "complete", table.error
    assert all(any(i["type"] == "request" for i in ch.feed) for ch in table.channels.values())
    # What the HTTP side sends a seat's page is that feed, nothing more.
    client = TestClient(create_app([], play=hub))
    feeds = {
        seat: client.get(f"/api/play/seat/{ch.token}").json()["feed"]
        for seat, ch in table.channels.items()
    }
    assert all(feeds[seat] == ch.feed for seat, ch in table.channels.items())
    if game_class(game_id).seat_view.__func__ is not Game.seat_view.__func__:  # shows messages
        assert any(i["type"] == "message" for ch in table.channels.values() for i in ch.feed)
    assert _leaks(table, feeds) == {}


def test_the_privacy_check_catches_a_leaking_seat_view(tmp_path: Path, monkeypatch) -> None:
    """The check above can fail: a view that passes every event through leaks the other
    assistants' calendars (their turn prompts) to each seat."""
    from accord.games.calendar.engine import CalendarGame

    def everything(cls: type, seat: int, event: dict[str, Any]) -> dict[str, Any] | None:
        del cls, seat
        return {"from": 0, "text": json.dumps(event)}

    monkeypatch.setattr(CalendarGame, "seat_view", classmethod(everything))
    hub = PlayHub(tmp_path / "play", seat_timeout_s=5)
    table = hub.create("calendar", ["human"] * 3, seed=7)
    _play(hub, table)
    assert _leaks(table)


def test_the_privacy_check_catches_leaked_thinking(
    tmp_path: Path, monkeypatch, schema_forms: None
) -> None:
    """...and a negotiation view that shows the partner's private thinking with its speech."""
    from accord.games.negotiation.engine import NegotiationGame

    def with_thinking(cls: type, seat: int, event: dict[str, Any]) -> dict[str, Any] | None:
        del cls
        if event.get("type") != "message" or event.get("seat") == seat:
            return None
        return {"from": event["seat"], "text": f"{event['speech']} ({event['thinking']})"}

    monkeypatch.setattr(NegotiationGame, "seat_view", classmethod(with_thinking))
    hub = PlayHub(tmp_path / "play", seat_timeout_s=5)
    table = hub.create("negotiation", ["human", "human"], options={"rounds": 1}, seed=7)
    _play(hub, table, mark_thinking=True)
    leaks = _leaks(table)
    assert leaks and all(THOUGHT in line for lines in leaks.values() for line in lines)


# -- the command -----------------------------------------------------------------------------


def test_serve_play_prints_the_lobby_link_and_binds_loopback(tmp_path: Path, monkeypatch) -> None:
    import socket

    import uvicorn
    from typer.testing import CliRunner

    from accord.cli import serve_cmd
    from accord.cli.main import app as cli_app

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(serve_cmd, "_bind", lambda host, port: socket.socket())
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append({"app": app, **kw}))
    out = tmp_path / "humans"
    result = CliRunner().invoke(cli_app, ["serve", "--play", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert calls[0]["host"] == "127.0.0.1"
    key = result.output.split("#/play/")[1].split()[0]
    served = TestClient(calls[0]["app"], base_url="http://127.0.0.1")
    assert served.get("/api/play/tables", headers={"X-Accord-Key": key}).json() == []
    assert [r["run"] for r in served.get("/api/runs").json()] == ["humans"]
    assert (out / "traces").is_dir()
    # Not on loopback: a warning that seat links are all it takes.
    result = CliRunner().invoke(
        cli_app, ["serve", "--play", "--out", str(out), "--host", "0.0.0.0"]
    )
    assert result.exit_code == 0 and "anyone who can reach this machine" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["serve"], "give at least one run directory"),
        (["serve", "--play", "--seat-timeout", "0"], "seat-timeout"),
    ],
)
def test_serve_play_bad_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    from typer.testing import CliRunner

    from accord.cli.main import app as cli_app

    result = CliRunner().invoke(cli_app, args)
    assert result.exit_code == 2 and message in result.output
    assert "Traceback" not in result.output


def test_serve_help_shows_the_play_example(cli_help: Callable[..., str]) -> None:
    shown = cli_help("serve")
    assert "accord serve --play" in shown and "--seat-timeout" in shown


def test_a_decision_without_a_fallback_fails_the_game_when_its_person_leaves() -> None:
    from accord.core.errors import AccordError
    from accord.core.spec import ActionSpec, Request
    from accord.web.seat import WebHumanAgent

    recorded: list[tuple[str, dict[str, Any]]] = []

    async def main() -> None:
        ch = SeatChannel(0, "A")
        ch.connect()
        ch.disconnect()  # the page was closed
        agent = WebHumanAgent(ch, timeout_s=0.2)
        spec = ActionSpec(kind="vote", parse=lambda text: {"vote": text})
        request = Request(seat=0, observation="Vote now.", spec=spec)
        with pytest.raises(AccordError, match=r"left the game for 0\.2 s, and this vote"):
            await agent.act(request, lambda t, **f: recorded.append((t, f)))

    asyncio.run(main())
    assert [t for t, _ in recorded] == ["human_timeout"]
