"""OpenTelemetry spans for a run: the run, each game, each step and each model call.

``accord run --otel`` (or the standard ``OTEL_*`` environment: ``OTEL_TRACES_EXPORTER``,
``OTEL_EXPORTER_OTLP_ENDPOINT``, ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``) sends a span tree
per game to the tracing backend operators already watch::

    accord.run                 accord.run.id, accord.run.games
      accord.game              accord.run.id, accord.game.id, game name, seed, status
        accord.step            one per set of pending requests: seats asked, round
          chat MODEL           OpenTelemetry's GenAI conventions: gen_ai.system,
                               gen_ai.request.model, gen_ai.response.model, token usage,
                               latency, attempts, error.type

Message content goes out only when asked (``--otel-content``: ``gen_ai.input.messages`` and
``gen_ai.output.messages``), scrubbed of every secret like a trace; model options (where API
keys could be named) never do. The OpenTelemetry SDK is an optional extra
(``pip install 'accord[otel]'``) imported only when tracing is on: with it off the runner
holds ``None`` and each hook costs one context-variable lookup.
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib
import json
import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from accord.core.errors import ConfigError
from accord.core.secrets import scrub_secrets
from accord.models.telemetry import CallSpan

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.trace import Span, Tracer

    from accord.core.spec import Request
    from accord.models.base import Completion, Message
    from accord.runner.specs import GameSpec
    from accord.traces.schema import Trace

MAX_CONTENT_CHARS = 64_000
"""The longest message-content attribute sent with ``--otel-content`` (backends cap
attributes, and a 50 MB reply must not travel twice)."""

_CURRENT: contextvars.ContextVar[Tracing | None] = contextvars.ContextVar(
    "accord_otel", default=None
)
_GAME: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar(
    "accord_otel_game", default=None
)


def env_enabled(environ: dict[str, str] | None = None) -> bool:
    """Whether the standard OpenTelemetry environment asks for traces (and the SDK is not
    switched off with ``OTEL_SDK_DISABLED``)."""
    env = os.environ if environ is None else environ
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporter = env.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    if exporter:
        return exporter != "none"
    return bool(
        env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_ENDPOINT")
    )


def current() -> Tracing | None:
    """The tracing of the running run, if it is on."""
    return _CURRENT.get()


def start(
    run_id: str,
    otel: bool | TracerProvider | None = None,
    *,
    content: bool = False,
) -> Tracing | None:
    """The tracing of a run, or ``None`` when it is off.

    Args:
        run_id: the run's name, an attribute of every span.
        otel: ``True`` on, ``False`` off, ``None`` as the ``OTEL_*`` environment says; or a
            ready `TracerProvider` to send spans to (tests, an application's own setup).
        content: put message content on model-call spans.

    Raises:
        ConfigError: tracing is asked for but the SDK is not installed, or the environment
            names an exporter Accord cannot build.
    """
    if otel is False or (otel is None and not env_enabled()):
        return None
    if otel is True and os.environ.get("OTEL_TRACES_EXPORTER", "").strip().lower() == "none":
        return None  # the operator's environment says no exporter, whatever the command
    if otel is None or otel is True:
        provider, owned = _provider_from_env(), True
    else:
        provider, owned = otel, False
    from importlib.metadata import PackageNotFoundError, version

    try:
        release = version("accord")
    except PackageNotFoundError:
        release = "dev"
    tracer = provider.get_tracer("accord", release)
    return Tracing(tracer, provider if owned else None, run_id, content)


def _provider_from_env() -> TracerProvider:
    """A tracer provider exporting as ``OTEL_TRACES_EXPORTER`` says (``otlp``, the default,
    over HTTP/protobuf unless ``OTEL_EXPORTER_OTLP_PROTOCOL`` says grpc; or ``console``)."""
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
    except ImportError as exc:
        raise ConfigError(
            "OpenTelemetry tracing needs its SDK: pip install 'accord[otel]' (or drop --otel "
            "and unset OTEL_TRACES_EXPORTER / OTEL_EXPORTER_OTLP_ENDPOINT)."
        ) from exc
    kind = os.environ.get("OTEL_TRACES_EXPORTER", "otlp").split(",")[0].strip().lower() or "otlp"
    exporter: SpanExporter
    if kind == "console":
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        exporter = ConsoleSpanExporter()
    elif kind == "otlp":
        exporter = _otlp_exporter()
    else:
        raise ConfigError(
            f"OTEL_TRACES_EXPORTER={kind!r} is not one Accord builds: use otlp, console or none."
        )
    # Resource.create reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, but attributes
    # given to it win: the default name is given only when the environment names none.
    named = os.environ.get("OTEL_SERVICE_NAME") or "service.name=" in os.environ.get(
        "OTEL_RESOURCE_ATTRIBUTES", ""
    )
    provider = TracerProvider(resource=Resource.create({} if named else {"service.name": "accord"}))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    return provider


def _otlp_exporter() -> Any:
    env = os.environ
    protocol = (
        env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
        or env.get("OTEL_EXPORTER_OTLP_PROTOCOL")
        or "http/protobuf"
    ).strip()
    if protocol not in ("grpc", "http/protobuf"):
        raise ConfigError(
            f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol!r}: Accord sends http/protobuf (or grpc "
            "with opentelemetry-exporter-otlp-proto-grpc installed)."
        )
    kind = "grpc" if protocol == "grpc" else "http"
    try:
        module = importlib.import_module(f"opentelemetry.exporter.otlp.proto.{kind}.trace_exporter")
    except ImportError as exc:
        package = f"opentelemetry-exporter-otlp-proto-{kind}"
        raise ConfigError(f"OTLP over {protocol} needs {package}: pip install {package}.") from exc
    # The endpoint, headers and timeout come from the OTEL_* environment.
    return module.OTLPSpanExporter()


class Tracing:
    """The spans of one run. Implements `accord.models.telemetry.CallTracer`."""

    def __init__(
        self, tracer: Tracer, owned: TracerProvider | None, run_id: str, content: bool
    ) -> None:
        self.tracer = tracer
        self.run_id = run_id
        self.content = content
        self._owned = owned

    @contextlib.contextmanager
    def run(self, games: int) -> Iterator[None]:
        """The run's span, current inside the block (every game's span is its child)."""
        from accord.models.telemetry import trace_calls

        token = _CURRENT.set(self)
        try:
            attributes = {"accord.run.id": self.run_id, "accord.run.games": games}
            with trace_calls(self), self._span("accord.run", attributes):
                yield
        finally:
            _CURRENT.reset(token)

    @contextlib.contextmanager
    def game(self, spec: GameSpec) -> Iterator[GameSpan]:
        """One game's span, current inside the block; `GameSpan.result` adds its outcome."""
        attributes: dict[str, Any] = {
            "accord.run.id": self.run_id,
            "accord.game.id": spec.trace_id,
            "accord.game.name": spec.game,
            "accord.game.seed": _int(spec.seed),
            "accord.game.seats": [a.display for a in spec.agents],
        }
        token = _GAME.set((self.run_id, spec.trace_id))
        try:
            with self._span("accord.game", attributes) as span:
                yield GameSpan(span)
        finally:
            _GAME.reset(token)

    @contextlib.contextmanager
    def step(self, number: int, requests: Sequence[Request]) -> Iterator[None]:
        """One step of a game: the requests pending at once, answered concurrently."""
        attributes: dict[str, Any] = {
            "accord.step": number,
            "accord.step.seats": [r.seat for r in requests],
            "accord.step.round": requests[0].round if requests else 0,
        }
        game = _GAME.get()
        if game is not None:
            attributes["accord.run.id"], attributes["accord.game.id"] = game
        with self._span("accord.step", attributes):
            yield

    @contextlib.contextmanager
    def _span(self, name: str, attributes: dict[str, Any]) -> Iterator[Span]:
        """A span current inside the block. An exception leaving it sets ``error.type`` and
        a scrubbed status: the SDK's own exception event would carry the message (and a
        provider's message can quote a key) and the traceback, so it is not recorded."""
        with self.tracer.start_as_current_span(
            name, attributes=attributes, record_exception=False, set_status_on_exception=False
        ) as span:
            try:
                yield span
            except BaseException as exc:
                _set_error(span, exc)
                raise

    def model_call(
        self,
        spec: str,
        messages: Sequence[Message],
        *,
        temperature: float | None,
        max_tokens: int | None,
        seed: int | None,
    ) -> CallSpan:
        """A model call's span (OpenTelemetry GenAI conventions, operation ``chat``)."""
        from opentelemetry.trace import SpanKind

        provider, _, model = spec.partition("/")
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.system": provider,
            "gen_ai.provider.name": provider,
            "gen_ai.request.model": model or spec,
        }
        for key, value in (
            ("gen_ai.request.temperature", temperature),
            ("gen_ai.request.max_tokens", max_tokens),
            ("gen_ai.request.seed", seed),
        ):
            if value is not None:
                attributes[key] = _int(value) if isinstance(value, int) else value
        game = _GAME.get()
        if game is not None:
            attributes["accord.run.id"], attributes["accord.game.id"] = game
        if self.content:
            attributes["gen_ai.input.messages"] = _content(list(messages))
        span = self.tracer.start_span(
            f"chat {model or spec}", kind=SpanKind.CLIENT, attributes=attributes
        )
        return _ModelSpan(span, self.content, model or spec)

    def shutdown(self) -> None:
        """Send what is buffered and stop the exporter this run built (never one given)."""
        if self._owned is not None:
            self._owned.force_flush(timeout_millis=10_000)
            self._owned.shutdown()


