"""`accord view bundle`: the web view written as a static site (accord.web.bundle).

The site is built from mock-model and reference-agent runs, then opened in headless Chromium
from ``file://`` and from a plain static file server, and must show what `accord serve` shows.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import gzip
import http.server
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi import FastAPI
from typer.testing import CliRunner

from accord.cli.main import app as cli_app
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.testing.webserver import CHROMIUM, CHROMIUM_ARGS, serving, wait_until
from accord.traces.io import read_trace
from accord.web.app import create_app
from accord.web.bundle import MARKER, bundle_key, write_bundle

KEY = "sk-bundle-7f3e9a1b2c4d5e6f0a9b"
VAR = "ACCORD_BUNDLE_TEST_API_KEY"
CAL = "cal 100%"
# A 1x1 PNG, standing in for a report figure.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def _runs(root: Path) -> tuple[Path, Path]:
    """Two runs: mock-model negotiations in two batches (with a figure), reference calendars."""
    model = AgentSpec(model="mock/schema")
    specs = [
        GameSpec(
            trace_id=f"talk-{batch}-{seed}",
            game="negotiation",
            options={"rounds": 2, "talk_turns": 1},
            seed=seed,
            agents=[model, model],
            labels={"batch": batch},
        )
        for batch in ("short", "long")
        for seed in (1, 2)
    ]
    neg = root / "neg"
    run_sync(specs, neg)
    (neg / "report" / "negotiation-v3").mkdir(parents=True)
    (neg / "report" / "negotiation-v3" / "figure 1.png").write_bytes(PNG)
    (neg / "reproduction.md").write_text("# Our numbers\n\nBeside the paper's.\n")
    (neg / "reproduction").mkdir()
    (neg / "reproduction" / "table 2.png").write_bytes(PNG)
    cal = root / CAL  # a name that needs escaping in URLs
    run_sync(
        [
            GameSpec(
                trace_id=f"cal-{s}", game="calendar", seed=s, agents=[AgentSpec(agent="imap")] * 3
            )
            for s in (1, 2)
        ],
        cal,
    )
    return neg, cal


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, Path]]:
    root = tmp_path_factory.mktemp("bundle")
    neg, cal = _runs(root)
    out = root / "site"
    result = write_bundle([neg, cal], out)
    assert (result.runs, result.games, result.pages) == (2, 6, 6)
    assert result.figures == 2 and not result.left_out
    # Every ordered pair of one run's games of one game id: 4 x 3 negotiations, 2 x 1 calendars.
    assert result.sides == 14
    yield neg, cal, out


def _payloads(out: Path) -> dict[str, str]:
    """Every data file's payload as text (compressed ones inflated)."""
    texts = {}
    for path in (out / "data").glob("*.js"):
        script = path.read_text(encoding="utf-8")
        packed = re.fullmatch(r'ACCORD_BUNDLE\.putGz\("(\w+)", "([^"]*)"\);\n', script)
        texts[path.name] = (
            gzip.decompress(base64.b64decode(packed.group(2))).decode() if packed else script
        )
    return texts


def _answer(out: Path, path: str) -> object:
    """The saved answer of one API request, parsed."""
    text = _payloads(out)[f"{bundle_key(path)}.js"]
    plain = re.fullmatch(r'ACCORD_BUNDLE\.put\("\w+", (.*)\);\n', text, re.S)
    return json.loads(plain.group(1) if plain else text)


def test_bundle_key_ignores_escapes_and_query_order() -> None:
    assert bundle_key("/api/runs/a%20b/games") == bundle_key("/api/runs/a b/games")
    assert bundle_key("/api/compare?a=x&b=y+z") == bundle_key("/api/compare?b=y%20z&a=x")
    assert bundle_key("/api/runs/a/games") != bundle_key("/api/runs/b/games")
    assert re.fullmatch(r"[0-9a-f]{16}", bundle_key("/api/runs"))


