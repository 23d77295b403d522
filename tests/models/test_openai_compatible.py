"""openai-compatible provider against an in-memory transport and a real local HTTP server."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from accord.core.errors import ModelError
from accord.models import ModelOptions, RetriesExhaustedError
from accord.models.openai_compatible import OpenAICompatibleModel

ASK = [{"role": "user", "content": "propose a split"}]
SCHEMA = {"type": "object", "properties": {"say": {"type": "string", "maxLength": 20}}}


def ok_body(content: str = '{"say": "hi"}') -> dict:
    return {
        "id": "cmpl-1",
        "model": "qwen",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content, "reasoning_content": "hmm"},
            }
        ],
        "usage": {
            "prompt_tokens": 12,
            "completion_tokens": 7,
            "completion_tokens_details": {"reasoning_tokens": 3},
            "prompt_tokens_details": {"cached_tokens": 8},
        },
    }


class Server:
    """Answers each request with the next scripted (status, headers, body) and records bodies."""

    def __init__(self, script):
        self.script = list(script)
        self.requests: list[dict] = []
        self.headers: list[httpx.Headers] = []

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(json.loads(request.content))
        self.headers.append(request.headers)
        step = self.script.pop(0)
        if isinstance(step, Exception):
            raise step
        status, headers, body = step
        return httpx.Response(status, headers=headers, json=body)


def client(server: Server, fake_time, **options) -> OpenAICompatibleModel:
    return OpenAICompatibleModel(
        "openai-compatible/qwen",
        ModelOptions(base_url="http://127.0.0.1:8000/v1", **options),
        transport=httpx.MockTransport(server.handle),
        sleep=fake_time.sleep,
        clock=fake_time.clock,
    )


async def test_rate_limit_then_success_honours_retry_after(fake_time):
    server = Server([(429, {"Retry-After": "7"}, {"error": "slow down"}), (200, {}, ok_body())])
    model = client(server, fake_time)
    completion = await model.complete(ASK, temperature=0.5, max_tokens=64, seed=3)
    await model.aclose()
    assert completion.text == '{"say": "hi"}'
    assert completion.attempts == 2
    assert fake_time.sleeps == [7.0]
    assert completion.usage.input_tokens == 12 and completion.usage.output_tokens == 7
    assert completion.usage.reasoning_tokens == 3 and completion.usage.cached_input_tokens == 8
    assert completion.reasoning == "hmm"
    sent = server.requests[-1]
    assert (sent["model"], sent["temperature"], sent["max_tokens"], sent["seed"]) == (
        "qwen",
        0.5,
        64,
        3,
    )


async def test_schema_forms_step_down_until_the_server_accepts_one_and_stay_there(fake_time):
    rejection = {"error": {"message": "Unsupported parameter: response_format.json_schema"}}
    crash = {"error": {"message": "Internal error: response_format schema is not supported"}}
    server = Server(
        [
            (400, {}, rejection),  # json_schema refused with 400 (OpenAI-style servers)
            (500, {}, crash),  # json_object + schema refused with a 5xx naming the schema
            (422, {}, {"detail": "response_format: unknown type json_object"}),
            (200, {}, ok_body()),
            (200, {}, ok_body()),
        ]
    )
    model = client(server, fake_time)
    first = await model.complete(ASK, response_schema=SCHEMA)
    second = await model.complete(ASK, response_schema=SCHEMA)
    await model.aclose()
    formats = [request.get("response_format") for request in server.requests]
    assert formats == [
        {"type": "json_schema", "json_schema": {"name": "reply", "schema": SCHEMA}},
        {"type": "json_object", "schema": SCHEMA},
        {"type": "json_object"},
        None,
        None,
    ]
    assert first.attempts == 1 and fake_time.sleeps == [], "a refusal is not a retry"
    assert [(s["from"], s["to"], s["status"]) for s in first.raw["response_format_fallback"]] == [
        ("json_schema", "json_object_schema", 400),
        ("json_object_schema", "json_object", 500),
        ("json_object", "none", 422),
    ]
    assert first.raw["response_format"] == "none"
    assert "response_format_fallback" not in second.raw, "the choice is remembered"
    assert second.text == '{"say": "hi"}'


async def test_llama_cpp_style_500_on_json_schema_falls_back_to_json_object(fake_time):
    crash = {
        "error": {
            "message": "('body', 'response_format', 'type'): Input should be 'text' or "
            "'json_object'",
            "type": "internal_server_error",
        }
    }
    server = Server([(500, {}, crash), (200, {}, ok_body())])
    model = client(server, fake_time)
    completion = await model.complete(ASK, response_schema=SCHEMA)
    await model.aclose()
    assert completion.raw["response_format"] == "json_object_schema"
    assert server.requests[1]["response_format"] == {"type": "json_object", "schema": SCHEMA}


async def test_a_5xx_naming_nothing_about_schemas_is_an_outage_and_retried(fake_time):
    server = Server([(503, {}, {"error": "overloaded"}), (200, {}, ok_body())])
    model = client(server, fake_time)
    completion = await model.complete(ASK, response_schema=SCHEMA)
    await model.aclose()
    assert completion.attempts == 2 and completion.raw["response_format"] == "json_schema"


@pytest.mark.parametrize(
    "failure",
    [
        (500, {}, {"error": "boom"}),
        (503, {}, {"error": "overloaded"}),
        httpx.ConnectError("connection refused"),
        httpx.ReadTimeout("read timed out"),
        httpx.RemoteProtocolError("server disconnected"),
    ],
)
async def test_server_errors_and_dropped_connections_are_retried(fake_time, failure):
    server = Server([failure, (200, {}, ok_body("fine"))])
    model = client(server, fake_time)
    completion = await model.complete(ASK)
    await model.aclose()
    assert (completion.text, completion.attempts) == ("fine", 2)


@pytest.mark.parametrize(("status", "hint"), [(401, "api_key_env"), (404, "model name")])
async def test_client_errors_are_permanent_and_say_what_to_check(fake_time, status, hint):
    server = Server([(status, {}, {"error": "no"}), (200, {}, ok_body())])
    model = client(server, fake_time)
    with pytest.raises(ModelError, match=hint):
        await model.complete(ASK)
    await model.aclose()
    assert len(server.requests) == 1


async def test_api_key_goes_in_the_header_only(fake_time, monkeypatch):
    monkeypatch.setenv("SERVER_KEY", "secret-123")
    server = Server([(200, {}, ok_body())])
    model = client(server, fake_time, api_key_env="SERVER_KEY")
    completion = await model.complete(ASK)
    await model.aclose()
    assert server.headers[0]["authorization"] == "Bearer secret-123"
    assert "secret-123" not in json.dumps(completion.raw)


@pytest.fixture
def http_server():
    """A real chat-completions server on 127.0.0.1 that rate-limits its first request."""
    seen: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers["Content-Length"])
            seen.append({"path": self.path, "body": json.loads(self.rfile.read(length))})
            if len(seen) == 1:
                status, payload, extra = 429, {"error": "rate limited"}, {"Retry-After": "2"}
            else:
                status, payload, extra = 200, ok_body("from the wire"), {}
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in extra.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    # A short poll: shutting down waits for the next one (half a second by default).
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    server.shutdown()
    server.server_close()
    thread.join()


async def test_real_http_server_rate_limit_then_success(http_server, fake_time):
    base_url, seen = http_server
    model = OpenAICompatibleModel(
        "openai-compatible/tiny",
        ModelOptions(base_url=base_url),
        sleep=fake_time.sleep,
        clock=fake_time.clock,
    )
    completion = await model.complete(ASK)
    await model.aclose()
    assert completion.text == "from the wire"
    assert fake_time.sleeps == [2.0]
    assert [s["path"] for s in seen] == ["/v1/chat/completions"] * 2
    assert seen[0]["body"]["messages"] == ASK


async def test_exhausted_retries_against_a_dead_port(fake_time):
    model = OpenAICompatibleModel(
        "openai-compatible/tiny",
        ModelOptions(base_url="http://127.0.0.1:9/v1", max_retries=1),
        sleep=fake_time.sleep,
    )
    with pytest.raises(RetriesExhaustedError, match=r"connection to .* failed"):
        await model.complete(ASK)
    await model.aclose()


async def test_a_refused_connection_to_ones_own_server_says_to_start_it(fake_time):
    """Advice fits the address: a server on this machine has no status page to check."""
    server = Server([httpx.ConnectError("connection refused")] * 3)
    model = client(server, fake_time, max_retries=2)
    with pytest.raises(ModelError) as caught:
        await model.complete(ASK)
    await model.aclose()
    text = str(caught.value)
    assert "Nothing answered at http://127.0.0.1:8000/v1: start the server there" in text
    assert "status page" not in text


async def test_a_hosted_address_keeps_the_providers_advice(fake_time):
    server = Server([(503, {}, {"error": "overloaded"})] * 3)
    model = OpenAICompatibleModel(
        "openai-compatible/qwen",
        ModelOptions(base_url="https://api.example.com/v1", max_retries=2),
        transport=httpx.MockTransport(server.handle),
        sleep=fake_time.sleep,
        clock=fake_time.clock,
    )
    with pytest.raises(ModelError, match="status page"):
        await model.complete(ASK)
    await model.aclose()


@pytest.mark.parametrize(
    ("url", "own"),
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://localhost:8000/v1", True),
        ("http://[::1]:8000/v1", True),
        ("http://10.0.3.7:8000/v1", True),
        ("https://api.openai.com/v1", False),
        (None, False),
    ],
)
def test_own_server_tells_local_and_private_addresses_from_hosted_ones(url, own):
    from accord.models.retry import own_server

    assert own_server(url) is own
