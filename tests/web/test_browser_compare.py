"""The web compare page in headless Chromium shows what `accord compare` prints: the same
matching, mode ("paired"), differences, both CIs and Holm p-values, metric by metric."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.testing.webserver import CHROMIUM, CHROMIUM_ARGS, serving
from accord.web.app import create_app

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")


@pytest.fixture(scope="module")
def runs(
    calendar_protocol_runs: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Path, Path]]:
    """IMAP and DSM-Welfare on the canonical suite (played once per session, tests/conftest.py),
    copied here (the served folders are this module's own), and served."""
    root = tmp_path_factory.mktemp("compare")
    dirs = [shutil.copytree(src, root / src.name) for src in calendar_protocol_runs]
    with serving(create_app(dirs)) as url:
        yield url, dirs[0], dirs[1]


def test_compare_page_shows_the_commands_paired_numbers(runs) -> None:
    url, a, b = runs
    cli = CliRunner(env={"COLUMNS": "200"}).invoke(app, ["compare", str(a), str(b), "-f", "json"])
    assert cli.exit_code == 0, cli.output
    expected = {r["metric"]: r for r in json.loads(cli.output)["rows"]}

    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{url}/#/compare/imap//dsm/")
        page.wait_for_selector("#compare-mode")
        mode = page.locator("#compare-mode").inner_text()
        assert "Comparison: paired" in mode and "90 scenarios played on both sides" in mode
        shown = page.evaluate(
            """() => [...document.querySelectorAll('table.data tbody tr')].map((tr) => ({
                metric: tr.children[1].innerText,
                mode: tr.querySelector('.cmp-mode').innerText,
                diff: Number(tr.querySelector('.cmp-diff').dataset.value),
                paired: [tr.querySelector('.cmp-paired').dataset.low,
                         tr.querySelector('.cmp-paired').dataset.high].map(Number),
                unpaired: [tr.querySelector('.cmp-unpaired').dataset.low,
                           tr.querySelector('.cmp-unpaired').dataset.high].map(Number),
                holm: Number(tr.querySelector('.cmp-holm').dataset.value),
                bold: tr.querySelector('.cmp-diff').classList.contains('clear-delta'),
            }))"""
        )
        # The run page's leaderboard has the MMR column; equal raw means share a rank.
        page.goto(f"{url}/#/run/imap")
        page.wait_for_selector("th:has-text('MMR')")
        browser.close()
    assert not errors, errors
    assert sorted(r["metric"] for r in shown) == sorted(expected)
    for r in shown:
        e = expected[r["metric"]]
        assert r["mode"] == e["mode"] == "paired"
        assert r["diff"] == pytest.approx(e["diff"], abs=1e-12)
        assert r["paired"] == pytest.approx([e["paired_ci_low"], e["paired_ci_high"]], abs=1e-12)
        assert r["unpaired"] == pytest.approx(
            [e["unpaired_ci_low"], e["unpaired_ci_high"]], abs=1e-12
        )
        assert r["holm"] == pytest.approx(e["p_holm"], abs=1e-12)
        assert r["bold"] == (e["paired_ci_low"] > 0 or e["paired_ci_high"] < 0)
    assert any(r["bold"] for r in shown)