def test_site_holds_every_page_and_no_local_path(site) -> None:
    neg, _, out = site
    assert (out / "index.html").is_file() and (out / MARKER).is_file()
    assert (out / "static" / "bundle.js").is_file() and (out / "static" / "app.js").is_file()
    html = (out / "index.html").read_text()
    assert '"/static/' not in html and "Content-Security-Policy" in html
    for path in [
        "/api/runs",
        "/api/games",
        "/api/runs/neg/games",
        "/api/runs/neg/leaderboard",
        "/api/runs/cal 100%/games/cal-1",
        "/api/runs/cal%20100%25/leaderboard",
        "/api/runs/neg/games/talk-long-2",
        "/api/compare?a=neg&a_batch=short&b=neg&b_batch=long",
    ]:
        assert (out / "data" / f"{bundle_key(path)}.js").is_file(), path
    figure = out / "data" / f"{bundle_key('/api/runs/neg/figures/negotiation-v3/figure 1.png')}.png"
    assert figure.read_bytes() == PNG
    texts = _payloads(out)
    # Traces are large: stored compressed, and inflated they are the served JSON.
    trace_file = out / "data" / f"{bundle_key('/api/runs/neg/games/talk-short-1')}.js"
    assert trace_file.read_text().startswith("ACCORD_BUNDLE.putGz(")
    served = json.loads(texts[trace_file.name])
    assert (
        served["events"]
        == read_trace(neg / "traces" / "talk-short-1.json").model_dump(mode="json")["events"]
    )
    # A published site names no directory of the machine that built it.
    assert not any(str(neg.parent) in text for text in texts.values())


