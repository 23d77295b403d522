"""A seat played by an A2A agent: Accord calls it, through the official A2A SDK, once per
decision (`accord.remote.a2a_client`, ``docs/agents.md`` "A2A agents").

The agent is either started by Accord (``agent: {command: "python agent.py", protocol: a2a}``:
it is given ``ACCORD_A2A_URL`` / ``ACCORD_A2A_HOST`` / ``ACCORD_A2A_PORT`` to serve on and
``ACCORD_A2A_TOKEN``, the seat's token, which it must require as ``Authorization: Bearer``) or
already running (``agent: {a2a: "http://127.0.0.1:9999", token_env: MY_TOKEN}``).

The same rules as the other remote seats (`accord.agents.remote`): its reply goes through the
request's own parser; a refused reply is sent back with the error and counts as a bad call, and
more than ``max_errors`` in a row is a protocol violation; a request not answered within
``deadline_s`` (counted from the seat's join for the first one) is a missed deadline; an agent
whose card cannot be fetched within ``join_s`` is a no-show; a token refused, an agent that
stops answering or an agent process that exits ends the game as failed, unless
``on_failure: fallback``. The trace records ``remote_join`` (with the card's name), per request
``remote_request``, one ``remote_call`` per ``message/send`` holding the message ``sent`` and
what was ``returned``, then ``remote_action`` or ``remote_failed``. The token is never
recorded, and is redacted from anything the agent returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import time
from typing import TYPE_CHECKING, Any

from accord.agents.base import Agent, Recorder, _no_record
from accord.agents.remote import seat_fallback
from accord.core.errors import ActionError, InputLimitError
from accord.core.inputs import usage_number
from accord.core.spec import Action, Request
from accord.remote.a2a_url import check_a2a_extra, free_port
from accord.remote.protocol import TOKEN_BYTES, USAGE_KEYS, payload
from accord.remote.spec import RemoteSeatSpec

if TYPE_CHECKING:
    from accord.remote.a2a_client import A2AConnection, Exchange
    from accord.remote.process import AgentProcess

POLL_S = 0.2
"""How often a waiting seat checks that its agent process is still alive."""

EXIT_SEEN_S = 1.0
"""Seconds a failed seat waits to see whether its agent process has exited (for the reason)."""

PROBE_S = 10.0
"""Seconds the conformance kit's wrong-token call may take."""


