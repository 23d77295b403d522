"""A seat held by an agent in another process, over MCP or HTTP/JSON (`accord.remote`).

The agent is sent exactly what a model seat would be (briefing, observation, reply schema) and
answers through the seat server; its reply goes through the request's own parser. What the
trace records, per request: ``remote_request`` (what was sent), one ``remote_call`` per call
the agent made (tool, transport, outcome, error; never its token), and ``remote_action`` with
the response time and any usage the agent reported (``self_reported_usage``: the agent's own
numbers, never added to the seat's usage). The seat's transcript holds the messages it was
sent and the replies it gave (rejected ones with the error as a note).

A no-show (no call within ``join_s``), a missed deadline, a protocol violation or an agent
process that exits early records ``remote_failed`` and ends the game as failed with the
reason, unless the seat's ``on_failure: fallback`` names the request's documented fallback:
then that seat's decisions are the fallback for the rest of the game, each recorded as
``heuristic_fallback``. A failed agent is never silently replaced.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from accord.agents.base import Agent, Recorder, _no_record
from accord.core.provenance import use_fallback
from accord.core.spec import Action, Request
from accord.remote.spec import RemoteSeatSpec

if TYPE_CHECKING:
    from accord.remote.hub import Hub
    from accord.remote.process import AgentProcess
    from accord.remote.seat import SeatSession

POLL_S = 0.2
"""How often a waiting seat checks that its agent process is still alive."""

END_GRACE_S = 1.0
"""Seconds a joined agent has, once its game is over, to hear so before its token expires."""

UNAUTHENTICATED = (
    "calls without a valid token reached the seat server while this seat was open (refused "
    "with 401; they name no seat)"
)

Announce = Callable[[str], None]


def answer_seconds(asked: float, joined_at: float | None, now: float) -> float:
    """Seconds the agent took to answer a request opened at `asked`: from when it could see
    it, i.e. from its first call when it joined after the request opened (its start-up is the
    no-show clock's business, ``join_s``, not its answer time)."""
    seen = asked if joined_at is None else max(asked, joined_at)
    return round(max(0.0, now - seen), 3)


def _print_to_terminal(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


ANNOUNCE: list[Announce] = [_print_to_terminal]
"""Where join details of ``remote:`` seats are printed (the terminal; tests swap it)."""


class RemoteAgent(Agent):
    """One seat served to a remote agent for one game."""

    def __init__(
        self, remote: RemoteSeatSpec, game_id: str, *, session: str, label: str | None = None
    ) -> None:
        super().__init__()
        self.remote = remote
        self.spec = label or remote.display
        self.game_id = game_id
        self.trace_id = session
        self._hub: Hub | None = None
        self._seat: SeatSession | None = None
        self._process: AgentProcess | None = None
        self._flushed = 0
        self._identity: dict[str, str] | None = None
        self._reported: dict[str, float] = {}
        """Usage the agent reported over the game (self-reported, never Accord's own)."""
        self._refused_seen = 0
        self._join_by = 0.0
        """When a seat that has not joined is a no-show (``join_s`` after it was offered)."""
        self._replaced: str | None = None
        self._messages: list[dict[str, Any]] = []
        self._shown_system: str | None = None
        self.refuse_first_reply: str | None = None
        """See `accord.remote.seat.SeatSession.refuse_first_reply` (``accord agent check``)."""

    def describe(self) -> dict[str, Any]:
        return {
            "agent": self.spec,
            "model": None,
            "remote": self.remote.remote or "command",
            **({"self_reported": self.self_reported} if self.self_reported else {}),
        }

    def transcript_json(self) -> dict[str, Any] | None:
        if self._seat is None:
            return None
        return {"messages": self._messages, "calls": len(self._seat.calls)}

    async def start(self, seat: int, record: Recorder = _no_record) -> None:
        """At game start: register the seat, print its join details or start its agent
        process; the no-show clock (``join_s``) runs from here."""
        if self._seat is None:
            await self._join(seat, record)

    async def _join(self, seat_index: int, record: Recorder) -> None:
        from accord.remote import hub
        from accord.remote.seat import SeatSession

        def session_of(token: str) -> SeatSession:
            return SeatSession(
                token=token,
                game_id=self.game_id,
                trace_id=self.trace_id,
                seat=seat_index,
                spec=self.remote,
            )

        served, seat = await hub.acquire(self.remote, session_of)
        self._hub, self._seat = served, seat
        self._refused_seen = served.refused
        seat.refuse_first_reply = self.refuse_first_reply
        base = served.base_url
        self._join_by = time.monotonic() + self.remote.join_s
        where = f"{self.trace_id} seat {seat_index}"
        if self.remote.command is not None:
            from accord.remote.process import AgentProcess

            self._process = await AgentProcess.start(
                self.remote.command,
                env={
                    "ACCORD_SEAT_URL": f"{base}/v1",
                    "ACCORD_SEAT_MCP_URL": f"{base}/mcp",
                    "ACCORD_SEAT_TOKEN": seat.token,
                },
                name=f"{self.trace_id}.{seat_index}",
            )
        else:
            url = f"{base}/mcp" if self.remote.remote == "mcp" else f"{base}/v1"
            for say in ANNOUNCE:
                say(
                    f"{where} ({self.game_id}): join over {self.remote.remote} at {url} with "
                    f"'Authorization: Bearer {seat.token}' within {self.remote.join_s:g} s"
                )
        record("remote_join", via=self.remote.remote or "command", url=base)

    async def act(self, request: Request, record: Recorder = _no_record) -> Action:
        from accord.remote.protocol import payload
        from accord.remote.seat import RemoteSeatError

        if self._replaced is not None:
            return self._fallback(request, record, self._replaced)
        if self._seat is None:  # a play loop that did not call `start`
            await self._join(request.seat, record)
        seat = self._joined()
        rid = seat.open_request(request)
        sent = payload(request, rid, self.remote.deadline_s, seat.open.facts if seat.open else None)
        record(
            "remote_request",
            request_id=rid,
            kind=request.spec.kind,
            deadline_s=self.remote.deadline_s,
            reply_schema=sent.reply_schema is not None,
        )
        self._remember_sent(request)
        asked = seat.clock()
        try:
            action, usage = await self._answer(seat, rid)
        except RemoteSeatError as exc:
            reason = await self._reason(str(exc))
            record("remote_failed", request_id=rid, kind=request.spec.kind, error=reason)
            if self.remote.on_failure == "fallback" and request.spec.fallback is not None:
                self._replaced = reason
                seat.end(f"replaced by the request's fallback: {reason}")
                return self._fallback(request, record, reason)
            raise RemoteSeatError(f"remote seat {request.seat} ({self.spec}): {reason}") from None
        finally:
            self._flush_calls(record)
            seat.close_request()
        response_s = answer_seconds(asked, seat.joined_at, seat.clock())
        fields: dict[str, Any] = {"request_id": rid, "kind": request.spec.kind}
        fields["response_s"] = response_s
        if usage:
            fields["self_reported_usage"] = usage
            for key, value in usage.items():
                self._reported[key] = self._reported.get(key, 0) + value
            # Accord's own cost of this seat stays 0, but it is no longer known to be the
            # seat's cost: the agent says it spent something (see `self_reported`).
            self.usage.cost_known = False
        record("remote_action", **fields)
        self.usage.decisions += 1
        self.usage.latency_s += response_s
        return action

    async def _answer(self, seat: SeatSession, rid: int) -> tuple[Action, dict[str, float]]:
        """The accepted reply to request `rid`, or `RemoteSeatError` saying why there is none."""
        from accord.remote.seat import RemoteSeatError

        if seat.failure is not None:
            raise RemoteSeatError(seat.failure)
        while not seat.joined.is_set():
            self._check_process()
            left = self._join_by - time.monotonic()
            if left <= 0:
                raise RemoteSeatError(
                    f"no-show: the agent made no call within {self.remote.join_s:g} s"
                )
            try:
                await asyncio.wait_for(seat.joined.wait(), min(left, POLL_S))
            except TimeoutError:
                continue
        request = seat.open
        assert request is not None and request.request_id == rid
        future = request.future
        while True:
            if future.done():
                return future.result()
            left = request.deadline_at - seat.clock()
            if left <= 0:
                raise RemoteSeatError(
                    f"missed deadline: request {rid} was not answered within "
                    f"{self.remote.deadline_s:g} s"
                )
            self._check_process()
            await asyncio.wait({future}, timeout=min(left, POLL_S))

    def _joined(self) -> SeatSession:
        """The seat's session (only once `_join` has run)."""
        if self._seat is None:
            raise AssertionError("the remote seat has not joined yet")
        return self._seat

    def _check_process(self) -> None:
        from accord.remote.seat import RemoteSeatError

        if self._process is not None and self._process.exited is not None:
            raise RemoteSeatError(
                f"the agent process exited with code {self._process.exited} before the game ended"
            )

    async def _reason(self, reason: str) -> str:
        """`reason`, with the tail of the agent process's stderr when it has exited."""
        if self._process is not None and self._process.exited is not None:
            tail = (await self._process.stop([self._joined().token])).strip()
            if tail:
                return f"{reason}; its stderr ends: {tail[-300:]}"
        return reason

    def _remember_sent(self, request: Request) -> None:
        if request.system and (request.reset_context or request.system != self._shown_system):
            self._messages.append({"role": "system", "content": request.system})
            self._shown_system = request.system
        self._messages.append({"role": "user", "content": request.observation})

    @property
    def self_reported(self) -> dict[str, Any]:
        """What the agent said of itself over the game: ``agent`` (name, version, framework)
        and ``usage`` (summed), both self-reported; empty when it said nothing."""
        out: dict[str, Any] = {}
        if self._identity is not None:
            out["agent"] = dict(self._identity)
        if self._reported:
            out["usage"] = dict(self._reported)
        return out

    def table_name(self, configured: str) -> str:
        """`configured` (the seat's name in tables) with the identity the agent reported,
        marked as its own word: ``remote-mcp (says: my-agent 1.2)``."""
        if self._identity is None:
            return configured
        said = " ".join(v for v in (self._identity.get("name"), self._identity.get("version")) if v)
        return f"{configured} (says: {said})"

    def _flush_calls(self, record: Recorder) -> None:
        """Record the calls made since the last flush (the replies go to the transcript)."""
        seat = self._joined()
        if seat.identity is not None and seat.identity != self._identity:
            self._identity = dict(seat.identity)
            record("remote_identity", self_reported=True, **self._identity)
        calls = seat.calls
        for entry in calls[self._flushed :]:
            fields = {k: v for k, v in entry.items() if k != "reply"}
            record("remote_call", **fields)
            if "reply" in entry:
                message = {"role": "assistant", "content": entry["reply"]}
                if not entry.get("ok"):
                    message["note"] = f"rejected: {entry.get('error', '')}"
                self._messages.append(message)
        self._flushed = len(calls)
        assert self._hub is not None
        refused = self._hub.refused - self._refused_seen
        if refused > 0:
            # A call without a valid token names no seat: every seat open at the time
            # records it, saying so.
            record("remote_unauthenticated", calls=refused, note=UNAUTHENTICATED)
            self._refused_seen += refused

    def _fallback(self, request: Request, record: Recorder, reason: str) -> Action:
        return seat_fallback(self, request, record, reason)

    async def close(self) -> None:
        from accord.remote import hub

        seat, served = self._seat, self._hub
        if seat is None or served is None:
            return
        if seat.ended is None:
            seat.end("the game is over")
        if self._process is not None:
            await self._process.stop([seat.token])
        elif seat.joined.is_set():
            # A moment for the agent to hear 'ended' before its token is refused.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(seat.saw_end.wait(), END_GRACE_S)
        await hub.release(served, seat)


def seat_fallback(agent: Agent, request: Request, record: Recorder, reason: str) -> Action:
    """The request's documented fallback for a remote seat (any protocol) that could not
    answer, counted as the seat's decision; without one, the seat fails with `reason`."""
    from accord.remote.seat import RemoteSeatError

    if request.spec.fallback is None:
        raise RemoteSeatError(
            f"remote seat {request.seat} ({agent.spec}): {reason}, and this "
            f"{request.spec.kind} decision has no fallback"
        )
    action = use_fallback(request.spec, reason, record)
    agent.usage.decisions += 1
    agent.usage.fallbacks += 1
    return action
