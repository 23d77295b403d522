"""Replay views in a real headless Chromium: step through a calendar, a negotiation and a
sorting game with the scrubber (buttons, keyboard arrows, deep links) and check what each
view shows at given steps against the trace; two games side by side; no horizontal scroll at
1280 px nor on a phone-sized screen.

The games are the committed golden traces (scripted agents) plus two negotiation games on one
seed (mock models, whose transcripts the scrubber must follow, and reference agents).
Screenshots of each view at three steps go to the gitignored ``runs/screenshots/replay``.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.testing.webserver import CHROMIUM, CHROMIUM_ARGS, serving
from accord.traces.io import read_trace
from accord.web.app import create_app

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
SHOTS = Path("runs") / "screenshots" / "replay"
GAMES = {
    "cal": "calendar-follower-dm",
    "neg": "negotiation-greedy-vs-split-rotating",
    "sort": "sorting-share-all-kv-camoc",
}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    run = tmp_path_factory.mktemp("replay") / "demo"
    model = AgentSpec(model="mock/schema")
    options = {"rounds": 2, "talk_turns": 2}
    run_sync(
        [
            GameSpec(trace_id="mock", game="negotiation", options=options, seed=4, agents=[model, model]),
            GameSpec(
                trace_id="refs",
                game="negotiation",
                options=options,
                seed=4,
                agents=[AgentSpec(agent="cooperative"), AgentSpec(agent="greedy")],
            ),
        ],
        run,
    )
    for key, name in GAMES.items():
        shutil.copy(GOLDEN / f"{name}.json", run / "traces" / f"{key}.json")
    with serving(create_app([run])) as url:
        yield url, run / "traces"


def grid_texts(page: Any, panel: int = 0) -> list[list[str]]:
    """The cell texts of the view's `panel`-th grid, row by row (overlay badges left out)."""
    return page.eval_on_selector_all(
        f"#replay-view .rv-grid >> nth={panel}",
        """(grids) => [...grids[0].querySelectorAll('tbody tr')].map((tr) =>
            [...tr.querySelectorAll('td')].map((td) => td.firstChild ? td.firstChild.textContent : ''))""",
    )


def goto_step(page: Any, url: str, trace_id: str, step: int) -> None:
    page.goto(f"{url}/#/run/demo/game/{trace_id}/step/{step}")
    page.wait_for_function(
        f"document.querySelector('#replay-view') && document.querySelector('#replay-view').dataset.step === '{step}'"
    )


def shoot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#replay").screenshot(path=str(SHOTS / f"{name}.png"))


def no_horizontal_scroll(page: Any) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth"))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def new_page(browser: Any, width: int = 1280, height: int = 900) -> tuple[Any, list[str]]:
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return page, errors
