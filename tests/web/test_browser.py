"""The web view in a real headless Chromium (Debian's ``chromium``, driven by Playwright).

A run of mock-model games is served by uvicorn on 127.0.0.1; the browser opens a game's page
and must show each seat's model conversation beside the event timeline, call by call, with
the system prompt and the replies as stored in the trace.
"""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.io import read_trace
from accord.web.app import create_app

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    import uvicorn

    root = tmp_path_factory.mktemp("browser")
    model = AgentSpec(model="mock/schema")
    run_sync(
        [
            GameSpec(
                trace_id="talk",
                game="negotiation",
                options={"rounds": 2, "talk_turns": 1},
                seed=4,
                agents=[model, model],
            )
        ],
        root / "demo",
    )
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(create_app([root / "demo"]), host="127.0.0.1", port=port, log_level="error")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}", root / "demo"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_game_page_shows_each_seats_transcript_beside_the_timeline(served, tmp_path) -> None:
    url, run = served
    trace = read_trace(run / "traces" / "talk.json")
    system_a = trace.transcripts["A"].messages[0]["content"]
    calls_b = trace.transcripts["B"].calls
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        page.goto(f"{url}/#/run/demo/game/talk")
        page.wait_for_selector(".transcript-col .call")
        column = page.locator(".transcript-col")
        assert column.locator("h2").inner_text() == "Model transcripts"
        # Seat A first: its first call shows the system prompt as stored, then the reply.
        first = column.locator(".call").first
        assert "call 1" in first.locator("summary").first.inner_text()
        assert first.locator(".msg-system pre").text_content() == system_a
        assert first.locator(".msg-assistant").count() == 1
        assert column.locator(".call").count() == trace.transcripts["A"].calls
        # The timeline is still there, side by side with the transcript.
        events_box = page.locator(".events-col").bounding_box()
        transcript_box = column.bounding_box()
        assert events_box and transcript_box and transcript_box["x"] > events_box["x"]
        # Switching seat shows seat B's calls.
        page.select_option(".transcript-col select", "B")
        page.wait_for_function(
            f"document.querySelectorAll('.transcript-col .call').length === {calls_b}"
        )
        page.screenshot(path=str(tmp_path / "game-transcripts.png"), full_page=False)
        browser.close()
    assert (tmp_path / "game-transcripts.png").stat().st_size > 10_000
