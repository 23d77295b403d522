"""A real uvicorn server on 127.0.0.1, for tests that stream (server-sent events) or drive a
browser (needs the web extra), and how those tests launch Debian's Chromium."""

from __future__ import annotations

import contextlib
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

from fastapi import FastAPI

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
"""The system Chromium, which Playwright drives (its own browser download is not used)."""
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
"""Headless, offline: nothing is fetched from the network."""


@contextlib.contextmanager
def serving(app: FastAPI) -> Iterator[str]:
    """Serve `app` on a free loopback port in a thread; yields its base URL."""
    import uvicorn

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(
            app, host="127.0.0.1", port=port, log_level="error", timeout_graceful_shutdown=2
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def wait_until(page: Any, expression: str, arg: Any = None, timeout_s: float = 30.0) -> None:
    """Poll `expression` (a JavaScript expression, or a function of `arg`) in Playwright `page`
    until it is truthy. Unlike ``page.wait_for_function``, whose polling evaluates a string
    with ``eval`` inside the page, each check is a plain ``page.evaluate``, so a page whose
    Content-Security-Policy forbids ``unsafe-eval`` (Accord's pages, the static bundle) is
    polled too. Raises `TimeoutError` after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while not (page.evaluate(expression) if arg is None else page.evaluate(expression, arg)):
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout_s:g} s for: {expression}")
        page.wait_for_timeout(100)