def test_secrets_reach_no_file_of_the_site(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(VAR, KEY)
    run = tmp_path / "run"
    run_sync(
        [GameSpec(trace_id="t", game="calendar", seed=3, agents=[AgentSpec(agent="imap")] * 3)], run
    )
    path = run / "traces" / "t.json"
    data = json.loads(path.read_text())
    data["error"] = f"the server said: bad key {KEY}"  # as an echoing server might
    path.write_text(json.dumps(data))
    out = tmp_path / "site"
    write_bundle([run], out)
    texts = _payloads(out)
    assert any("[redacted:" in t for t in texts.values())
    for file in out.rglob("*"):
        if file.is_file():
            assert KEY.encode() not in file.read_bytes(), file
    assert not any(KEY in t for t in texts.values())


def test_max_sides_keeps_the_same_scenario_pairs_first(site, tmp_path: Path) -> None:
    neg, _, _ = site
    result = write_bundle([neg], tmp_path / "site", max_sides=4)
    assert result.sides == 4 and "8 of 12 side-by-side pages" in " ".join(result.left_out)
    saved = {p.name for p in (tmp_path / "site" / "data").glob("*.js")}
    same = [("short", "long"), ("long", "short")]
    for a, b in [(f"talk-{x}-{seed}", f"talk-{y}-{seed}") for x, y in same for seed in (1, 2)]:
        path = f"/api/side?a_run=neg&a_trace={a}&b_run=neg&b_trace={b}"
        assert f"{bundle_key(path)}.js" in saved
    other = "/api/side?a_run=neg&a_trace=talk-short-1&b_run=neg&b_trace=talk-short-2"
    assert f"{bundle_key(other)}.js" not in saved


def test_max_games_lists_every_game_but_bounds_the_pages(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run_sync(
        [
            GameSpec(
                trace_id=f"c{s}", game="calendar", seed=s, agents=[AgentSpec(agent="imap")] * 3
            )
            for s in (1, 2, 3)
        ],
        run,
    )
    result = write_bundle([run], tmp_path / "site", max_games=1, max_comparisons=0)
    assert (result.games, result.pages, result.comparisons) == (3, 1, 0)
    assert result.left_out == ["run run: pages for 2 of 3 games left out (--max-games 1)"]
    data = tmp_path / "site" / "data"
    assert (data / f"{bundle_key('/api/runs/run/games/c1')}.js").is_file()
    assert not (data / f"{bundle_key('/api/runs/run/games/c2')}.js").exists()
    rows = _answer(tmp_path / "site", "/api/runs/run/games")
    assert isinstance(rows, list)
    assert [r["trace_id"] for r in rows] == ["c1", "c2", "c3"]


def test_cli_bad_input_is_one_line_and_exit_2(site, tmp_path: Path) -> None:
    neg, _, _ = site
    runner = CliRunner()
    missing = runner.invoke(cli_app, ["view", "bundle", str(tmp_path / "nope"), "--out", "x"])
    said = " ".join(missing.output.split())
    assert missing.exit_code == 2 and "is not a directory" in said
    assert said.startswith("error:") and "accord view bundle runs/demo --out site/" in said
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    refused = runner.invoke(cli_app, ["view", "bundle", str(neg), "--out", str(busy)])
    assert refused.exit_code == 2 and "not empty" in " ".join(refused.output.split())
    assert [p.name for p in busy.iterdir()] == ["notes.txt"]  # nothing touched
    empty = runner.invoke(cli_app, ["view", "bundle", str(neg), "--out", " "])
    assert empty.exit_code == 2 and "--out is empty" in empty.output
    helped = runner.invoke(cli_app, ["view", "bundle", "--help"])
    assert helped.exit_code == 0 and "accord view bundle runs/demo" in helped.output
    # An earlier bundle may be rebuilt in place.
    again = tmp_path / "again"
    assert runner.invoke(cli_app, ["view", "bundle", str(neg), "--out", str(again)]).exit_code == 0
    rebuilt = runner.invoke(cli_app, ["view", "bundle", str(neg), "--out", str(again)])
    assert rebuilt.exit_code == 0, rebuilt.output
    assert "4 games" in rebuilt.output


# -- in a browser ------------------------------------------------------------------------


@pytest.fixture
def browser_page():
    playwright_api = pytest.importorskip("playwright.sync_api")
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed")
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        yield page, errors
        browser.close()


@pytest.fixture(scope="module")
def static_server(site) -> Iterator[str]:
    """The site on a plain static file server (no Accord), bound to 127.0.0.1."""
    handler = functools.partial(_QuietHandler, directory=str(site[2]))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def _visit(page, url: str) -> None:
    """Open `url` as a new document (not a change of its hash only)."""
    page.goto("about:blank")
    page.goto(url)


def _check_pages(page, base: str, neg: Path) -> dict[str, str]:
    """Walk the site's pages from `base`; returns each page's text for comparison."""
    seen = {}
    _visit(page, f"{base}#/")
    page.wait_for_selector("#compare-go")
    assert "neg" in page.inner_text("main") and CAL in page.inner_text("main")
    seen["runs"] = page.inner_text("main")

    _visit(page, f"{base}#/run/neg")
    page.wait_for_selector(".figures img")
    wait_until(
        page,
        "[...document.querySelectorAll('.figures img')].every((i) => i.complete && i.naturalWidth)",
    )
    page.wait_for_selector("text=talk-long-2")
    page.wait_for_selector("#reproduction img")
    wait_until(
        page,
        "[...document.querySelectorAll('main img')].every((i) => i.complete && i.naturalWidth > 0)",
    )
    wait_until(page, "!(document.querySelector('main')?.innerText ?? '').includes('Rating…')")
    seen["run"] = page.inner_text("main")
    assert "Beside the paper's." in seen["run"] and "mock/schema" in seen["run"]
    assert page.locator("main img").count() == 2

    trace = read_trace(neg / "traces" / "talk-short-1.json")
    _visit(page, f"{base}#/run/neg/game/talk-short-1")
    page.wait_for_selector(".transcript-col .call")
    text = page.inner_text("main")
    assert f"Events ({len(trace.events)})" in text
    calls = page.locator(".transcript-col .call").count()
    assert calls == trace.transcripts["A"].calls
    system = trace.transcripts["A"].messages[0]["content"]
    assert (
        page.locator(".transcript-col .call").first.locator(".msg-system pre").text_content()
        == system
    )
    seen["game"] = text

    calendar = read_trace(neg.parent / CAL / "traces" / "cal-2.json")
    _visit(page, f"{base}#/run/{quote(CAL, safe='')}/game/cal-2")
    page.wait_for_selector(f"text=Events ({len(calendar.events)})")
    seen["calendar"] = page.inner_text("main")

    # Two games of the same scenario stepped side by side, moved on with the arrow key.
    _visit(page, f"{base}#/run/neg/game/talk-short-1")
    page.wait_for_selector("#side-go")
    page.select_option("#side-with", "talk-long-1")
    page.click("#side-go")
    page.wait_for_selector("#side-a > *")
    page.wait_for_selector("#side-scenario")
    assert "Same scenario" in page.inner_text("#side-scenario")
    first = page.inner_text("#side-b-step")
    page.keyboard.press("ArrowRight")
    wait_until(page, "(t) => document.querySelector('#side-b-step').innerText !== t", first)
    seen["side"] = page.inner_text("main")
    assert "Metrics (B − A)" in seen["side"]

    _visit(page, f"{base}#/compare/neg/short/neg/long")
    page.wait_for_selector("#compare-mode")
    seen["compare"] = page.inner_text("main")
    assert "short" in seen["compare"] and "long" in seen["compare"]
    return seen


def test_site_opens_from_the_file_system(site, browser_page) -> None:
    neg, _, out = site
    page, errors = browser_page
    seen = _check_pages(page, (out / "index.html").as_uri(), neg)
    # A page left out of the site says so, instead of loading forever.
    page.goto(f"{(out / 'index.html').as_uri()}#/run/neg/game/no-such-game")
    page.wait_for_selector("text=not part of this static site")
    assert not errors, errors
    assert "neg" in seen["runs"]


def test_site_from_a_static_server_shows_what_accord_serve_shows(
    site, static_server, browser_page
) -> None:
    neg, cal, _ = site
    page, errors = browser_page
    bundled = _check_pages(page, static_server, neg)
    with serving(create_app([neg, cal])) as url:
        served = _check_pages(page, f"{url}/", neg)
    assert not errors, errors
    # The pages are the same, but for the one thing a published site leaves out: the run's
    # directory on this machine shows as the folder's name.
    assert str(neg) in served["runs"] and str(neg) not in bundled["runs"]
    for name in ("runs", "run", "game", "calendar", "side", "compare"):
        local = served[name].replace(str(neg), "neg").replace(str(cal), CAL)
        assert bundled[name] == local, name


def test_write_bundle_works_inside_a_running_event_loop(site, tmp_path: Path) -> None:
    """As from a notebook, whose code runs inside an event loop."""
    neg, _, _ = site

    async def inside() -> int:
        return write_bundle([neg], tmp_path / "site", max_comparisons=0).pages

    assert asyncio.run(inside()) == 4
    marker = json.loads((tmp_path / "site" / MARKER).read_text())
    assert marker["complete"] is True and marker["runs"] == ["neg"]


def test_a_route_another_feature_adds_is_bundled_too(site, tmp_path: Path, monkeypatch) -> None:
    """Per-game views and the like add API routes; the bundle asks every one it can fill."""
    import accord.web.bundle as bundle_module

    neg, _, _ = site

    def with_more_routes(dirs: list[Path]) -> FastAPI:
        app = create_app(dirs)

        @app.get("/api/runs/{run_id}/games/{trace_id}/steps")
        def steps(run_id: str, trace_id: str) -> dict[str, str]:
            return {"run": run_id, "trace": trace_id}

        @app.get("/api/games/{game_id}/legend")
        def legend(game_id: str) -> dict[str, str]:
            return {"game": game_id}

        @app.get("/api/runs/{run_id}/pairs/{other}")
        def pairs(run_id: str, other: str) -> dict[str, str]:
            return {}

        return app

    monkeypatch.setattr(bundle_module, "create_app", with_more_routes)
    out = tmp_path / "site"
    result = write_bundle([neg], out, max_comparisons=0)
    texts = _payloads(out)
    steps = _answer(out, "/api/runs/neg/games/talk-long-1/steps")
    assert steps == {"run": "neg", "trace": "talk-long-1"}
    assert f"{bundle_key('/api/games/negotiation-v3/legend')}.js" in texts
    assert _answer(out, "/api/games/calendar-v2/legend") == {"game": "calendar-v2"}
    assert "/api/runs/{run_id}/pairs/{other} (its parameters are not known to the bundle)" in (
        result.left_out
    )


HOSTILE = '</script><script>window.PWNED=1</script><img src=x onerror="window.PWNED=2">'


@pytest.fixture
def hostile_site(tmp_path: Path) -> Path:
    """A site of one game whose error holds markup (made before the browser starts: the
    sync Playwright API holds an event loop of its own)."""
    run = tmp_path / "run"
    run_sync(
        [GameSpec(trace_id="t", game="calendar", seed=5, agents=[AgentSpec(agent="imap")] * 3)],
        run,
    )
    path = run / "traces" / "t.json"
    data = json.loads(path.read_text())
    data["error"] = HOSTILE
    path.write_text(json.dumps(data))
    out = tmp_path / "site"
    write_bundle([run], out)
    return out


def test_markup_in_a_trace_stays_text_in_the_site(hostile_site: Path, browser_page) -> None:
    """Trace text is model output: in the site, as in the view, it is shown, never run."""
    scripts = [f.read_text() for f in (hostile_site / "data").glob("*.js")]
    assert not any("</script>" in text for text in scripts)  # "<" escaped in every payload
    assert any("\\u003c/script>" in text for text in scripts)  # the games table holds it
    page, errors = browser_page
    _visit(page, f"{(hostile_site / 'index.html').as_uri()}#/run/run/game/t")
    page.wait_for_selector(".error")
    assert HOSTILE in page.locator(".error").first.inner_text()
    assert page.evaluate("window.PWNED") is None
    assert not errors, errors
