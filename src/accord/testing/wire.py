"""Fake model providers on 127.0.0.1 that speak the OpenAI and Anthropic wire formats.

Each request gets the next scripted answer ``(status, headers, body)`` or, once the script is
used up and an ``answer`` function is given, that function's answer to the request's JSON body
(a fake that plays a whole game); every request's path, headers and JSON body are recorded so
tests can check what a client really sent over HTTP.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = tuple[int, dict[str, str], Any]
Answerer = Callable[[dict[str, Any]], Answer]
"""Answers one request from its JSON body (after the script is used up)."""


def openai_body(
    content: str = '{"say": "hi"}', *, prompt: int = 21, completion: int = 5
) -> dict[str, Any]:
    """A chat-completions reply as the OpenAI API sends it."""
    return {
        "id": "chatcmpl-wire",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "gpt-4o-mini-2024-07-18",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": 16},
        },
    }


def openai_tool_body(calls: list[tuple[str, dict[str, Any]]], content: str = "") -> dict[str, Any]:
    """A chat-completions reply whose message makes the tool calls `calls` (name, arguments)."""
    body = openai_body(content)
    message = body["choices"][0]["message"]
    message["content"] = content or None
    message["tool_calls"] = [
        {
            "id": f"call_{i + 1}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        }
        for i, (name, args) in enumerate(calls)
    ]
    body["choices"][0]["finish_reason"] = "tool_calls"
    return body


def anthropic_tool_body(calls: list[tuple[str, dict[str, Any]]], text: str = "") -> dict[str, Any]:
    """A messages-API reply with one ``tool_use`` block per call (name, input)."""
    body = anthropic_body(text)
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    blocks += [
        {"type": "tool_use", "id": f"toolu_{i + 1}", "name": name, "input": args}
        for i, (name, args) in enumerate(calls)
    ]
    body["content"] = blocks
    body["stop_reason"] = "tool_use"
    return body


def anthropic_body(text: str = '{"say": "hi"}', *, inp: int = 30, out: int = 7) -> dict[str, Any]:
    """A messages-API reply as Anthropic sends it."""
    return {
        "id": "msg_wire",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": inp, "output_tokens": out},
    }


def error_body(message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    """An error body in the shape both APIs use."""
    return {"type": "error", "error": {"type": kind, "message": message}}


def send_json(
    handler: BaseHTTPRequestHandler, status: int, headers: dict[str, str], body: Any
) -> None:
    """Answer a request with `body` as JSON, `status` and extra `headers`."""
    data = json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    for key, value in headers.items():
        handler.send_header(key, value)
    handler.end_headers()
    handler.wfile.write(data)


@dataclass
class WireServer:
    """The running fake: its base URL, the script left, and what it received."""

    url: str
    script: list[Answer]
    requests: list[dict[str, Any]] = field(default_factory=list)


@contextmanager
def wire_server(script: list[Answer], answer: Answerer | None = None) -> Iterator[WireServer]:
    """Serve `script` (then `answer`) on a free port of 127.0.0.1 until the block ends."""
    state = WireServer(url="", script=list(script))
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            with lock:
                state.requests.append(
                    {
                        "path": self.path,
                        "headers": {k.lower(): v for k, v in self.headers.items()},
                        "body": json.loads(raw) if raw else None,
                    }
                )
                if state.script:
                    status, headers, body = state.script.pop(0)
                elif answer is not None:
                    status, headers, body = answer(state.requests[-1]["body"] or {})
                else:
                    status, headers, body = (500, {}, error_body("script ran out", "api_error"))
            send_json(self, status, headers, body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    # A short poll: shutting down waits for the next one (half a second by default).
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
