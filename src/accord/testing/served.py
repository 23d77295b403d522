"""A fake model server on 127.0.0.1 that answers like a small self-hosted one: every chat
completion gets a random reply valid under the request's JSON schema, and it can report (or
enforce) a context size the way llama.cpp's and vLLM's servers do.

Tests use it to count the model calls a command really makes and to check what it sends.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from accord.models.mock import sample_valid
from accord.testing.wire import error_body, openai_body, send_json


@dataclass
class ServedModel:
    """The running fake: its ``/v1`` base URL and every chat request it received."""

    url: str
    n_ctx: int | None
    report_context: bool
    chats: list[dict[str, Any]] = field(default_factory=list)


def prompt_tokens(messages: list[dict[str, Any]]) -> int:
    """The fake's prompt size: a token per four characters, plus four per message."""
    return sum(len(str(m.get("content", ""))) // 4 + 4 for m in messages)


@contextmanager
def served_model(
    *,
    n_ctx: int | None = None,
    report_context: bool = True,
    prompt_only: bool = False,
    seed: int = 0,
) -> Iterator[ServedModel]:
    """Serve until the block ends. With `n_ctx`, a request whose prompt and ``max_tokens``
    exceed it is refused with the message llama-cpp-python uses (with `prompt_only`, as
    llama-cpp-python does: only a prompt that alone fills the context, the reply being
    shortened silently), and ``/props`` reports the size when `report_context`."""
    state = ServedModel(url="", n_ctx=n_ctx, report_context=report_context)
    lock = threading.Lock()
    rng = random.Random(seed)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/props" and state.n_ctx and state.report_context:
                send_json(self, 200, {}, {"default_generation_settings": {"n_ctx": state.n_ctx}})
            elif self.path == "/v1/models":
                send_json(self, 200, {}, {"object": "list", "data": [{"id": "fake"}]})
            else:
                send_json(self, 404, {}, error_body("not found"))

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = json.loads(raw) if raw else {}
            with lock:
                state.chats.append(body)
                prompt = prompt_tokens(body.get("messages", []))
                asked = prompt + int(body.get("max_tokens") or 0)
                over = prompt >= state.n_ctx if state.n_ctx and prompt_only else False
                if state.n_ctx is not None and (over if prompt_only else asked > state.n_ctx):
                    message = (
                        f"This model's maximum context length is {state.n_ctx} tokens. However, "
                        f"you requested {asked} tokens ({prompt} in the messages, "
                        f"{body.get('max_tokens')} in the completion)."
                    )
                    send_json(self, 400, {}, error_body(message))
                    return
                fmt = body.get("response_format") or {}
                schema = (fmt.get("json_schema") or {}).get("schema") or fmt.get("schema")
                reply = sample_valid(schema, rng) if schema else {"say": "hi"}
            send_json(self, 200, {}, openai_body(json.dumps(reply), prompt=prompt, completion=20))

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    # A short poll: shutting down waits for the next one (half a second by default).
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
