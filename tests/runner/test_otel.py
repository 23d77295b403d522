"""OpenTelemetry spans of a run: the span tree of a game, GenAI attributes, no content by
default, no secret ever, and OTLP over HTTP to a collector stand-in on the loopback."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)

from accord.agents.llm import LLMAgent
from accord.cli.main import app
from accord.core.errors import ConfigError, ModelError
from accord.models.mock import MockModel
from accord.runner import otel
from accord.runner.play import play_game
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec

SECRET = "sk-test-otel-7d2e9b4c1a5f"
SPEC = GameSpec(
    trace_id="g1",
    game="negotiation",
    options={"rounds": 2, "talk_turns": 1},
    seed=3,
    agents=[AgentSpec(model="mock/schema"), AgentSpec(model="mock/schema")],
)


@pytest.fixture
def exported() -> Iterator[tuple[TracerProvider, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider, exporter
    provider.shutdown()


def _children(spans: list[ReadableSpan], parent: ReadableSpan) -> list[ReadableSpan]:
    assert parent.context is not None
    return [s for s in spans if s.parent is not None and s.parent.span_id == parent.context.span_id]


def _every_value(spans: list[ReadableSpan]) -> str:
    parts = []
    for s in spans:
        parts += [s.name, json.dumps(dict(s.attributes or {}), default=str)]
        parts.append(str(s.status.description))
        parts += [json.dumps(dict(e.attributes or {}), default=str) for e in s.events]
    return "\n".join(parts)


def test_span_tree_of_one_game(
    tmp_path: Path, exported: tuple[TracerProvider, InMemorySpanExporter], monkeypatch: Any
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    provider, exporter = exported
    report = run_sync([SPEC], tmp_path / "demo", otel=provider, live=False)
    assert report.played == 1 and not report.failed
    spans = list(exporter.get_finished_spans())
    (run,) = [s for s in spans if s.name == "accord.run"]
    assert run.parent is None
    assert run.attributes == {"accord.run.id": "demo", "accord.run.games": 1}
    (game,) = _children(spans, run)
    attrs = dict(game.attributes or {})
    assert game.name == "accord.game"
    assert attrs["accord.run.id"] == "demo" and attrs["accord.game.id"] == "g1"
    assert attrs["accord.game.status"] == "complete" and attrs["accord.game.seed"] == 3
    steps = _children(spans, game)
    assert steps and all(s.name == "accord.step" for s in steps)
    assert [s.attributes["accord.step"] for s in steps if s.attributes] == list(
        range(1, len(steps) + 1)
    )
    calls = [c for s in steps for c in _children(spans, s)]
    # Every model call is a child of the step that asked it, and every span is accounted for.
    assert len(spans) == 2 + len(steps) + len(calls)
    trace = json.loads((tmp_path / "demo" / "traces" / "g1.json").read_text())
    assert len(calls) == trace["usage"]["total"]["calls"] > 0
    assert attrs["gen_ai.usage.input_tokens"] == trace["usage"]["total"]["input_tokens"]
    for call in calls:
        a = dict(call.attributes or {})
        assert call.name == "chat schema"
        assert a["gen_ai.operation.name"] == "chat" and a["gen_ai.system"] == "mock"
        assert a["gen_ai.request.model"] == a["gen_ai.response.model"] == "schema"
        assert a["gen_ai.usage.input_tokens"] > 0 and a["gen_ai.usage.output_tokens"] > 0
        assert a["accord.latency_s"] >= 0 and a["accord.attempts"] == 1
        assert a["accord.game.id"] == "g1" and a["accord.run.id"] == "demo"
        assert "gen_ai.input.messages" not in a and "gen_ai.output.messages" not in a
    assert SECRET not in _every_value(spans)


async def test_content_only_when_asked_and_scrubbed(
    exported: tuple[TracerProvider, InMemorySpanExporter], monkeypatch: Any
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    provider, exporter = exported
    reply = json.dumps({"thinking": f"my key is {SECRET}", "speech": "hi", "action": None})

    def seat(*script: Any) -> LLMAgent:
        return LLMAgent(MockModel(replies=list(script)))

    for content in (False, True):
        exporter.clear()
        tracing = otel.start("r", provider, content=content)
        assert tracing is not None
        with tracing.run(1), tracing.game(SPEC) as span:
            trace = await play_game(
                SPEC,
                # Seat 1 fails for good with an error quoting the key, as a server might.
                [seat(*[reply] * 50), seat(ModelError(f"401: bad key {SECRET}"))],
            )
            span.result(trace)
        assert trace.status == "failed"
        spans = list(exporter.get_finished_spans())
        calls = [s for s in spans if s.name.startswith("chat ")]
        assert calls
        failed = [s for s in calls if (s.attributes or {}).get("error.type") == "ModelError"]
        assert len(failed) == 1 and not failed[0].status.is_ok
        assert "[redacted:OPENAI_API_KEY]" in str(failed[0].status.description)
        (game,) = [s for s in spans if s.name == "accord.game"]
        assert game.attributes is not None and game.attributes["accord.game.status"] == "failed"
        carrying = [s for s in calls if "gen_ai.input.messages" in (s.attributes or {})]
        assert len(carrying) == (len(calls) if content else 0)
        if content:
            sent = json.loads(str(carrying[0].attributes["gen_ai.input.messages"]))  # type: ignore[index]
            assert sent[0]["role"] == "system"
            answered = [
                str(s.attributes["gen_ai.output.messages"])  # type: ignore[index]
                for s in calls
                if "gen_ai.output.messages" in (s.attributes or {})
            ]
            assert any("[redacted:OPENAI_API_KEY]" in a for a in answered)
        assert SECRET not in _every_value(spans)


def test_off_by_default_and_by_environment(monkeypatch: Any) -> None:
    for name in (
        "OTEL_TRACES_EXPORTER",
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_SDK_DISABLED",
    ):
        monkeypatch.delenv(name, raising=False)
    assert otel.start("r") is None and otel.current() is None
    assert otel.env_enabled({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"})
    assert otel.env_enabled({"OTEL_TRACES_EXPORTER": "console"})
    assert not otel.env_enabled(
        {"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "x"}
    )
    assert not otel.env_enabled({"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"})
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "otlp")
    assert otel.start("r", False) is None
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "zipkin")
    with pytest.raises(ConfigError, match="otlp, console or none"):
        otel.start("r")


class _Collector(http.server.BaseHTTPRequestHandler):
    """A collector stand-in: accepts OTLP/HTTP protobuf on /v1/traces and keeps the spans."""

    spans: list[tuple[str, dict[str, Any]]]
    services: set[str]

    def do_POST(self) -> None:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )

        body = self.rfile.read(int(self.headers["Content-Length"]))
        ok = self.path == "/v1/traces" and self.headers["Content-Type"] == "application/x-protobuf"
        if ok:
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            for resource in request.resource_spans:
                for attr in resource.resource.attributes:
                    if attr.key == "service.name":
                        self.services.add(attr.value.string_value)
                for scope in resource.scope_spans:
                    for span in scope.spans:
                        attrs = {a.key: a.value for a in span.attributes}
                        self.spans.append((span.name, attrs))
        self.send_response(200 if ok else 404)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[tuple[str, type[_Collector]]]:
    handler = type("Handler", (_Collector,), {"spans": [], "services": set()})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_otlp_http_to_a_collector(
    tmp_path: Path, collector: tuple[str, type[_Collector]], monkeypatch: Any
) -> None:
    url, handler = collector
    monkeypatch.delenv("OTEL_TRACES_EXPORTER", raising=False)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url)
    monkeypatch.setenv("OTEL_SERVICE_NAME", "accord-test")
    out = tmp_path / "run"
    cli = CliRunner(env={"COLUMNS": "200"})
    args = ["run", "negotiation", "--model", "mock/schema", "--games", "2", "-o", "rounds=2"]
    ran = cli.invoke(app, [*args, "-o", "talk_turns=1", "--out", str(out), "--otel"])
    assert ran.exit_code == 0, ran.output
    names = [name for name, _ in handler.spans]
    traces = [json.loads(p.read_text()) for p in (out / "traces").glob("*.json")]
    calls = sum(t["usage"]["total"]["calls"] for t in traces)
    assert names.count("accord.run") == 1 and names.count("accord.game") == 2
    assert names.count("chat schema") == calls > 0
    assert names.count("accord.step") > 0
    assert handler.services == {"accord-test"}
    games = {a["accord.game.id"].string_value for n, a in handler.spans if n == "accord.game"}
    assert games == {t["trace_id"] for t in traces}


def test_missing_sdk_is_one_line(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "otlp")
    with pytest.raises(ConfigError, match=r"pip install 'accord\[otel\]'"):
        otel.start("r")
    out = tmp_path / "run"
    cli = CliRunner(env={"COLUMNS": "200"})
    ran = cli.invoke(
        app, ["run", "negotiation", "--agents", "cooperative,greedy", "--out", str(out)]
    )
    assert ran.exit_code == 2, ran.output
    assert "accord[otel]" in ran.output
    assert not (out / "traces").exists() or not list((out / "traces").glob("*.json"))


def test_off_imports_no_sdk(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    code = (
        "import sys, accord\n"
        f"accord.run('negotiation', agents='cooperative,greedy', out={str(tmp_path / 'r')!r},"
        " options={'rounds': 1, 'talk_turns': 1}, live=False)\n"
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_a_huge_seed_is_sent_as_text(exported: tuple[TracerProvider, InMemorySpanExporter]) -> None:
    provider, exporter = exported
    tracing = otel.start("r", provider)
    assert tracing is not None
    big = SPEC.model_copy(update={"seed": 2**70})
    with tracing.run(1), tracing.game(big):
        pass
    (game,) = [s for s in exporter.get_finished_spans() if s.name == "accord.game"]
    assert game.attributes is not None and game.attributes["accord.game.seed"] == str(2**70)