class GameSpan:
    """The open span of one game."""

    def __init__(self, span: Span) -> None:
        self.span = span

    def result(self, trace: Trace) -> None:
        """Record how the game ended (status, token totals; an error's first line)."""
        span = self.span
        span.set_attribute("accord.game.status", trace.status)
        total = trace.usage.get("total")
        if total is not None:
            span.set_attribute("gen_ai.usage.input_tokens", total.input_tokens)
            span.set_attribute("gen_ai.usage.output_tokens", total.output_tokens)
            span.set_attribute("accord.game.calls", total.calls)
            span.set_attribute("accord.game.cost_usd", total.cost_usd)
        if trace.status != "complete":
            from opentelemetry.trace import Status, StatusCode

            span.set_attribute("error.type", "game_failed")
            why = scrub_secrets((trace.error or "failed").splitlines()[0])[:300]
            span.set_status(Status(StatusCode.ERROR, why))


class _ModelSpan:
    """A model call's span, ended by its outcome."""

    def __init__(self, span: Span, content: bool, model: str) -> None:
        self.span = span
        self.content = content
        self.model = model

    def finished(self, completion: Completion) -> None:
        span = self.span
        served = completion.raw.get("served_model")
        span.set_attribute(
            "gen_ai.response.model", served if isinstance(served, str) and served else self.model
        )
        span.set_attribute("gen_ai.usage.input_tokens", completion.usage.input_tokens)
        span.set_attribute("gen_ai.usage.output_tokens", completion.usage.output_tokens)
        if completion.usage.reasoning_tokens:
            span.set_attribute("gen_ai.usage.reasoning_tokens", completion.usage.reasoning_tokens)
        span.set_attribute("accord.latency_s", completion.latency_s)
        span.set_attribute("accord.attempts", completion.attempts)
        if completion.cost_usd is not None:
            span.set_attribute("accord.cost_usd", completion.cost_usd)
        if self.content:
            reply: dict[str, Any] = {"role": "assistant", "content": completion.text}
            if completion.tool_calls:
                reply["tool_calls"] = [str(c) for c in completion.tool_calls]
            span.set_attribute("gen_ai.output.messages", _content([reply]))
        span.end()

    def failed(self, error: BaseException) -> None:
        _set_error(self.span, error)
        self.span.end()


