"""One remote seat of one game: its open request, its deadline and the log of its calls.

Both transports (`accord.remote.app`) call `SeatSession.call`, so an MCP agent and an HTTP
agent are held to exactly the same rules. The game's side (`accord.agents.remote`) opens a
request with `open_request` and waits for `answer`.

Rules (``docs/agents.md``, "Protocol"):

* a seat sees only its own open request: there is no call that names another seat;
* ``act`` is accepted only for the open request, before its deadline, with a reply the
  request's own parser accepts (the very parser and error texts a model's reply goes through);
* each bad call (invalid reply, acting when not asked, malformed arguments, an oversize reply)
  gets one clear error and counts; more than ``max_errors`` in a row is a protocol violation;
* an ``act`` that repeats an accepted one (the same idempotency ``key``, or the same request
  and reply: a client's retry) gets the original answer again, marked ``repeated``, and is
  neither done again nor a bad call;
* the agent may say who it is (``agent``: name, version, framework); it is kept as
  self-reported.

The log holds no token: a call is known by its tool, its outcome and the request it named.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from accord.core.errors import AccordError, ActionError, InputLimitError
from accord.core.inputs import usage_number
from accord.core.spec import Action, Request
from accord.remote.observations import facts, hidden_keys
from accord.remote.protocol import (
    MAX_REPLY_CHARS,
    MAX_WAIT_S,
    PROTOCOL,
    USAGE_KEYS,
    ActArgs,
    ActReply,
    AgentIdentity,
    SeatInfoReply,
    WaitReply,
    payload,
)
from accord.remote.spec import RemoteSeatSpec

TOOLS = ("seat_info", "observe", "wait_for_request", "act")
"""What an agent may call (MCP tool names; the HTTP paths are the same verbs)."""


class SeatCallError(Exception):
    """A refused call: the HTTP status and the one line the agent is told."""

    def __init__(self, status: int, message: str, body: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.body = body


class RemoteSeatError(AccordError):
    """A remote seat failed: no-show, missed deadline or protocol violation."""


@dataclass
class _Open:
    request_id: int
    request: Request
    deadline_at: float
    future: asyncio.Future[tuple[Action, dict[str, float]]]
    facts: dict[str, Any]


@dataclass(frozen=True)
class _Accepted:
    """An accepted act, kept so that a retry of it gets the same answer."""

    text: str
    key: str | None


class SeatSession:
    """The server's view of one seat."""

    def __init__(
        self,
        *,
        token: str,
        game_id: str,
        trace_id: str,
        seat: int,
        spec: RemoteSeatSpec,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.token = token
        """Held in memory only; never logged."""
        self.game_id = game_id
        self.trace_id = trace_id
        self.seat = seat
        self.spec = spec
        self.clock = clock
        self.calls: list[dict[str, Any]] = []
        """Every authenticated call, token-free: tool, via, ok, error, request_id, at_s."""
        self.started = clock()
        self.joined = asyncio.Event()
        self.joined_at: float | None = None
        """When the agent's first call arrived (answer times start here at the latest)."""
        self.identity: dict[str, str] | None = None
        """What the agent said it is (``agent`` on wait or act), self-reported."""
        self._accepted: dict[int, _Accepted] = {}
        self._keys: dict[str, int] = {}
        self._hidden = hidden_keys(game_id)
        self.saw_end = asyncio.Event()
        """Set once the agent has been told the seat ended."""
        self.open: _Open | None = None
        self.ended: str | None = None
        self.failure: str | None = None
        self.errors_in_row = 0
        self.refuse_first_reply: str | None = None
        """Set by ``accord agent check``: refuse the first valid reply once with this error, to
        see that the agent reads error replies and answers again (not a strike)."""
        self._next_id = 0
        self._changed = asyncio.Event()

    # -- the game's side ---------------------------------------------------------------------
    def open_request(self, request: Request) -> int:
        """Make `request` the seat's open request; its id."""
        self._next_id += 1
        loop = asyncio.get_running_loop()
        self.open = _Open(
            self._next_id,
            request,
            self.clock() + self.spec.deadline_s,
            loop.create_future(),
            facts(request, self._hidden),
        )
        self._notify()
        return self._next_id

    def restart_deadline(self) -> None:
        """The agent just joined: its first request's deadline runs from now."""
        if self.open is not None:
            self.open.deadline_at = self.clock() + self.spec.deadline_s

    def close_request(self) -> None:
        """The open request is over (answered, expired or failed)."""
        if self.open is not None and not self.open.future.done():
            self.open.future.cancel()
        self.open = None
        self._notify()

    def end(self, reason: str) -> None:
        """The game is over for this seat; waiting calls return ``ended``."""
        self.close_request()
        self.ended = reason
        self._notify()

    # -- the agent's side --------------------------------------------------------------------
    async def call(self, via: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        """Run one authenticated call; its JSON answer, or `SeatCallError`."""
        first = not self.joined.is_set()
        self.joined.set()
        if first:
            self.joined_at = self.clock()
            if self.open is not None:
                self.restart_deadline()
        entry: dict[str, Any] = {
            "tool": tool,
            "via": via,
            "at_s": round(self.clock() - self.started, 3),
        }
        self.calls.append(entry)
        try:
            if tool == "seat_info":
                result = self._info()
            elif tool == "observe":
                result = self._observe()
            elif tool == "wait_for_request":
                result = await self._wait(args)
            elif tool == "act":
                result = self._act(args, entry)
            else:
                raise self._strike(
                    404, f"unknown call {tool[:40]!r}; the calls are " + ", ".join(TOOLS)
                )
        except SeatCallError as exc:
            entry.update(ok=False, error=exc.message)
            raise
        entry["ok"] = True
        if result.get("request"):
            entry["request_id"] = result["request"]["request_id"]
        return result

    def log_refusal(self, via: str, tool: str, error: str) -> None:
        """Record a call the transport refused before it reached `call` (oversize body,
        unknown tool); it counts as a bad call."""
        self.calls.append(
            {
                "tool": tool[:40],
                "via": via,
                "at_s": round(self.clock() - self.started, 3),
                "ok": False,
                "error": error,
            }
        )
        self._count_error(error)

    def _info(self) -> dict[str, Any]:
        status = "ended" if self.ended else ("request" if self.open else "waiting")
        return SeatInfoReply(
            protocol=PROTOCOL,
            game_id=self.game_id,
            trace_id=self.trace_id,
            seat=self.seat,
            deadline_s=self.spec.deadline_s,
            status=status,
        ).model_dump(mode="json")

    def _observe(self) -> dict[str, Any]:
        if self.ended is not None:
            self.saw_end.set()
            return WaitReply(status="ended", reason=self.ended).model_dump(mode="json")
        if self.open is None:
            return WaitReply(status="waiting").model_dump(mode="json")
        o = self.open
        left = o.deadline_at - self.clock()
        return WaitReply(
            status="request", request=payload(o.request, o.request_id, left, o.facts)
        ).model_dump(mode="json")

    def _note_identity(self, raw: Any) -> None:
        """Keep what the agent says it is (a malformed one is a bad call)."""
        if raw is None:
            return
        try:
            said = AgentIdentity.model_validate(raw)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "agent"
            raise self._strike(
                400,
                f"malformed agent identity (agent.{where}: {first['msg']}); send "
                '{"name": ..., "version": ..., "framework": ...}',
            ) from None
        self.identity = said.model_dump(exclude_none=True)

    async def _wait(self, args: dict[str, Any]) -> dict[str, Any]:
        self._note_identity(args.get("agent"))
        raw = args.get("timeout_s", MAX_WAIT_S)
        if isinstance(raw, bool) or not isinstance(raw, int | float) or not raw >= 0:
            raise self._strike(400, "timeout_s must be a number of seconds, 0 or more")
        end = self.clock() + min(float(raw), MAX_WAIT_S)
        while self.open is None and self.ended is None:
            left = end - self.clock()
            if left <= 0:
                break
            event = self._changed
            try:
                await asyncio.wait_for(event.wait(), left)
            except TimeoutError:
                break
        return self._observe()

    def _act(self, args: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
        try:
            parsed = ActArgs.model_validate(args)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "arguments"
            raise self._strike(
                400, f"malformed act arguments ({where}: {first['msg']}); send request_id and reply"
            ) from None
        entry["request_id"] = parsed.request_id
        if parsed.agent is not None:
            self.identity = parsed.agent.model_dump(exclude_none=True)
        text = parsed.reply if isinstance(parsed.reply, str) else json.dumps(parsed.reply)
        entry["reply"] = text if len(text) <= MAX_REPLY_CHARS else text[:200] + "…"
        repeated = self._repeat(parsed, text)
        if repeated is not None:
            entry["repeated"] = True
            del entry["reply"]  # the transcript holds the accepted reply once
            return repeated
        if self.ended is not None:
            raise SeatCallError(409, f"the game is over for this seat ({self.ended})")
        o = self.open
        if o is None or o.request_id != parsed.request_id:
            open_id = "none is open" if o is None else f"request {o.request_id} is open"
            raise self._strike(
                409,
                f"request {parsed.request_id} is not open ({open_id}); call "
                "wait_for_request and answer the request it returns",
            )
        if self.clock() > o.deadline_at:
            raise SeatCallError(409, f"request {o.request_id} is past its deadline")
        if len(text) > MAX_REPLY_CHARS:
            raise self._strike(
                413, f"the reply is {len(text)} characters; at most {MAX_REPLY_CHARS} are read"
            )
        try:
            usage = _usage(parsed.usage)
        except InputLimitError as exc:
            raise self._strike(400, f"{exc}; send the usage again or leave it out") from None
        try:
            action = o.request.spec.parse(text)
        except ActionError as exc:
            raise self._strike(422, str(exc), reply=True) from None
        if self.refuse_first_reply is not None:
            message, self.refuse_first_reply = self.refuse_first_reply, None
            body = ActReply(ok=False, error=message, errors_left=self.spec.max_errors)
            raise SeatCallError(422, message, body.model_dump(mode="json", exclude_none=True))
        if usage:
            entry["self_reported_usage"] = usage
        self.errors_in_row = 0
        self._accepted[o.request_id] = _Accepted(text, parsed.key)
        if parsed.key is not None:
            self._keys[parsed.key] = o.request_id
        o.future.set_result((action, usage))
        return ActReply(ok=True).model_dump(mode="json", exclude_none=True)

    def _repeat(self, parsed: ActArgs, text: str) -> dict[str, Any] | None:
        """The original answer when `parsed` repeats an accepted act, else None; a key of an
        accepted act sent again for another request is a bad call."""
        done = self._accepted.get(parsed.request_id)
        if done is not None and (
            (parsed.key is not None and parsed.key == done.key)
            or (parsed.key is None and text == done.text)
        ):
            return ActReply(ok=True, repeated=True).model_dump(mode="json", exclude_none=True)
        used = self._keys.get(parsed.key) if parsed.key is not None else None
        if used is not None and used != parsed.request_id:
            raise self._strike(
                409,
                f"key {parsed.key!r:.60} was used for request {used}; send a new key with "
                "each new act",
            )
        return None

    def _strike(self, status: int, message: str, *, reply: bool = False) -> SeatCallError:
        """Count a bad call; the error to raise (a violation fails the open request)."""
        left = self._count_error(message)
        body = ActReply(ok=False, error=message, errors_left=left).model_dump(
            mode="json", exclude_none=True
        )
        return SeatCallError(status, message, body if reply or status != 404 else None)

    def _count_error(self, message: str) -> int:
        self.errors_in_row += 1
        left = self.spec.max_errors - self.errors_in_row
        if left < 0 and self.failure is None:
            self.failure = (
                f"protocol violation: {self.errors_in_row} bad calls in a row (the last: {message})"
            )
            if self.open is not None and not self.open.future.done():
                self.open.future.set_exception(RemoteSeatError(self.failure))
        return max(0, left)

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()


def _usage(raw: dict[str, float] | None) -> dict[str, float]:
    """The agent's self-reported usage, known keys only; each a finite number from 0 to
    `accord.core.inputs.MAX_USAGE_NUMBER` (`InputLimitError` otherwise: ``inf`` would be
    written to the trace as null and void it)."""
    if not raw:
        return {}
    out: dict[str, float] = {}
    for key in USAGE_KEYS:
        if key in raw and raw[key] is not None:
            out[key] = usage_number(raw[key], what=f"usage.{key}")
    return out
