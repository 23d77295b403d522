"""Issue 25 "Data and results": caches that mixed servers, resume that left stale results,
commands that refused a whole run for one bad file, replays of damaged traces that asked the
models again."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from accord.models.cache import ModelCache
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec

Server = Callable[[int], str]


@pytest.fixture
def chat_server() -> Iterator[Server]:
    """Start chat-completions servers: ``start(200)`` answers every call, ``start(401)``
    refuses every call; each counts the requests it was sent."""
    servers: list[ThreadingHTTPServer] = []

    def start(status: int) -> str:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                self.server.calls += 1  # type: ignore[attr-defined]
                if status == 200:
                    content = json.dumps({"thinking": "t", "speech": "hi", "decision": None})
                    payload: dict[str, object] = {
                        "choices": [{"message": {"role": "assistant", "content": content}}],
                        "usage": {"prompt_tokens": 3, "completion_tokens": 5},
                    }
                else:
                    payload = {"error": {"message": "invalid api key"}}
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.calls = 0  # type: ignore[attr-defined]
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/v1"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def _specs(base_url: str, batch: str = "b") -> list[GameSpec]:
    seat = AgentSpec(
        model="openai-compatible/default", options={"base_url": base_url, "max_retries": 0}
    )
    return [
        GameSpec(
            trace_id=f"{batch}-g{i}",
            game="negotiation",
            options={"rounds": 1, "talk_turns": 1},
            seed=i,
            agents=[seat, AgentSpec(agent="cooperative")],
            labels={"batch": batch},
        )
        for i in range(2)
    ]


def test_the_model_cache_never_answers_for_another_server(tmp_path: Path, chat_server) -> None:
    good, refusing = chat_server(200), chat_server(401)
    cache = tmp_path / "cache"
    first = run_sync(_specs(good), tmp_path / "one", cache=cache, live=False)
    assert first.failed == [] and first.cache is not None and first.cache.misses > 0
    assert ModelCache(cache).entries()
    # Same model name, same prompts, another server that refuses every call.
    second = run_sync(_specs(refusing), tmp_path / "two", cache=cache, live=False)
    assert second.cache is not None and second.cache.hits == 0
    assert len(second.failed) == 2, second.failed
    # The same server again is answered from the cache, credentials or not in its address.
    third = run_sync(_specs(good), tmp_path / "three", cache=cache, live=False)
    assert third.cache is not None and third.cache.misses == 0 and third.failed == []


def test_cache_keys_cover_the_server_the_tools_and_reply_options() -> None:
    from accord.models.cache import reply_options
    from accord.models.options import ModelOptions

    def key(options: ModelOptions, tools: list[dict[str, object]] | None = None) -> str:
        return ModelCache.key(
            "openai-compatible/default",
            [{"role": "user", "content": "hi"}],
            response_schema=None,
            temperature=None,
            max_tokens=None,
            seed=1,
            extra_params=options.extra_params,
            options=reply_options(options),
            tools=tools,
        )

    a = ModelOptions(base_url="http://127.0.0.1:8000/v1")
    keys = {
        key(a),
        key(ModelOptions(base_url="http://127.0.0.1:8001/v1")),
        key(ModelOptions(base_url="http://127.0.0.1:8000/v2")),
        key(a, tools=[{"name": "submit"}]),
        key(ModelOptions(base_url="http://127.0.0.1:8000/v1", n_ctx=512)),
        key(ModelOptions(fault_rate=0.5)),
    }
    assert len(keys) == 6
    # Patience and credentials do not change a reply: one key.
    assert key(a) == key(ModelOptions(base_url="http://127.0.0.1:8000/v1/", timeout_s=5))
    assert key(a) == key(ModelOptions(base_url="http://u:pw@127.0.0.1:8000/v1?api_key=x"))


@pytest.fixture
def model_run(tmp_path: Path, cli) -> Path:
    """A one-game run with a model seat (the free mock model)."""
    out = tmp_path / "mrun"
    result = cli.invoke(
        "run", "negotiation", "--model", "mock/schema", "--games", "1", "-o", "rounds=1",
        "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize("damage", ["transcripts", "sent", "calls"])
def test_a_damaged_trace_is_not_replayed_by_asking_the_models(
    model_run: Path, cli, damage: str
) -> None:
    path = next((model_run / "traces").glob("*.json"))
    data = json.loads(path.read_text())
    calls = [e for e in data["events"] if e["type"] in ("model_call", "model_error")]
    assert calls, "the run made model calls"
    if damage == "transcripts":
        data["transcripts"] = {}
    elif damage == "sent":
        for e in calls:
            e.pop("sent", None)
    else:
        data["events"] = [e for e in data["events"] if e not in calls]
    path.write_text(json.dumps(data))
    result = cli.invoke("replay", path)
    cli.error(result, "cannot replay from the trace alone", "--ask-models", "--cache")
    assert "stores no model replies" not in result.output
    assert not (model_run / "replays").exists(), "refused before any game was played"
    # Asked for explicitly, the models are called, and the message says so truthfully.
    asked = cli.invoke("replay", path, "--ask-models")
    assert asked.exit_code == 0, asked.output
    assert "asked again (--ask-models)" in " ".join(asked.output.split())
    # An intact trace needs no flag and no model.
    intact = cli.invoke("replay", next((model_run / "replays").glob("*.json")))
    assert intact.exit_code == 0 and "replies stored in the trace" in intact.output