def _set_error(span: Span, error: BaseException) -> None:
    """``error.type`` (the exception's class, or ``cancelled``) and an error status whose
    description is the message's first line, scrubbed of secrets."""
    from opentelemetry.trace import Status, StatusCode

    kind = "cancelled" if type(error).__name__ == "CancelledError" else type(error).__name__
    span.set_attribute("error.type", kind)
    text = str(error)
    why = scrub_secrets(text.splitlines()[0] if text else kind)[:300]
    span.set_status(Status(StatusCode.ERROR, why))


def _int(value: int) -> int | str:
    """`value` as an attribute: OTLP carries 64-bit integers, so a larger one (a seed given by
    hand can be any size) is sent as its decimal text rather than break the export."""
    return value if -(2**63) <= value < 2**63 else str(value)


def _content(messages: list[Any]) -> str:
    """Messages as one JSON attribute, secrets scrubbed, bounded in length."""
    text = scrub_secrets(json.dumps(messages, ensure_ascii=False, default=str))
    if len(text) > MAX_CONTENT_CHARS:
        text = text[:MAX_CONTENT_CHARS] + "...[truncated]"
    return text


class _Untraced:
    """What the runner holds when tracing is off: a reusable context manager that does nothing."""

    def __enter__(self) -> _Untraced:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def result(self, trace: Trace) -> None:
        """Nothing to record."""


UNTRACED = _Untraced()
"""The no-op game span (one object, no allocation per game or step)."""