class A2AAgent(Agent):
    """One seat played by an A2A agent for one game."""

    def __init__(
        self, remote: RemoteSeatSpec, game_id: str, *, session: str, label: str | None = None
    ) -> None:
        super().__init__()
        self.remote = remote
        self.spec = label or remote.display
        self.game_id = game_id
        self.trace_id = session
        self.seat = 0
        self._conn: A2AConnection | None = None
        self._process: AgentProcess | None = None
        self._token: str | None = None
        self._join_by = 0.0
        self._joined = False
        self._failure: str | None = None
        self._replaced: str | None = None
        self._next_id = 0
        self._sends = 0
        self._errors_in_row = 0
        self._contexts = 0
        self._context_id = ""
        self._shown_system: str | None = None
        self._opened = time.monotonic()
        self._messages: list[dict[str, Any]] = []
        self.refuse_first_reply: str | None = None
        """Set by ``accord agent check``: refuse the first valid reply once with this error, to
        see that the agent reads the error and answers again (not a strike)."""
        self.probe_wrong_token: str | None = None
        """Set by ``accord agent check``: once joined, send one call with a wrong token and
        record whether the agent refused it, as a ``remote_call`` of this tool name."""

    def describe(self) -> dict[str, Any]:
        return {"agent": self.spec, "model": None, "remote": "a2a"}

    def transcript_json(self) -> dict[str, Any] | None:
        if self._conn is None:
            return None
        return {"messages": self._messages, "calls": self._sends}

    async def start(self, seat: int, record: Recorder = _no_record) -> None:
        """At game start: start the agent process (or note the URL); the no-show clock
        (``join_s``) runs from here."""
        if self._conn is None:
            await self._launch(seat, record)

    async def _launch(self, seat: int, record: Recorder) -> None:
        check_a2a_extra()
        from accord.remote.a2a_client import A2AConnection

        self.seat = seat
        self._join_by = time.monotonic() + self.remote.join_s
        if self.remote.command is not None:
            from accord.remote.process import AgentProcess

            host = self.remote.host
            shown = f"[{host}]" if ":" in host else host
            url = f"http://{shown}:{free_port(host)}"
            self._token = secrets.token_urlsafe(TOKEN_BYTES)
            self._process = await AgentProcess.start(
                self.remote.command,
                env={
                    "ACCORD_A2A_URL": url,
                    "ACCORD_A2A_HOST": host,
                    "ACCORD_A2A_PORT": url.rsplit(":", 1)[1],
                    "ACCORD_A2A_TOKEN": self._token,
                },
                name=f"{self.trace_id}.{seat}",
                redact=[self._token],
            )
        else:
            assert self.remote.a2a is not None
            url = self.remote.a2a
            env = self.remote.token_env
            self._token = os.environ.get(env) if env else None
            if env and not self._token:
                self._failure = (
                    f"token_env names {env}, which is not set: export the token the agent "
                    "expects in it"
                )
        self._conn = A2AConnection(url, self._token)
        record("remote_join", via="a2a", url=url)

    async def act(self, request: Request, record: Recorder = _no_record) -> Action:
        from accord.remote.seat import RemoteSeatError

        if self._replaced is not None:
            return self._fallback(request, record, self._replaced)
        if self._conn is None:  # a play loop that did not call `start`
            await self._launch(request.seat, record)
        self._next_id += 1
        rid = self._next_id
        record(
            "remote_request",
            request_id=rid,
            kind=request.spec.kind,
            deadline_s=self.remote.deadline_s,
            reply_schema=request.spec.schema is not None,
        )
        self._remember_sent(request)
        try:
            await self._join(record)
            asked = time.monotonic()
            action, usage = await self._answer(request, rid, asked, record)
        except RemoteSeatError as exc:
            reason = await self._reason(str(exc))
            self._failure = self._failure or reason
            record("remote_failed", request_id=rid, kind=request.spec.kind, error=reason)
            if self.remote.on_failure == "fallback" and request.spec.fallback is not None:
                self._replaced = reason
                return self._fallback(request, record, reason)
            raise RemoteSeatError(f"remote seat {request.seat} ({self.spec}): {reason}") from None
        response_s = round(time.monotonic() - asked, 3)
        fields: dict[str, Any] = {"request_id": rid, "kind": request.spec.kind}
        fields["response_s"] = response_s
        if usage:
            fields["self_reported_usage"] = usage
        record("remote_action", **fields)
        self.usage.decisions += 1
        self.usage.latency_s += response_s
        return action

    async def _join(self, record: Recorder) -> None:
        """Fetch the agent card once (until ``join_s`` runs out), or `RemoteSeatError`."""
        from accord.remote.a2a_client import A2ANotReady
        from accord.remote.seat import RemoteSeatError

        if self._failure is not None:
            raise RemoteSeatError(self._failure)
        if self._joined:
            return
        assert self._conn is not None
        while True:
            self._check_process()
            left = self._join_by - time.monotonic()
            if left <= 0:
                raise RemoteSeatError(
                    f"no-show: no A2A agent card at {self._conn.url} within "
                    f"{self.remote.join_s:g} s"
                )
            try:
                card = await asyncio.wait_for(self._conn.join(), max(left, 0.05))
            except A2ANotReady:
                await asyncio.sleep(min(POLL_S, max(left, 0.0)))
                continue
            except TimeoutError:
                continue
            except ValueError as exc:
                raise RemoteSeatError(str(exc)) from None
            self._joined = True
            record("remote_call", tool="agent-card", via="a2a", at_s=self._at(), ok=True, card=card)
            if self.probe_wrong_token is not None:
                await self._probe(record, self.probe_wrong_token)
            return

    async def _probe(self, record: Recorder, tool: str) -> None:
        """One decision-shaped call with a wrong token: the agent must refuse it (401/403)."""
        from accord.remote.a2a_client import PROTOCOL, A2AConnection, build_message

        assert self._conn is not None
        at_s = self._at()
        probe = A2AConnection(self._conn.url, f"wrong-{secrets.token_urlsafe(TOKEN_BYTES)}")
        error: str | None = "it accepted a call with a wrong token"
        try:
            await asyncio.wait_for(probe.join(), PROBE_S)
            message = build_message(
                text="A call with a wrong token: refuse it.",
                data={"protocol": PROTOCOL, "probe": True},
                context_id=f"{self.trace_id}.{self.seat}.probe",
                message_id=f"{self.trace_id}.{self.seat}.probe.1",
            )
            exchange = await asyncio.wait_for(probe.send(message, PROBE_S), PROBE_S)
            if exchange.fatal is not None and "refused Accord's token" in exchange.fatal:
                error = None
        except (TimeoutError, ValueError) as exc:
            error = f"the wrong-token call got no answer ({type(exc).__name__})"
        except Exception as exc:  # the probe must never end the game
            error = f"the wrong-token call failed ({type(exc).__name__})"
        finally:
            await probe.close()
        record("remote_call", tool=tool, via="a2a", at_s=at_s, ok=error is None, error=error)

    async def _answer(
        self, request: Request, rid: int, asked: float, record: Recorder
    ) -> tuple[Action, dict[str, float]]:
        """Send the request until a reply is accepted, or `RemoteSeatError` saying why not."""
        from accord.remote.a2a_client import PROTOCOL, Exchange, as_json, build_message
        from accord.remote.seat import RemoteSeatError

        assert self._conn is not None
        deadline_at = asked + self.remote.deadline_s
        if request.reset_context or not self._context_id:
            self._contexts += 1
            self._context_id = f"{self.trace_id}.{self.seat}.{self._contexts}"
            self._shown_system = None
        error: str | None = None
        attempt = 0
        while True:
            attempt += 1
            left = deadline_at - time.monotonic()
            if left <= 0:
                raise RemoteSeatError(self._missed(rid))
            sent = payload(request, rid, left).model_dump(mode="json")
            data = {
                "protocol": PROTOCOL,
                "game_id": self.game_id,
                "trace_id": self.trace_id,
                "seat": self.seat,
                "attempt": attempt,
                "error": error,
                "request": sent,
                "structured": request.info,
            }
            message = build_message(
                text=self._prose(request, error),
                data=data,
                context_id=self._context_id,
                message_id=f"{self._context_id}.{rid}.{attempt}",
            )
            at_s = self._at()
            self._sends += 1
            try:
                exchange = await self._send(message, deadline_at, rid)
            except RemoteSeatError as exc:  # the call was abandoned: what was sent is kept
                self._log(record, Exchange(sent=as_json(message)), rid, at_s, str(exc))
                raise
            verdict = exchange.fatal or exchange.error
            action: Action | None = None
            if verdict is None and exchange.reply is not None:
                try:
                    action = request.spec.parse(exchange.reply)
                except ActionError as exc:
                    verdict = str(exc)
            refused = action is not None and self.refuse_first_reply is not None
            if refused:
                verdict, self.refuse_first_reply = self.refuse_first_reply, None
            self._log(record, exchange, rid, at_s, verdict)
            if exchange.fatal is not None:
                raise RemoteSeatError(exchange.fatal)
            if action is not None and not refused:
                self._errors_in_row = 0
                return action, self._usage(exchange.usage)
            assert verdict is not None
            if not refused:
                self._errors_in_row += 1
                if self._errors_in_row > self.remote.max_errors:
                    raise RemoteSeatError(
                        f"protocol violation: {self._errors_in_row} bad replies in a row "
                        f"(the last: {verdict})"
                    )
            error = verdict

    async def _send(self, message: Any, deadline_at: float, rid: int) -> Exchange:
        """One call, given up at the deadline or when the agent process exits."""
        from accord.remote.seat import RemoteSeatError

        assert self._conn is not None
        left = max(deadline_at - time.monotonic(), 0.01)
        call = asyncio.ensure_future(self._conn.send(message, left))
        try:
            while not call.done():
                left = deadline_at - time.monotonic()
                if left <= 0:
                    raise RemoteSeatError(self._missed(rid))
                await asyncio.wait({call}, timeout=min(left, POLL_S))
                if not call.done():
                    self._check_process()
            return call.result()
        finally:
            if not call.done():
                call.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await call

    def _missed(self, rid: int) -> str:
        return (
            f"missed deadline: request {rid} was not answered within {self.remote.deadline_s:g} s"
        )

    def _prose(self, request: Request, error: str | None) -> str:
        """What a model seat would read: the briefing when new, the observation, the format."""
        parts: list[str] = []
        if request.system and request.system != self._shown_system:
            parts.append(request.system)
            self._shown_system = request.system
        parts.append(request.observation)
        if request.spec.format_hint:
            parts.append(request.spec.format_hint)
        if error is not None:
            parts.append(f"Your last reply was refused: {error}\nAnswer the same request again.")
        return "\n\n".join(parts)

    def _log(
        self, record: Recorder, exchange: Exchange, rid: int, at_s: float, verdict: str | None
    ) -> None:
        from accord.remote.process import redact

        tokens = [self._token] if self._token else []
        returned = exchange.returned
        if returned is not None and tokens:
            import json

            returned = json.loads(redact(json.dumps(returned), tokens))
        fields: dict[str, Any] = {"tool": "message/send", "via": "a2a", "at_s": at_s}
        fields.update(ok=verdict is None, request_id=rid)
        if verdict is not None:
            fields["error"] = redact(verdict, tokens)
        fields.update(sent=exchange.sent, returned=returned)
        record("remote_call", **fields)
        if exchange.reply is not None:
            entry = {"role": "assistant", "content": redact(exchange.reply, tokens)}
            if verdict is not None:
                entry["note"] = f"rejected: {redact(verdict, tokens)}"
            self._messages.append(entry)

    def _usage(self, raw: dict[str, Any]) -> dict[str, float]:
        """The agent's self-reported usage, known keys only, each a bounded finite number."""
        out: dict[str, float] = {}
        for key in USAGE_KEYS:
            if key in raw and raw[key] is not None:
                with contextlib.suppress(InputLimitError):
                    out[key] = usage_number(raw[key], what=f"usage.{key}")
        return out

    def _at(self) -> float:
        return round(time.monotonic() - self._opened, 3)

    def _check_process(self) -> None:
        from accord.remote.seat import RemoteSeatError

        if self._process is not None and self._process.exited is not None:
            raise RemoteSeatError(
                f"the agent process exited with code {self._process.exited} before the game ended"
            )

    async def _reason(self, reason: str) -> str:
        """`reason`, with the tail of the agent process's stderr when it has exited."""
        if self._process is not None and self._process.exited is None:
            # A dropped connection is often the process exiting: a moment to see its code.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._process.proc.wait()), EXIT_SEEN_S)
        if self._process is not None and self._process.exited is not None:
            tail = (await self._process.stop([self._token or ""])).strip()
            if tail:
                return f"{reason}; its stderr ends: {tail[-300:]}"
        return reason

    def _remember_sent(self, request: Request) -> None:
        if request.system and (request.reset_context or request.system != self._shown_system):
            self._messages.append({"role": "system", "content": request.system})
        self._messages.append({"role": "user", "content": request.observation})

    def _fallback(self, request: Request, record: Recorder, reason: str) -> Action:
        return seat_fallback(self, request, record, reason)

    async def close(self) -> None:
        if self._process is not None:
            await self._process.stop([self._token or ""])
        if self._conn is not None:
            await self._conn.close()
