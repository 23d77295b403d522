"""The web view in a real headless Chromium (Debian's ``chromium``, driven by Playwright).

A run of mock-model games is served by uvicorn on 127.0.0.1; the browser opens a game's page
and must show each seat's model conversation beside the event timeline, call by call, with
the system prompt and the replies as stored in the trace.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.testing.webserver import CHROMIUM, CHROMIUM_ARGS, serving
from accord.traces.io import read_trace
from accord.web.app import create_app

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
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
    with serving(create_app([root / "demo"])) as url:
        yield url, root / "demo"


def test_game_page_shows_each_seats_transcript_beside_the_timeline(served, tmp_path) -> None:
    url, run = served
    trace = read_trace(run / "traces" / "talk.json")
    system_a = trace.transcripts["A"].messages[0]["content"]
    calls_b = trace.transcripts["B"].calls
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
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


SHOTS = Path("runs") / "screenshots"
"""Where the page screenshots go (the project's gitignored runs/ folder), to look at."""


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Two served runs: 'work' (two batches, with its report written) and 'ref'."""
    from accord.analysis.report import build_report
    from accord.runner.config import Batch, Defaults, Experiment, expand

    root = tmp_path_factory.mktemp("browse")
    exp = Experiment(
        name="work",
        defaults=Defaults(game="negotiation", games=3, options={"rounds": 2, "talk_turns": 1}),
        batches=[
            Batch(name="mock", agents=["mock/schema", "mock/schema"]),
            Batch(name="refs", agents=["cooperative", "greedy"]),
        ],
    )
    run_sync(expand(exp), root / "work")
    build_report([root / "work"], root / "work" / "report")
    ref = Experiment(
        name="ref",
        defaults=Defaults(game="negotiation", games=4, options={"rounds": 2}),
        batches=[Batch(name="refs", agents=["cooperative", "equal-split"])],
    )
    run_sync(expand(ref), root / "ref")
    with serving(create_app([root / "work", root / "ref"])) as url:
        yield url


def test_runs_filter_game_compare_leaderboard_and_figures(two_runs: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))

        # The runs page lists both runs and offers a comparison.
        page.goto(f"{two_runs}/#/")
        page.wait_for_selector("#compare-go")
        assert page.locator("table.data tbody tr").count() == 2
        page.screenshot(path=str(SHOTS / "runs.png"), full_page=True)

        # A run page: leaderboard, report figures and the games table with its filters.
        page.goto(f"{two_runs}/#/run/work")
        page.wait_for_selector("#game-count")
        assert page.locator("#game-count").inner_text() == "6 of 6 games"
        page.wait_for_selector(".figures img")
        loaded = "[...document.querySelectorAll('.figures img')]"
        page.wait_for_function(f"() => {loaded}.every(i => i.complete && i.naturalWidth > 0)")
        assert page.locator(".figures img").count() >= 1
        page.wait_for_selector("text=cooperative")  # the leaderboard's rows
        page.fill("#game-search", "refs")
        assert page.locator("#game-count").inner_text() == "3 of 6 games"
        page.fill("#game-search", "")
        page.select_option("#game-metric", "efficiency")
        page.fill("#game-min", "101")  # efficiency is filtered in %, as shown: none above 100
        assert page.locator("#game-count").inner_text() == "0 of 6 games"
        assert page.locator("text=No game matches.").count() == 1
        page.fill("#game-min", "")
        page.select_option("#game-status", "complete")
        assert page.locator("#game-count").inner_text() == "6 of 6 games"

        # Click through to a game (before any full-page screenshot: after one, headless
        # Chromium ignores the next mouse click).
        page.click('a[href="#/run/work/game/refs-p00-g000"]')
        page.wait_for_selector(".timeline .ev")
        assert "refs-p00-g000" in page.locator("h1").inner_text()
        page.screenshot(path=str(SHOTS / "game.png"), full_page=False)
        page.go_back()
        page.wait_for_selector("#game-count")
        page.screenshot(path=str(SHOTS / "run.png"), full_page=True)

        # Compare a batch of one run with the other run.
        page.goto(f"{two_runs}/#/")
        page.wait_for_selector("#compare-go")
        page.select_option("#compare-a", label="work › refs")
        page.select_option("#compare-b", label="ref (all 4 games)")
        page.click("#compare-go")
        page.wait_for_selector("text=Δ (B − A)")
        rows = page.locator("table.data tbody tr")
        # Summary metrics that differ; one constant on both sides is listed apart.
        assert rows.count() >= 2 and "Comparison:" in page.locator("#compare-mode").inner_text()
        assert "work › refs vs ref" in page.locator("h1").inner_text()
        page.screenshot(path=str(SHOTS / "compare.png"), full_page=True)
        browser.close()
    assert not errors, errors
    for name in ("runs", "run", "game", "compare"):
        assert (SHOTS / f"{name}.png").stat().st_size > 10_000
