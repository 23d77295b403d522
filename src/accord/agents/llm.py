"""`LLMAgent`: one conversation per seat per game, parsing, retries and fallback.

Seed 004 App. B: a malformed reply is answered with the exact error and the model tries again,
up to 3 retries per decision; after that a documented heuristic action is used. Each step is
a trace event (DESIGN principle 8):

- ``output_format_warning``: the reply was usable but not in the exact format (e.g. prose
  around the JSON); the action was taken as parsed.
- ``validation_error``: the reply did not parse or broke a rule; the model is re-prompted with
  the error text.
- ``model_error``: the model could not be reached for good (the client's retries exhausted, a
  bad key, a missing model). This is not bad output: the game ends ``failed`` with the
  provider's message (`ModelUnavailableError`) and stays out of every mean.
- ``heuristic_fallback``: every attempt failed; the request's fallback action is used
  (`accord.core.provenance.use_fallback`: the runner tells the game it is a fallback).
- ``model_call``: one per successful call, with its tokens, latency, cost, attempts, the client's
  retries and their errors, and which transcript messages it was sent (``sent``) and got
  (``reply``): see `accord.agents.transcript`.
- ``response_format_fallback``: the server refused a structured-output form and the client
  stepped down to a looser one (`accord.models.openai_compatible`).

A reply over a bound of `accord.core.inputs` (more than ``MAX_TOOL_CALLS`` tool calls, arguments
over ``MAX_TOOL_ARGUMENT_CHARS``, JSON nested deeper than ``MAX_DEPTH``) is kept cut to the
bound and refused like any unusable reply: a ``validation_error`` with ``error_kind``
``input_limit`` naming the limit, the same retries, then the fallback.

In tools mode (``action_mode``, `accord.agents.tools`) each request's actions are offered as
the provider's tools; the reply's tool calls are turned into the reply text the request's parser
reads, so validation, error texts, retries, fallback and events are those of json mode. The
``model_call`` event then also lists the ``tools`` offered and the ``tool_calls`` returned; an
assistant message keeps its tool calls and each call is answered by a ``tool`` message (``done``,
or the error text on a rejected turn).

Only valid replies stay in the conversation: a failed attempt and its correction are removed
once the model answers correctly, so one bad reply does not poison later turns (the events keep
the full record).
"""

from __future__ import annotations

from typing import Any

from accord.agents import tools as tooling
from accord.agents.base import Agent, Recorder, _no_record
from accord.agents.transcript import Transcript
from accord.core.errors import ActionError, ModelError, ModelUnavailableError
from accord.core.provenance import parse_reply, use_fallback
from accord.core.rng import derive_seed
from accord.core.spec import Action, Request
from accord.core.tools import ToolSet
from accord.models.base import ChatModel, Completion, Message

MAX_RETRIES = 3
"""Re-prompts after the first attempt (seed 004 App. B)."""

_RAW_KEEP = 2000
"""Characters of a bad reply kept in the trace event."""

_SERVED_KEEP = 200
"""Characters kept of a served model id or fingerprint (the provider's text: untrusted)."""


