"""People answer with each game's own controls (`accord.core.controls`), never a JSON box.

Driven through the HTTP routes the seat page uses: the feed's request carries the game's
controls (no schema, no ``thinking``), ``/check`` reads an answer as it is typed without
sending it, and ``/answer`` takes the controls' values through the game's parser.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from accord.testing.webserver import serving
from accord.traces.io import read_trace
from accord.web.app import create_app
from accord.web.play import PlayHub
from accord.web.seat import SeatChannel

httpx = pytest.importorskip("httpx")


def _next_request(client: Any, token: str, after: int = 0) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        feed = client.get(f"/api/play/seat/{token}").json()["feed"]
        for item in feed:
            if item["type"] == "request" and item["id"] > after:
                return item  # type: ignore[no-any-return]
            if item["type"] == "end":
                return item  # type: ignore[no-any-return]
        time.sleep(0.05)
    raise AssertionError("no request came")


def controls_answer(item: dict[str, Any]) -> dict[str, Any]:
    """A valid entry in the controls: a message when talking, nothing bought or scheduled."""
    c = item["form"]["controls"]
    if c["game"] == "negotiation":
        return {"speech": "I can wait", "decide": c["must_decide"], "purchase": {}}
    if c["phase"] == "REFLECTION":
        return {"deltas": {str(t): [0] * c["num_slots"] for t in c["targets"]}}
    if "dm" in c["calls"]:
        return {"calls": [{"type": "dm", "to": c["agents"][0], "content": "slot 2 works"}]}
    return {"calls": []}


def _join(url: str, token: str, stop: threading.Event) -> None:
    """Keep the seat's stream open (a page of the seat is open) until `stop`."""
    with httpx.stream("GET", f"{url}/api/play/seat/{token}/stream", timeout=60) as res:
        for _ in res.iter_lines():
            if stop.is_set():
                return


@pytest.mark.parametrize(
    ("game", "seats", "options", "bad", "needle"),
    [
        (
            "negotiation",
            ["human", "greedy"],
            {"rounds": 1, "reflection": False},
            {"speech": "all of it", "decide": True, "purchase": {"__cheap__": 99}},
            "exceeds your budget",
        ),
        (
            "calendar",
            ["imap", "imap", "human"],
            {},
            {"calls": [{"type": "dm", "to": 0, "content": ""}]},
            "fill in content",
        ),
    ],
)
def test_a_person_answers_with_the_games_controls_checked_as_typed(
    tmp_path: Path,
    game: str,
    seats: list[str],
    options: dict[str, Any],
    bad: dict[str, Any],
    needle: str,
) -> None:
    hub = PlayHub(tmp_path / "play", seat_timeout_s=30)
    table = hub.create(game, seats, options=options, seed=4)
    ch: SeatChannel = next(iter(table.channels.values()))
    stop = threading.Event()
    with serving(create_app([], play=hub)) as url, httpx.Client(base_url=url) as client:
        joined = threading.Thread(target=_join, args=(url, ch.token, stop), daemon=True)
        joined.start()
        item = _next_request(client, ch.token)
        form = item["form"]
        assert "controls" in form and "schema" not in form
        assert "thinking" not in json.dumps(form)
        c = form["controls"]
        if "__cheap__" in bad.get("purchase", {}):
            cheap = min(c["resources"], key=lambda r: r["cost"])["name"]
            bad = {**bad, "purchase": {cheap: 99}}
        body = {"id": item["id"], "text": json.dumps(bad)}
        checked = client.post(f"/api/play/seat/{ch.token}/check", json=body).json()
        assert checked["ok"] is False and needle in checked["error"]
        # Checking sends nothing: the request is still open, and no decision was recorded.
        assert ch.open_request == item["id"]
        junk = client.post(
            f"/api/play/seat/{ch.token}/check", json={"id": item["id"], "text": "[1]"}
        ).json()
        assert junk["ok"] is False and "reload the page" in junk["error"]
        refused = client.post(f"/api/play/seat/{ch.token}/answer", json=body)
        assert refused.status_code == 422 and needle in refused.json()["detail"]
        good = {"id": item["id"], "text": json.dumps(controls_answer(item))}
        assert client.post(f"/api/play/seat/{ch.token}/check", json=good).json() == {
            "ok": True,
            "error": None,
        }
        assert client.post(f"/api/play/seat/{ch.token}/answer", json=good).json() == {"ok": True}
        stale = client.post(f"/api/play/seat/{ch.token}/check", json=good).json()
        assert stale["ok"] is False and "no longer open" in stale["error"]
        # The rest of the game the same way, to its end.
        last = item["id"]
        while True:
            item = _next_request(client, ch.token, last)
            if item["type"] == "end":
                break
            last = item["id"]
            answer = {"id": last, "text": json.dumps(controls_answer(item))}
            assert client.post(f"/api/play/seat/{ch.token}/answer", json=answer).status_code == 200
        stop.set()
    assert item["status"] == "complete"
    asyncio.run(hub.close())
    trace = read_trace(tmp_path / "play" / "traces" / f"{table.spec.trace_id}.json")
    assert trace.status == "complete"
    refusals = [e for e in trace.events if e["type"] == "validation_error"]
    assert len(refusals) == 1 and needle in refusals[0]["error"]
    assert json.loads(refusals[0]["raw"]) == bad


def test_checking_needs_the_seats_token_and_an_open_request(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    hub = PlayHub(tmp_path / "play")
    client = TestClient(create_app([], play=hub))
    table = hub.create("negotiation", ["human", "greedy"])
    token = table.channels[0].token
    body = {"id": 1, "text": "{}"}
    assert client.post("/api/play/seat/not-a-token/check", json=body).status_code == 404
    huge = client.post(f"/api/play/seat/{token}/check", json={"id": 1, "text": "x" * 20_001})
    assert huge.status_code == 422
    early = client.post(f"/api/play/seat/{token}/check", json=body).json()
    assert early == {
        "ok": False,
        "error": "this request is no longer open (answered, or timed out); reload the page",
    }
