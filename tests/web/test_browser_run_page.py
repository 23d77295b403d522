"""The run page in headless Chromium at 1280 px: default key columns that fit (no horizontal
scroll), a column chooser that is remembered, pages of games, the summary's labels and units
in every table, "unknown" where a cost is unknown, and a reproduction directory's write-up
with its figures (issue 27, "Consistency")."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from accord.core.registry import resolve
from accord.runner.config import Batch, Defaults, Experiment, expand
from accord.runner.results import write_outputs
from accord.runner.run import run_sync
from accord.testing.webserver import CHROMIUM, CHROMIUM_ARGS, serving
from accord.web.app import create_app

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")

WIDTH = 1280
NEGOTIATION_REFS = 110


def unknown_price(path: Path) -> None:
    """Make a mock game's trace read as a model with no known price (as a local model's)."""
    data = json.loads(path.read_text())
    for usage in data["usage"].values():
        usage["cost_known"] = False
    path.write_text(json.dumps(data))


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from accord.reproduce.plan import make_plan
    from accord.reproduce.writeup import write_reproduction

    root = tmp_path_factory.mktemp("runpage")
    short = {"rounds": 2, "talk_turns": 1}
    exp = Experiment(
        name="mixed",
        defaults=Defaults(game="negotiation", games=1),
        batches=[
            Batch(
                name="refs", agents=["cooperative", "greedy"], games=NEGOTIATION_REFS, options=short
            ),
            Batch(name="priceless", agents=["mock/schema", "mock/schema"], games=2, options=short),
            Batch.model_validate(
                {"name": "cal", "game": "calendar", "agents": ["imap"], "games": 3, "options": {}}
            ),
            Batch.model_validate(
                {
                    "name": "sort",
                    "game": "sorting",
                    "agents": ["share-all"],
                    "games": 3,
                    "options": {},
                }
            ),
        ],
    )
    mixed = root / "mixed"
    run_sync(expand(exp), mixed)
    for path in (mixed / "traces").glob("priceless-*.json"):
        unknown_price(path)
    write_outputs(mixed)
    # A small reproduction of CalBench Table 2: SD-MAP and IMAP on a few canonical tasks.
    plan = make_plan("calbench", tables=["2"], smoke=True)
    plan.specs = [s for s in plan.specs if "canonical" in s.trace_id and "dsm" not in s.trace_id]
    repro = root / "repro"
    run_sync(plan.specs, repro)
    write_reproduction(plan, repro)
    with serving(create_app([mixed, repro])) as url:
        yield url


def fits(page: Any) -> dict[str, Any]:
    """The page's and every data table's overflow, measured in the browser."""
    return page.evaluate(
        """() => ({
          page: document.documentElement.scrollWidth - window.innerWidth,
          tables: [...document.querySelectorAll('.data-table')].map((w) => {
            const box = w.querySelector('.scroll'), t = box.querySelector('table');
            return {id: w.dataset.table || '', over: t.scrollWidth - box.clientWidth};
          }),
        })"""
    )


def headers(page: Any, table: str) -> list[str]:
    return page.locator(f'[data-table="{table}"] thead th').all_inner_texts()


def test_run_page_fits_1280_with_labels_pages_chooser_and_unknown_cost(served: str) -> None:
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": WIDTH, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{served}/#/run/mixed")
        page.wait_for_selector('[data-table="games:negotiation-v3"] tbody tr')
        page.wait_for_function(  # every table has been fitted to the window
            "[...document.querySelectorAll('.data-table[data-table]')]"
            ".every((w) => w.dataset.fitted)"
        )

        measured = fits(page)
        assert measured["page"] <= 0, measured
        assert {t["id"] for t in measured["tables"]} >= {
            f"games:{resolve('negotiation')}", f"games:{resolve('calendar')}",
            f"games:{resolve('sorting')}", f"summary:{resolve('negotiation')}",
        }  # fmt: skip
        assert all(t["over"] <= 1 for t in measured["tables"]), measured

        # Labels and units as in the summary: "efficiency %" with values in percent.
        games = headers(page, "games:negotiation-v3")
        assert "efficiency %" in " ".join(games) and "efficiency" not in games
        assert headers(page, "games:negotiation-v3")[:2] == ["trace", "status"]
        assert len(games) < 15, games  # key columns by default, not every stored value
        cells = page.evaluate(
            """() => {
              const w = document.querySelector('[data-table="games:negotiation-v3"]');
              const i = [...w.querySelectorAll('thead th')].findIndex(
                (th) => th.innerText.startsWith('efficiency'));
              return [...w.querySelectorAll('tbody tr')].map((tr) => tr.children[i].innerText);
            }"""
        )
        assert any(float(c) > 1 for c in cells if c not in ("–", "")), cells
        assert "efficiency %" in " ".join(headers(page, "summary:negotiation-v3"))

        # Pages of 50 games; the next page shows the next ones.
        games_table = page.locator('[data-table="games:negotiation-v3"]')
        total = NEGOTIATION_REFS + 2
        assert games_table.locator("tbody tr").count() == 50
        assert games_table.locator(".page-info").inner_text() == f"1–50 of {total}"
        first_trace = games_table.locator("tbody tr td").first.inner_text()
        games_table.locator(".page-next").click()
        assert games_table.locator(".page-info").inner_text() == f"51–100 of {total}"
        assert games_table.locator("tbody tr td").first.inner_text() != first_trace

        # Unknown cost reads "unknown" in the games table and in the summary, never 0.
        page.fill("#game-search", "priceless")
        assert page.locator("#game-count").inner_text() == f"2 of {total + 6} games"
        costs = page.evaluate(
            """() => {
              const w = document.querySelector('[data-table="games:negotiation-v3"]');
              const i = [...w.querySelectorAll('thead th')].findIndex(
                (th) => th.innerText === 'cost $');
              return [...w.querySelectorAll('tbody tr')].map((tr) => tr.children[i].innerText);
            }"""
        )
        assert costs == ["unknown", "unknown"], costs
        summary_rows = page.locator('[data-table="summary:negotiation-v3"] tbody tr')
        priceless = summary_rows.filter(has_text="priceless")
        assert "unknown" in priceless.inner_text()
        refs = summary_rows.filter(has_text="refs")
        assert "unknown" not in refs.inner_text()
        page.fill("#game-search", "")

        # The column chooser adds a column, and the choice survives a reload.
        chooser = games_table.locator("details.chooser")
        chooser.locator("summary").click()
        chooser.locator('input[value="players"]').check()
        assert "players" in headers(page, "games:negotiation-v3")
        page.reload()
        page.wait_for_selector('[data-table="games:negotiation-v3"] tbody tr')
        assert "players" in headers(page, "games:negotiation-v3")
        page.locator('[data-table="games:negotiation-v3"] details.chooser summary').click()
        page.locator(
            '[data-table="games:negotiation-v3"] button:has-text("Default columns")'
        ).click()
        assert "players" not in headers(page, "games:negotiation-v3")
        browser.close()
    assert not errors, errors


def test_a_reproduction_directory_shows_its_write_up_and_figures(served: str) -> None:
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": WIDTH, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{served}/#/run/repro")
        page.wait_for_selector("#reproduction .md table")
        section = page.locator("#reproduction")
        assert "Reproduction" in section.locator("h2").inner_text()
        assert "Table 2" in section.inner_text()
        sd_rows = section.locator("tbody tr").filter(has_text="sd-map")
        assert sd_rows.count() >= 1
        assert "note 1" in sd_rows.first.inner_text()
        assert "SD-MAP: a paper/release discrepancy" in section.inner_text()
        assert section.locator("strong").count() >= 1  # **no** is bold, not asterisks
        assert "**" not in section.inner_text()
        loaded = "[...document.querySelectorAll('#reproduction img')]"
        # The figures load lazily: ask for all of them (those below the fold included).
        page.evaluate(f"() => {loaded}.forEach(i => {{ i.loading = 'eager'; }})")
        page.wait_for_function(f"() => {loaded}.length && {loaded}.every(i => i.naturalWidth > 0)")
        assert "table2.png" in section.locator("figcaption").first.inner_text()
        assert fits(page)["page"] <= 0
        browser.close()
    assert not errors, errors
