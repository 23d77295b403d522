"""A person's seat page in a real headless Chromium, measured: the game's view of the seat spans
the page above the controls, no table cell is squeezed to a few characters, and the page never
scrolls sideways, at 1280 px and on a 390 px phone, for every built-in game.

Screenshots go to the gitignored ``runs/screenshots/play`` (``<game>-<width>.png``); the ones
in ``docs/figures/play/`` were taken by this test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.web.test_browser_play import STEP_MS, _new_table

from accord.testing.webserver import CHROMIUM, CHROMIUM_ARGS, serving
from accord.web.app import create_app
from accord.web.play import PlayHub

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")

SHOTS = Path("runs") / "screenshots" / "play"
TABLES = [
    # The negotiation decision page (no talk: the first request is the decision).
    (
        "negotiation",
        "negotiation-v3",
        ["human", "cooperative"],
        '{"rounds": 1, "cheap_talk": false}',
    ),
    ("calendar", "calendar-v2", ["imap", "imap", "human"], ""),
    ("sorting", "sorting-v3", ["human", "share-all", "share-all"], ""),
]
MEASURE = """() => {
  const view = document.querySelector('#seat-view');
  const form = document.querySelector('#answer-form');
  const main = document.querySelector('main') || document.body;
  const v = view.getBoundingClientRect(), f = form.getBoundingClientRect();
  const squeezed = [...view.querySelectorAll('td, th, dd, dt')]
    .filter((c) => c.textContent.trim().length > 3 && c.getBoundingClientRect().width < 32)
    .map((c) => c.textContent.trim());
  return {
    view: v.width, main: main.getBoundingClientRect().width, viewBottom: v.bottom,
    formTop: f.top, sideways: document.documentElement.scrollWidth - window.innerWidth,
    squeezed,
  };
}"""


def _measure(page: Any) -> dict[str, Any]:
    return dict(page.evaluate(MEASURE))


@pytest.mark.parametrize(("name", "game", "seats", "options"), TABLES, ids=[t[0] for t in TABLES])
def test_the_seat_view_spans_the_page_above_the_controls(
    tmp_path: Path, name: str, game: str, seats: list[str], options: str
) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    hub = PlayHub(tmp_path / "humans")
    with serving(create_app([], play=hub)) as url, playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        errors: list[str] = []
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        (link,) = _new_table(page, url, hub.lobby_key, game, seats, options)
        page.goto(link)
        page.wait_for_selector("#seat-view", timeout=STEP_MS)
        page.wait_for_selector("#answer-form", timeout=STEP_MS)
        for width, height in ((1280, 900), (390, 844)):
            page.set_viewport_size({"width": width, "height": height})
            got = _measure(page)
            page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
            assert got["view"] >= 0.9 * got["main"], (width, got)
            assert got["formTop"] >= got["viewBottom"] - 1, (width, got)
            assert got["sideways"] <= 1, (width, got)
            assert got["squeezed"] == [], (width, got)
        browser.close()
    assert errors == []
