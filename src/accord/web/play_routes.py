"""The HTTP side of `accord serve --play`: the lobby, seat pages' feeds and answers.

Two secrets guard it. The lobby key (printed when the server starts, carried in the lobby
page's URL fragment and sent as the ``X-Accord-Key`` header) lets its holder create tables
and read every seat link. A seat token (in a seat link) lets its holder read that seat's feed
and answer its requests, nothing else. Unknown tokens and wrong keys get the same answer
whatever they guess.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncGenerator
from typing import Any

from fastapi import FastAPI, Header, HTTPException, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from accord.agents.reference import reference_names
from accord.core.errors import AccordError
from accord.core.registry import game_ids, make
from accord.web.live import KEEPALIVE_S, sse
from accord.web.play import PlayHub, Table
from accord.web.seat import SeatChannel
from accord.web.watch import StreamCap

MAX_ANSWER_CHARS = 20_000
"""Longest answer accepted (the longest valid reply of any game is far shorter)."""


class NewTable(BaseModel):
    """A table asked for by the lobby."""

    model_config = ConfigDict(extra="forbid")

    game: str = Field(max_length=100)
    seats: list[str] = Field(max_length=32, description="human, a reference agent or a model")
    options: dict[str, Any] = Field(default_factory=dict)
    seed: int | None = Field(None, ge=0, lt=2**63)


class Answer(BaseModel):
    """A person's answer to their open request."""

    model_config = ConfigDict(extra="forbid")

    id: int
    text: str = Field(max_length=MAX_ANSWER_CHARS)


def seat_info(table: Table, ch: SeatChannel) -> dict[str, Any]:
    """What a seat's page is told about its table: the game, the seat names and which one is
    theirs. Who plays the other seats is not said (the person plays blind, like a model)."""
    return {
        "game_id": table.spec.game,
        "status": table.status,
        "seat": ch.seat,
        "name": ch.name,
        "seats": [{"seat": i, "name": n} for i, n in enumerate(table.seat_names)],
        "waiting_for": [c.name for c in table.channels.values() if not c.joined and c is not ch],
    }


def add_play_routes(app: FastAPI, hub: PlayHub, cap: StreamCap | None = None) -> None:
    """Mount the lobby and seat endpoints of `hub` on `app`; seat streams count against `cap`
    (the view's cap on live streams per client), as the run and game streams do."""
    streams = cap if cap is not None else StreamCap()

    def check_key(key: str | None) -> None:
        if key is None or not secrets.compare_digest(key, hub.lobby_key):
            raise HTTPException(403, "this needs the lobby link printed by accord serve --play")

    def find_seat(token: str) -> tuple[Table, SeatChannel]:
        try:
            return hub.seat(token)
        except KeyError:
            raise HTTPException(404, "no such seat: check the seat link") from None

    @app.get("/api/play/games")
    def play_games(x_accord_key: str | None = Header(None)) -> list[dict[str, Any]]:
        check_key(x_accord_key)
        out = []
        for gid in game_ids():
            game = make(gid, {})
            out.append(
                {
                    "game_id": gid,
                    "seats": [game.seat_label(i) for i in range(game.num_seats)],
                    "reference_agents": reference_names(gid),
                }
            )
        return out

    @app.get("/api/play/tables")
    def list_tables(x_accord_key: str | None = Header(None)) -> list[dict[str, Any]]:
        check_key(x_accord_key)
        return [t.public(with_links=True, run_id=hub.run_id) for t in reversed(hub.tables.values())]

    @app.post("/api/play/tables")
    def create_table(body: NewTable, x_accord_key: str | None = Header(None)) -> dict[str, Any]:
        check_key(x_accord_key)
        try:
            table = hub.create(body.game, body.seats, options=body.options, seed=body.seed)
        except AccordError as exc:
            raise HTTPException(400, str(exc).strip().splitlines()[0] if str(exc) else "") from exc
        return table.public(with_links=True, run_id=hub.run_id)

    @app.get("/api/play/seat/{token}")
    def seat_state(token: str) -> dict[str, Any]:
        table, ch = find_seat(token)
        return {**seat_info(table, ch), "feed": ch.feed}

    @app.get("/api/play/seat/{token}/stream")
    async def seat_stream(token: str, request: Request, since: int = 0) -> StreamingResponse:
        table, ch = find_seat(token)

        async def body() -> AsyncGenerator[str, None]:
            sent = max(since, 0)
            ch.connect()
            hub.joined(table)
            status = None
            try:
                while True:
                    seen = ch.version
                    info = seat_info(table, ch)
                    key = (info["status"], tuple(info["waiting_for"]))
                    if key != status:
                        status = key
                        yield sse("table", info)
                    while sent < len(ch.feed):
                        item = ch.feed[sent]
                        sent += 1
                        yield sse("item", item)
                        if item["type"] == "end":
                            return
                    if await request.is_disconnected():
                        return
                    if not await ch.changed(seen, KEEPALIVE_S):
                        yield ": keep-alive\n\n"
            finally:
                ch.disconnect()

        return streams.stream(request, body())

    @app.post("/api/play/seat/{token}/check")
    async def seat_check(token: str, body: Answer) -> dict[str, Any]:
        """Whether `body` would be accepted as the open request's answer; nothing is sent."""
        _, ch = find_seat(token)
        error = ch.check(body.id, body.text)
        return {"ok": error is None, "error": error}

    @app.post("/api/play/seat/{token}/answer")
    async def seat_answer(token: str, body: Answer) -> dict[str, Any]:
        _, ch = find_seat(token)
        try:
            error = await asyncio.wait_for(ch.answer(body.id, body.text), 30.0)
        except TimeoutError:
            error = "the game did not take the answer in time; try again"
        if error is not None:
            raise HTTPException(422, error)
        return {"ok": True}
