"""The game's view a person sees above their controls (`seat_frame` of each built-in game's
replay module, `accord.core.replay.seat_frame_of`): drawn from the seat's own request only,
so it shows that seat's private information and no other seat's."""

from __future__ import annotations

import json
import re
from typing import Any

from accord.core.game import Game
from accord.core.registry import game_class, make
from accord.core.replay import seat_frame_of


def _first_requests(game_id: str, options: dict[str, Any] | None = None) -> tuple[Game, list[Any]]:
    game = make(game_id, options or {})
    game.reset(7)
    return game, game.pending()


def _text(frame: dict[str, Any] | None) -> str:
    assert frame is not None
    assert {"title", "panels"} <= set(frame)
    return json.dumps(frame, ensure_ascii=False)


def test_negotiation_shows_the_market_and_only_the_seats_own_projects() -> None:
    game, requests = _first_requests("negotiation")
    cls = game_class("negotiation")
    scenario = game.scenario()
    first = next(s for s in scenario["scenarios"] if s["id"] == scenario["per_round"][0])

    def rows(projects: list[dict[str, Any]]) -> set[tuple[str, str]]:
        return {(p["name"], json.dumps([p["requirements"], p["reward"]])) for p in projects}

    for request in requests:
        frame = seat_frame_of(cls, request)
        _text(frame)
        assert frame is not None
        grid = next(p for p in frame["panels"] if p["title"].startswith("Your projects"))
        resources = sorted(request.info["market"].supply)
        shown = set()
        for row in grid["rows"]:
            cells = zip(resources, row["cells"], strict=False)  # the reward cell comes last
            needs = {r: int(c["text"]) for r, c in cells if c["text"]}
            shown.add((row["label"], json.dumps([needs, int(row["cells"][-1]["text"])])))
        mine, theirs = (rows(first["agents"][i]) for i in (request.seat, 1 - request.seat))
        assert theirs != mine, "the partner's projects differ, so a leak would show"
        assert shown == mine


def test_calendar_shows_the_seats_own_calendar_and_not_the_oracle() -> None:
    _, requests = _first_requests("calendar")
    cls = game_class("calendar")
    for request in requests:
        shown = _text(seat_frame_of(cls, request))
        ids = {item["id"] for item in request.info["calendar"] if item is not None}
        seen = {int(m) for m in re.findall(r'"[#M](\d+) ·', shown)}
        assert seen == ids, (request.seat, seen, ids)
        assert "oracle" not in shown.lower()


def test_sorting_shows_the_seats_own_slice_only() -> None:
    _, requests = _first_requests("sorting")
    cls = game_class("sorting")
    for request in requests:
        frame = seat_frame_of(cls, request)
        (numbers,) = [p for p in (frame or {}).get("panels", []) if p["kind"] == "grid"]
        assert [c["text"] for c in numbers["rows"][0]["cells"]] == [
            str(x) for x in request.info["xs"]
        ]


def test_a_game_without_a_seat_view_gets_none() -> None:
    class Plain:
        replay_module = None

    _, requests = _first_requests("negotiation")
    assert seat_frame_of(Plain, requests[0]) is None