class LLMAgent(Agent):
    """A seat played by a language model.

    Args:
        client: the model client (shared between seats and games of a run).
        temperature / max_tokens: per-call parameters (``None`` = provider default).
        seed: base seed for providers that honour one; each call derives its own.
        session: prefix for the provider's cache key (the local model caches per session).
        max_retries: re-prompts per decision after a bad reply.
        action_mode: ``json`` or ``tools`` (resolved already, `accord.agents.tools`).
        explicit_tools: the seat asked for ``tools`` itself (not ``auto``): a game's tools
            offered only on explicit request (`accord.core.tools.ToolSet.explicit`) are used.
    """

    def __init__(
        self,
        client: ChatModel,
        *,
        spec: str | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int = 0,
        session: str = "",
        max_retries: int = MAX_RETRIES,
        action_mode: str = "json",
        explicit_tools: bool = False,
    ) -> None:
        super().__init__()
        self.client = client
        self.model = client.spec
        self.spec = spec or client.spec
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.seed = seed
        self.session = session
        self.max_retries = max_retries
        self.action_mode = action_mode
        self.explicit_tools = explicit_tools
        self.history: list[Message] = []
        self.transcript = Transcript()
        self._tools_used = False
        self._calls = 0

    def take_over(self, previous: LLMAgent) -> None:
        """Continue `previous`'s conversation in this seat (a fork switching models mid-game).

        The call counter carries over too, so the seeds of later calls follow on from it.
        """
        self.history = list(previous.history)
        self._calls = previous._calls
        self.transcript = previous.transcript

    def transcript_json(self) -> dict[str, Any] | None:
        return self.transcript.to_json()

    def played_mode(self) -> str | None:
        """``tools`` once a request was answered through tools; a tools seat whose game
        offered it no tools (a game whose tools need an explicit ``tools``, under ``auto``)
        played in json mode, and is named so."""
        if self.action_mode != "tools":
            return "json"
        return "tools" if self._tools_used or self.explicit_tools else "json"

    def describe(self) -> dict[str, Any]:
        return {
            "agent": self.spec,
            "model": self.model,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            **({"action_mode": self.action_mode} if self.action_mode != "json" else {}),
        }

    async def act(self, request: Request, record: Recorder = _no_record) -> Action:
        spec = request.spec
        toolset = (
            tooling.tool_set(spec, explicit=self.explicit_tools)
            if self.action_mode == "tools"
            else None
        )
        # A seat answering through tools reads the game's tools wording (no JSON envelope).
        system = request.system
        observation = request.observation
        if toolset is not None:
            system = request.tools_system or system
            observation = request.tools_observation or observation
        if request.reset_context or not self.history:
            self.history = [{"role": "system", "content": system or ""}]
        elif system is not None and self.history[0]["content"] != system:
            self.history[0] = {"role": "system", "content": system}
        self._tools_used = self._tools_used or toolset is not None
        if toolset is not None and toolset.instruction:
            observation = f"{observation}\n\n{toolset.instruction}"
        asked: Message = {"role": "user", "content": observation}
        convo: list[Message] = [*self.history, asked]
        hint = toolset.instruction if toolset is not None else spec.format_hint
        self.usage.decisions += 1
        last_error = ""
        for attempt in range(self.max_retries + 1):
            completion, reply = await self._call(convo, request, record, toolset)
            try:
                limit = tooling.input_limit(completion)
                if limit is not None:
                    raise ActionError(f"{limit}; answer again within the limit", kind="input_limit")
                text = completion.text
                if toolset is not None:
                    text = toolset.to_reply(text, tooling.calls_of(completion))
                action, warnings = parse_reply(spec, text)
            except ActionError as exc:
                last_error = str(exc)
                raw = tooling.raw_reply(completion) if toolset is not None else completion.text
                record(
                    "validation_error",
                    attempt=attempt + 1,
                    kind=spec.kind,
                    error_kind=exc.kind,
                    error=last_error,
                    raw=raw[:_RAW_KEEP],
                )
                retry = self._retry_message(last_error, hint)
                answers = tooling.tool_results(completion, retry, tooling.NOT_RUN)
                correction: list[Message] = answers or [{"role": "user", "content": retry}]
                convo = [*convo, reply, *correction]
                continue
            for warning in warnings:
                record("output_format_warning", kind=spec.kind, warning=warning)
            if not request.ephemeral:
                done = tooling.tool_results(completion, tooling.DONE, tooling.DONE)
                self.history = [*self.history, asked, reply, *done]
            return action
        if spec.fallback is None:
            raise ModelError(
                f"{self.spec} gave no valid {spec.kind} reply after {self.max_retries + 1} "
                f"attempts and the request has no fallback. Last error: {last_error}"
            )
        action = use_fallback(spec, last_error, record)
        self.usage.fallbacks += 1
        if not request.ephemeral:
            # Keep the turn in the conversation so the model knows what was done for it.
            stand_in: Message = {
                "role": "assistant",
                "content": f"(no valid reply; the engine used {_as_shown(action)})",
            }
            self.transcript.add(stand_in, note="written by the harness after the fallback")
            self.history = [*self.history, asked, stand_in]
        return action

    @staticmethod
    def _retry_message(error: str, hint: str) -> str:
        msg = f"Your last reply could not be used: {error}"
        if hint:
            msg += f"\n{hint}"
        return msg + "\nPlease answer again."

    async def _call(
        self,
        messages: list[Message],
        request: Request,
        record: Recorder = _no_record,
        toolset: ToolSet | None = None,
    ) -> tuple[Completion, Message]:
        """One model call; an unreachable model ends the game (`ModelUnavailableError`)."""
        self._calls += 1
        seed = derive_seed(self.seed, request.seat, self._calls)
        number = self.transcript.next_call()
        sent = self.transcript.sent(messages)
        try:
            session = f"{self.session}/seat{request.seat}"
            if toolset is None:
                completion = await self.client.complete(
                    messages,
                    response_schema=request.spec.schema,
                    temperature=self.temperature,
                    max_tokens=self.max_tokens,
                    seed=seed,
                    session=session,
                )
            else:  # tools mode: the actions go as tools, no response format
                completion = await self.client.complete(
                    messages,
                    temperature=self.temperature,
                    max_tokens=self.max_tokens,
                    seed=seed,
                    session=session,
                    tools=list(toolset.tools),
                )
        except ModelError as exc:
            retries = getattr(exc, "retries", None)
            record(
                "model_error",
                kind=request.spec.kind,
                call=number,
                sent=sent,
                error=str(exc),
                status=exc.status,
                attempts=getattr(exc, "attempts", 1),
                **({"retries": retries} if retries else {}),
            )
            raise ModelUnavailableError(
                str(exc), seat=request.seat, model=self.model, status=exc.status
            ) from exc
        completion = tooling.bounded(completion)
        reply = tooling.reply_message(completion)
        index = self.transcript.add(reply)
        self.transcript.annotate(index, reasoning=completion.reasoning)
        for switch in completion.raw.get("response_format_fallback", []):
            record("response_format_fallback", call=number, **switch)
        extra: dict[str, Any] = {}
        if completion.raw.get("retries"):
            extra["retries"] = completion.raw["retries"]
        if completion.raw.get("batch"):  # answered through a provider batch
            extra["batch"] = completion.raw["batch"]
        for key in ("served_model", "fingerprint"):  # what the provider says it served
            value = completion.raw.get(key)
            if isinstance(value, str) and value:
                extra[key] = value[:_SERVED_KEEP]
        versions = completion.raw.get("versions")
        if isinstance(versions, dict) and versions:  # the provider's version headers
            extra["versions"] = {str(k): str(v) for k, v in list(versions.items())[:8]}
        if toolset is not None:
            extra["tools"] = toolset.names
            extra["tool_calls"] = [
                {"id": c.id, "name": c.name, "arguments": c.arguments}
                for c in completion.tool_calls
            ]
        record(
            "model_call",
            kind=request.spec.kind,
            call=number,
            sent=sent,
            reply=index,
            input_tokens=completion.usage.input_tokens,
            output_tokens=completion.usage.output_tokens,
            reasoning_tokens=completion.usage.reasoning_tokens,
            cached_input_tokens=completion.usage.cached_input_tokens,
            **(
                {"cache_write_tokens": completion.usage.cache_write_tokens}
                if completion.usage.cache_write_tokens
                else {}
            ),
            latency_s=round(completion.latency_s, 4),
            cost_usd=completion.cost_usd,
            attempts=completion.attempts,
            **extra,
        )
        u = self.usage
        u.calls += 1
        u.attempts += completion.attempts
        completion.usage.add_to(u)
        u.latency_s += completion.latency_s
        if completion.cost_usd is None:
            u.cost_known = False
        else:
            u.cost_usd += completion.cost_usd
        return completion, reply


def _as_shown(action: Action) -> str:
    """The fallback action as the stand-in message has always shown it to the model.

    Before provenance was explicit (trace schema 3) the action carried a ``_fallback`` flag
    and the message printed it; the wording is kept so a model sees the same conversation
    as before, and model caches of earlier runs still answer the calls that follow.
    """
    return repr({**action, "_fallback": True})
