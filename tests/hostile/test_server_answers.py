"""Issue 37 case 3 and the model client: what a model server answers is bounded.

Deeply nested JSON from a server once crashed ``accord run`` in the check before the first game
(``RecursionError``, then "no running event loop", exit 1, no trace). A server that answers
nonsense to the metadata questions is now a server that does not say its context size; a chat
answer nested too deeply or reporting absurd usage is a failed attempt, and the game ends
``failed`` with the reason, never a traceback.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from typer.testing import CliRunner

from accord.cli.main import app
from accord.models.server import measure_prompt, reported_context
from accord.runner.play import play_game
from accord.runner.server_check import check_server_context
from accord.runner.specs import AgentSpec, GameSpec

DEEP = b"[" * 200_000 + b"]" * 200_000
DEEP_OBJECT = b'{"usage": ' + b"[" * 30_000 + b"]" * 30_000 + b"}"


@contextmanager
def raw_server(answer: Callable[[str, str], tuple[int, bytes]]) -> Iterator[str]:
    """A server on a free loopback port answering every GET and POST with raw bytes."""

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            status, body = answer(self.command, self.path)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _answer

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _spec(base_url: str, trace_id: str = "deep") -> GameSpec:
    seat = AgentSpec(
        model="openai-compatible/fake", options={"base_url": base_url, "max_retries": 0}
    )
    return GameSpec(
        trace_id=trace_id,
        game="negotiation",
        options={"rounds": 1, "talk_turns": 1},
        seed=0,
        agents=[seat, AgentSpec(agent="greedy")],
    )


def test_deep_metadata_is_a_server_that_does_not_say() -> None:
    with raw_server(lambda method, path: (200, DEEP)) as url:
        assert reported_context(url, "fake", headers={}) is None
        assert measure_prompt(url, "fake", [{"role": "user", "content": "hi"}],
                              headers={}, timeout_s=10) == (None, None)  # fmt: skip
        check_server_context([_spec(url)])  # passes: the server said nothing usable


def test_accord_run_with_a_deep_answering_server_is_no_traceback(tmp_path: Path) -> None:
    with raw_server(lambda method, path: (200, DEEP)) as url:
        result = CliRunner(env={"COLUMNS": "300"}).invoke(
            app,
            ["run", "negotiation", "--agents",
             "openai-compatible/fake,greedy", "--model-base-url", url, "-M", "max_retries=0",
             "-o", "rounds=1", "-o", "talk_turns=1", "--out", str(tmp_path / "run")],
        )  # fmt: skip
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output and "RecursionError" not in result.output
    assert result.exit_code == 1, result.output
    assert "MAX_DEPTH" in " ".join(result.output.split())
    assert list((tmp_path / "run" / "traces").glob("*.json"))


def test_a_deep_or_absurd_chat_answer_fails_the_game_with_the_reason() -> None:
    for body, needle in (
        (DEEP_OBJECT, "MAX_DEPTH"),
        (b'{"choices": [{"message": {"content": "hi"}}], "usage": {"prompt_tokens": 1e309}}',
         "finite"),
        (b'{"choices": [{"message": {"content": "hi"}}], "usage": {"prompt_tokens": 1e30}}',
         "MAX_USAGE_NUMBER"),
    ):  # fmt: skip
        with raw_server(lambda method, path, body=body: (200, body)) as url:
            trace = asyncio.run(play_game(_spec(url)))
        assert trace.status == "failed"
        assert trace.error is not None and needle in trace.error, trace.error
