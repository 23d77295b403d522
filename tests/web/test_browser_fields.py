"""A game from another package plays in the browser with the controls it declares as fields
(`accord.core.controls.fields_form`): the page draws them with no code of its own for the
game. The game is the one `accord new game` writes, imported from a temporary folder and
registered in this process; a person plays a whole game against the mock model in headless
Chromium (Debian's ``chromium``, via Playwright)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from accord.core import controls, plugins, registry
from accord.core.errors import ActionError
from accord.core.registry import make
from accord.scaffold import check_name, write_skeleton
from accord.testing.webserver import CHROMIUM, CHROMIUM_ARGS, serving
from accord.traces.io import iter_traces
from accord.web.app import create_app
from accord.web.play import PlayHub

STEP_MS = 30_000


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The scaffolded game's module, its game registered here (and forgotten afterwards)."""
    names = check_name("pick_fields")
    folder = tmp_path_factory.mktemp("new") / "pick_fields"
    write_skeleton(names, folder)
    sys.path.insert(0, str(folder / "src"))
    module = importlib.import_module("pick_fields")
    registry.register(module.INFO)  # its declaration: agents, human seat, browser controls
    yield module
    registry._FROM_CODE.pop(names.game_id, None)
    controls._CONTROLS.pop(names.game_id, None)
    sys.path.remove(str(folder / "src"))
    for name in [m for m in sys.modules if m.split(".")[0] == "pick_fields"]:
        del sys.modules[name]
    plugins.refresh()


def test_the_scaffold_declares_fields_that_build_the_models_reply(scaffolded: Any) -> None:
    game = make("pick_fields-v1", {})
    game.reset(3)
    request = game.pending()[0]
    declared = controls.play_controls("pick_fields-v1")
    assert declared is not None
    form = declared.form(request)
    assert form["game"] == controls.FIELDS
    (pick,) = [f for f in form["fields"] if f["kind"] == "choice"]
    values = request.info["values"]
    assert [o["value"] for o in pick["options"]] == list(range(len(values)))
    assert all(
        f"worth {v} to you" in o["text"] for o, v in zip(pick["options"], values, strict=True)
    )
    assert declared.build(request, {"choice": 2}) == {"choice": 2}
    for bad, message in (({}, "pick one option"), ({"choice": 99}, "options shown")):
        with pytest.raises(ActionError, match=message):
            declared.build(request, bad)


def test_read_fields_checks_each_kind_against_its_declaration() -> None:
    fields = [
        controls.number("n", "How many", minimum=1, maximum=5),
        controls.text("t", "Message", max_chars=4),
        controls.check("c", "Decide now"),
        controls.note("just text"),
    ]
    assert controls.read_fields(fields, {"n": 3, "t": "hi", "c": 1}) == {
        "n": 3,
        "t": "hi",
        "c": True,
    }
    assert controls.read_fields(fields, {}) == {"n": None, "t": "", "c": False}
    for values, message in (
        ({"n": 0}, "How many: give 1 or more"),
        ({"n": 6}, "How many: give 5 or less"),
        ({"n": "2"}, "whole number"),
        ({"t": "hello"}, "at most 4 characters"),
    ):
        with pytest.raises(ActionError, match=message):
            controls.read_fields(fields, values)
    with pytest.raises(ValueError, match="differ"):
        controls.fields_form([controls.check("a", "x"), controls.text("a", "y")])


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
def test_a_person_plays_the_scaffolded_game_with_its_declared_fields(
    scaffolded: Any, tmp_path: Path
) -> None:
    playwright_api = pytest.importorskip("playwright.sync_api")
    hub = PlayHub(tmp_path / "play")
    table = hub.create("pick_fields-v1", ["human", "mock/schema"], seed=5)
    token = table.channels[0].token
    moves = 0
    with serving(create_app([], play=hub)) as url, playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{url}/#/seat/{token}")
        while True:
            page.wait_for_selector("#answer-form, #game-over", timeout=STEP_MS)
            if page.locator("#game-over").count():
                break
            form = page.locator("#answer-form")
            request_id = form.get_attribute("data-id")
            assert form.get_attribute("data-controls") == "fields"
            assert not form.locator("textarea, [aria-label='thinking']").count()
            radios = form.locator("input[type=radio]")
            assert radios.count() == 4  # the game's default: four options
            assert "worth" in form.inner_text() and "to you" in form.inner_text()
            # Checked as it is typed: nothing picked yet is not a valid answer.
            page.wait_for_selector('#answer-check[data-state="invalid"]', timeout=STEP_MS)
            assert "pick one option" in page.locator("#answer-check").inner_text()
            if moves == 0:
                page.screenshot(path=str(tmp_path / "fields.png"))
            radios.nth(moves % 4).check()
            page.wait_for_selector('#answer-check[data-state="ok"]', timeout=STEP_MS)
            page.click("#answer-submit")
            page.wait_for_function(
                "(id) => { const f = document.querySelector('#answer-form');"
                " return !f || f.dataset.id !== id; }",
                arg=request_id,
                timeout=STEP_MS,
            )
            moves += 1
        browser.close()
    assert moves >= 1
    (trace,) = iter_traces(tmp_path / "play" / "traces")
    assert trace.status == "complete", trace.error
    picks = [e for e in trace.events if e["type"] == "human_action"]
    assert len(picks) == moves
