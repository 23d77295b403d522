"""A seat played by a person in a browser (`accord serve --play`).

The person is shown exactly what an LLM seat would be told: the system prompt (the briefing)
and each request's observation text. A game that declares its own controls
(`accord.core.controls`) is answered with them: the page sends the controls' values as JSON and
the game's ``build`` turns them into the action through the request's own parser; the page
asks ``check`` (the same path, nothing submitted) as the person types. Otherwise the answer is
JSON text built by the page from the request's action schema. Either way a bad answer gets the
very error message a model would get and can be corrected; nothing typed is lost.

What a seat's browser receives is its *feed*: an append-only list of items, each visible to
that seat only:

- ``request``: a decision to make (briefing when new, observation, kind, action schema);
- ``answered`` / ``timed_out``: how a request ended;
- ``message``: another seat's message as it arrives, as the game's `Game.seat_view` shows it
  to this seat (only messages the rules deliver to this seat);
- ``end``: the game is over, with this seat's own result row.

A person who leaves (no page of the seat open) for `timeout_s` seconds is replaced, decision
by decision, by the request's documented fallback until they come back; each such decision is
recorded as ``human_timeout`` followed by ``heuristic_fallback``. A request without a
fallback then ends the game as failed. Every answer records ``human_action`` with the
response time in seconds (also summed into the seat's ``latency_s``).
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Callable
from typing import Any

from accord.agents.base import Agent, Recorder, no_record
from accord.core.controls import PlayControls
from accord.core.errors import AccordError, ActionError
from accord.core.provenance import use_fallback
from accord.core.spec import Action, Request

POLL_S = 0.25
"""How often a waiting seat checks whether its person has left."""


class SeatChannel:
    """Everything between one human seat and its person's browser."""

    def __init__(
        self, seat: int, name: str, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.seat = seat
        self.name = name
        self.token = secrets.token_urlsafe(24)
        """The seat link's secret: whoever holds it plays this seat."""
        self.clock = clock
        self.feed: list[dict[str, Any]] = []
        self.version = 0
        """Bumped by every change of the feed or of the seat's presence."""
        self.connections = 0
        self.joined = False
        self.left_at: float | None = None
        self._changed = asyncio.Event()
        self._answers: asyncio.Queue[tuple[int, str, asyncio.Future[str | None]]] = asyncio.Queue()
        self.open_request: int | None = None
        self.open_check: Callable[[str], Action] | None = None
        """Reads an answer to the open request without submitting it (raises `ActionError`)."""

    # -- the person's side -------------------------------------------------------------------
    def connect(self) -> None:
        """A page of this seat opened its stream."""
        self.connections += 1
        self.joined = True
        self.left_at = None
        self.notify()

    def disconnect(self) -> None:
        """A page of this seat closed its stream."""
        self.connections = max(0, self.connections - 1)
        if self.connections == 0:
            self.left_at = self.clock()
        self.notify()

    async def answer(self, request_id: int, text: str) -> str | None:
        """Hand `text` to the seat's open request; the parser's error, or None if accepted."""
        if request_id != self.open_request:
            return "this request is no longer open (answered, or timed out); reload the page"
        verdict: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        await self._answers.put((request_id, text, verdict))
        return await verdict

    def check(self, request_id: int, text: str) -> str | None:
        """What would be wrong with `text` as the answer to `request_id` (None: it would be
        accepted by the parser); nothing is submitted."""
        check = self.open_check
        if request_id != self.open_request or check is None:
            return "this request is no longer open (answered, or timed out); reload the page"
        try:
            check(text)
        except ActionError as exc:
            return str(exc)
        return None

    # -- the game's side ---------------------------------------------------------------------
    def post(self, item: dict[str, Any]) -> None:
        """Append an item to the feed and wake the streams."""
        self.feed.append(item)
        self.notify()

    def notify(self) -> None:
        """Wake everything waiting on `changed`."""
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    async def changed(self, seen: int, timeout_s: float) -> bool:
        """Wait until something changed after version `seen` (True at once if it already
        has), or `timeout_s` passes (False). Read `version` *before* reading the feed, so a
        change in between is never missed."""
        if self.version != seen:
            return True
        event = self._changed
        try:
            await asyncio.wait_for(event.wait(), timeout_s)
        except TimeoutError:
            return False
        return True

    def absent_for(self) -> float:
        """Seconds since the person left (0 while a page is open)."""
        if self.connections > 0 or self.left_at is None:
            return 0.0
        return self.clock() - self.left_at

    async def next_answer(
        self, request_id: int, timeout_s: float
    ) -> tuple[str, asyncio.Future[str | None]] | None:
        """The next text typed for `request_id`, or None once the person has been away for
        `timeout_s` seconds."""
        while True:
            if self.absent_for() >= timeout_s:
                return None
            try:
                rid, text, verdict = await asyncio.wait_for(self._answers.get(), POLL_S)
            except TimeoutError:
                continue
            if rid == request_id:
                return text, verdict
            verdict.set_result("this request is no longer open; reload the page")


def form_spec(request: Request, controls: PlayControls | None = None) -> dict[str, Any]:
    """What the page needs to build the answer form: the game's own controls when it declares
    them; else the kind, the JSON schema of a valid reply (None: free text) and the one-line
    format reminder."""
    if controls is not None:
        return {"kind": request.spec.kind, "controls": controls.form(request)}
    return {
        "kind": request.spec.kind,
        "schema": request.spec.schema,
        "hint": request.spec.format_hint,
    }


class WebHumanAgent(Agent):
    """A person at a browser, through a `SeatChannel`."""

    spec = "human"

    def __init__(
        self,
        channel: SeatChannel,
        *,
        timeout_s: float,
        controls: PlayControls | None = None,
        view: Callable[[Request], dict[str, Any] | None] | None = None,
    ) -> None:
        super().__init__()
        self.channel = channel
        self.timeout_s = timeout_s
        self.controls = controls
        self.view = view
        """The game's view of a request for its seat (`accord.core.replay.seat_frame_of`)."""
        self._shown_system: str | None = None
        self._next_id = 0

    async def act(self, request: Request, record: Recorder = no_record) -> Action:
        ch = self.channel
        self._next_id += 1
        rid = self._next_id
        item: dict[str, Any] = {
            "type": "request",
            "id": rid,
            "round": request.round,
            "turn": request.turn,
            "observation": request.observation,
            "form": form_spec(request, self.controls),
        }
        frame = self.view(request) if self.view is not None else None
        if frame is not None:
            item["view"] = frame  # drawn above the controls, as the game's replay draws it
        if request.system and (request.reset_context or request.system != self._shown_system):
            item["system"] = request.system
            self._shown_system = request.system
        asked = ch.clock()
        ch.open_request = rid
        ch.open_check = lambda text: self._read(request, text)
        ch.post(item)
        try:
            while True:
                got = await ch.next_answer(rid, self.timeout_s)
                if got is None:
                    return self._timed_out(request, rid, record, ch.clock() - asked)
                text, verdict = got
                try:
                    action = self._read(request, text)
                except ActionError as exc:
                    record("validation_error", kind=request.spec.kind, error=str(exc), raw=text)
                    verdict.set_result(str(exc))
                    continue
                response_s = round(ch.clock() - asked, 3)
                record("human_action", kind=request.spec.kind, response_s=response_s)
                self.usage.decisions += 1
                self.usage.latency_s += response_s
                ch.open_request = None
                ch.open_check = None
                verdict.set_result(None)
                ch.post({"type": "answered", "id": rid, "response_s": response_s})
                return action
        finally:
            if ch.open_request == rid:
                ch.open_request = None
                ch.open_check = None

    def _read(self, request: Request, text: str) -> Action:
        """The page's answer -> action: the controls' values through the game's `build`, or
        reply text through the request's parser."""
        if self.controls is None:
            return request.spec.parse(text)
        try:
            values = json.loads(text)
        except json.JSONDecodeError:
            values = None
        if not isinstance(values, dict):
            raise ActionError("the page sent an unreadable answer; reload the page")
        return self.controls.build(request, values)

    def _timed_out(self, request: Request, rid: int, record: Recorder, waited: float) -> Action:
        ch = self.channel
        ch.open_request = None
        ch.open_check = None
        why = f"the person at seat {ch.name} left the game for {self.timeout_s:g} s"
        record("human_timeout", kind=request.spec.kind, waited_s=round(waited, 3), error=why)
        if request.spec.fallback is None:
            raise AccordError(f"{why}, and this {request.spec.kind} decision has no fallback")
        action = use_fallback(request.spec, why, record)
        self.usage.decisions += 1
        self.usage.fallbacks += 1
        ch.post({"type": "timed_out", "id": rid})
        return action
