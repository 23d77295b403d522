"""People and live runs in a real headless Chromium (Debian's ``chromium``, via Playwright).

- two browser contexts (two people) play a whole negotiation against each other, from the
  lobby's seat links to the end, with the game's own controls (quantities within the budget,
  a message, a reflection), checked as they type;
- one browser plays a calendar seat against two reference agents (IMAP) with the calendar
  controls (messages, the meeting's slot picked on their own calendar);
- a run in progress: its page shows a game's events before the game ends.

Screenshots go to ``runs/screenshots`` (``lobby``, ``seat``, ``seat-calendar``, ``live-run``,
``live``).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from accord.core.registry import make
from accord.runner.live import LIVE_DIR
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.testing.webserver import CHROMIUM, CHROMIUM_ARGS, serving
from accord.traces.io import read_trace
from accord.web.app import create_app
from accord.web.play import PlayHub

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")

SHOTS = Path("runs") / "screenshots"
STEP_MS = 30_000


def _new_table(
    page: Any, url: str, key: str, game: str, seats: list[str], options: str, seed: int = 7
) -> list[str]:
    """Set up a table in the lobby; the seat links of its people, in seat order."""
    page.goto(f"{url}/#/play/{key}")
    page.wait_for_selector("#play-create")
    page.select_option("#play-game", game)
    page.fill("#play-seed", str(seed))
    for i, who in enumerate(seats):
        page.select_option(f"#seat-{i}", who)
    page.click("#play-seats + details summary")
    page.fill("#play-options", options)
    page.click("#play-create")
    page.wait_for_selector(".seat-link")
    assert page.locator("#play-error").inner_text() == ""
    links = [a.get_attribute("href") for a in page.locator(".seat-link").all()]
    # The same links, in boxes to copy and send.
    assert [box.input_value() for box in page.locator(".seat-url").all()] == links
    return links


def _answered(page: Any, request_id: str) -> None:
    """Wait until the open request is gone (answered) or refused (then fail with why)."""
    page.wait_for_function(
        """(id) => {
            const err = document.querySelector('#answer-error');
            if (err && err.textContent) return true;
            const form = document.querySelector('#answer-form');
            return !form || form.dataset.id !== id;
        }""",
        arg=request_id,
        timeout=STEP_MS,
    )


def _error(page: Any) -> str:
    err = page.locator("#answer-error")
    return err.inner_text() if err.count() else ""


def _no_model_format(form: Any) -> None:
    """A person is never asked for the model's reply format."""
    assert not form.locator('[aria-label="thinking"], [aria-label="answer as JSON"]').count()
    assert not form.locator("#answer-raw").count()


def _send_when_valid(page: Any, request_id: str) -> None:
    """Wait for the as-you-type check to pass, then send."""
    page.wait_for_selector('#answer-check[data-state="ok"]', timeout=STEP_MS)
    page.click("#answer-submit")
    _answered(page, request_id)
    assert _error(page) == "", _error(page)


def _fits_a_phone(page: Any, name: str) -> None:
    """At a phone-sized width the seat page, controls included, needs no sideways scroll."""
    size = page.viewport_size
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(SHOTS / f"{name}-phone.png"), full_page=True)
    wide = page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
    page.set_viewport_size(size)
    assert wide <= 0, f"{name}: {wide} px of horizontal scroll at phone width"


def _negotiation_move(page: Any, who: str, seen: set[str]) -> bool:
    """Answer the open request with the negotiation controls, if there is one."""
    form = page.locator("#answer-form")
    if page.locator("#game-over").count() or not form.count():
        return False
    request_id = form.get_attribute("data-id")
    kind = form.get_attribute("data-kind")
    assert form.get_attribute("data-controls") == "negotiation"
    _no_model_format(form)
    if kind == "reflect":
        form.locator('textarea[aria-label="reflection"]').fill(f"{who}: we split fairly")
        _send_when_valid(page, request_id)
        seen.add(kind)
        return True
    if kind == "talk" and "toggled" not in seen:
        # Talk may carry a decision: the quantities open only once "decide now" is ticked.
        seen.add("toggled")
        first = form.locator("#neg-market input[type=number]").first
        assert first.is_disabled()
        form.locator("#neg-decide").check()
        assert (
            first.is_enabled()
            and "Cost 0 of your budget" in form.locator("#neg-budget").inner_text()
        )
        form.locator("#neg-decide").uncheck()
        assert first.is_disabled()
    speech = form.locator("#neg-speech")
    if speech.count() and speech.is_enabled():
        speech.fill(f"{who} here: shall we split [fairly]?")
    if kind == "decide":
        boxes = form.locator("#neg-market input[type=number]")
        cells = form.locator("#neg-market tbody td:nth-child(2)").all_inner_texts()
        costs = [float(c) for c in cells]
        cheap = costs.index(min(costs))
        if "over" not in seen:
            # Over the budget: the cost line and the check say so as it is typed.
            seen.add("over")
            boxes.nth(cheap).fill("99")
            page.wait_for_selector('#answer-check[data-state="invalid"]', timeout=STEP_MS)
            assert "exceeds your budget" in page.locator("#answer-check").inner_text()
            assert page.locator("#neg-budget").get_attribute("class") == "error"
        boxes.nth(cheap).fill("4")
        assert page.locator("#neg-budget").get_attribute("class") == "muted"
        if who == "A" and "shot" not in seen:
            seen.add("shot")
            page.wait_for_selector('#answer-check[data-state="ok"]', timeout=STEP_MS)
            page.locator("#request").screenshot(path=str(SHOTS / "play-negotiation-decide.png"))
            # The same seat opened on a phone (a second page of a seat shows the same feed).
            phone = page.context.new_page()
            phone.set_viewport_size({"width": 390, "height": 844})
            phone.goto(page.url)
            phone.wait_for_selector("#neg-market", timeout=STEP_MS)
            _fits_a_phone(phone, "play-negotiation")
            phone.close()
        line = page.locator("#neg-budget").inner_text()
        assert f"Cost {4 * costs[cheap]:g} of your budget" in line
    _send_when_valid(page, request_id)
    seen.add(kind)
    return True


def test_two_people_play_a_whole_negotiation_in_two_browsers(tmp_path: Path) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    hub = PlayHub(tmp_path / "humans")
    with serving(create_app([], play=hub)) as url, playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        errors: list[str] = []
        lobby = browser.new_context(viewport={"width": 1300, "height": 900}).new_page()
        lobby.on("pageerror", lambda exc: errors.append(str(exc)))
        links = _new_table(
            lobby,
            url,
            hub.lobby_key,
            "negotiation-v3",
            ["human", "human"],
            '{"rounds": 2, "talk_turns": 1}',
        )
        assert len(links) == 2
        pages = []
        for link in links:  # one browser context each: separate people, nothing shared
            page = browser.new_context(viewport={"width": 1300, "height": 900}).new_page()
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(link)
            pages.append(page)
        pages[0].wait_for_selector("#answer-form", timeout=STEP_MS)
        assert "--- CHEAP TALK" in pages[0].locator("#observation").text_content()
        # The game's own view of the seat, above the controls: the market and A's projects.
        view = pages[0].locator("#seat-view")
        assert view.bounding_box()["y"] < pages[0].locator("#answer-form").bounding_box()["y"]
        own_view = view.inner_text()
        assert "The market" in own_view and "Your projects" in own_view
        pages[0].screenshot(path=str(SHOTS / "seat.png"))
        seen: list[set[str]] = [set(), set()]
        deadline = time.monotonic() + 120
        while not all(pg.locator("#game-over").count() for pg in pages):
            assert time.monotonic() < deadline, "the game did not end"
            moved = [
                _negotiation_move(pg, who, done)
                for pg, who, done in zip(pages, "AB", seen, strict=True)
            ]
            if not any(moved):
                time.sleep(0.1)
        # B read A's speech as it arrived, under A's name.
        pages[1].wait_for_selector("#messages li")
        assert "A here: shall we split [fairly]?" in pages[1].locator("#messages").inner_text()
        assert "(complete)" in pages[0].locator("#game-over").inner_text()
        pages[0].wait_for_selector("#seat-result table")
        lobby.wait_for_selector(".table-card .status-complete", timeout=STEP_MS)
        lobby.screenshot(path=str(SHOTS / "lobby.png"), full_page=True)
        # Once it is over, the whole game (every seat) opens in the replay view.
        pages[0].click("#seat-replay")
        pages[0].wait_for_selector(".rv-scrubber", timeout=STEP_MS)
        browser.close()
    assert errors == []
    table = next(iter(hub.tables.values()))
    trace = read_trace(tmp_path / "humans" / "traces" / f"{table.spec.trace_id}.json")
    assert trace.status == "complete" and [s.agent for s in trace.seats] == ["human", "human"]
    # The seat's view showed its own projects, never the partner's.
    first = trace.scenario["scenarios"][0]["agents"]
    mine, theirs = ({p["name"] for p in first[i]} for i in (0, 1))
    assert all(name in own_view for name in mine)
    assert not [name for name in theirs - mine if name in own_view]
    said = [e["speech"] for e in trace.events if e["type"] == "message"]
    assert "A here: shall we split [fairly]?" in said and "B here: shall we split [fairly]?" in said
    assert {e["seat"] for e in trace.events if e["type"] == "human_action"} == {0, 1}
    assert not [e for e in trace.events if e["type"] == "heuristic_fallback"]
    assert all({"talk", "decide", "reflect", "over", "toggled"} <= done for done in seen)
    assert "shot" in seen[0]
    # What the people entered is what the game recorded: 4 of the cheapest resource each.
    market = make("negotiation", {}).config.market  # type: ignore[attr-defined]
    cheap = min(market.costs, key=market.costs.__getitem__)
    decisions = [e for e in trace.events if e["type"] == "decision"]
    assert len(decisions) == 4 and all(e["purchase"] == {cheap: 4} for e in decisions)
    # The refused over-budget answer was checked as typed, never sent.
    assert not [e for e in trace.events if e["type"] == "validation_error"]


def _calendar_move(page: Any, done: dict[str, Any]) -> bool:
    """With the calendar controls: the first talk, a DM; the first decision, the meeting in
    the first free slot (or not scheduled if the rules refuse it); otherwise pass."""
    form = page.locator("#answer-form")
    if page.locator("#game-over").count() or not form.count():
        return False
    request_id = form.get_attribute("data-id")
    kind = form.get_attribute("data-kind")
    assert form.get_attribute("data-controls") == "calendar"
    _no_model_format(form)
    first = kind not in done
    done.setdefault(kind, None)
    if first and kind == "talk":
        form.locator("#cal-messages select").first.select_option(index=0)
        box = form.locator('#cal-messages textarea[aria-label="message"]').first
        box.fill("x" * 5)
        assert "5/400" in form.locator("#cal-messages li").first.inner_text()
        box.fill("Slot 0 suits my user [ok]")
        page.wait_for_selector('#answer-check[data-state="ok"]', timeout=STEP_MS)
        page.locator("#request").screenshot(path=str(SHOTS / "play-calendar-talk.png"))
    elif first and kind == "decide":
        free = form.locator("#cal-slots tr.slot-free")
        slot = free.first.get_attribute("data-slot")
        free.first.locator('input[type="radio"]').check()
        done["decide"] = int(slot)
        page.wait_for_selector('#answer-check[data-state="ok"]', timeout=STEP_MS)
        page.locator("#request").screenshot(path=str(SHOTS / "play-calendar-decide.png"))
        _fits_a_phone(page, "play-calendar")
    _send_when_valid(page, request_id)
    return True


def test_one_person_plays_a_calendar_seat_against_reference_agents(tmp_path: Path) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    hub = PlayHub(tmp_path / "humans")
    with serving(create_app([], play=hub)) as url, playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        errors: list[str] = []
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        # The last seat: IMAP's initiators write to it, so DMs arrive while it plays.
        links = _new_table(page, url, hub.lobby_key, "calendar-v2", ["imap", "imap", "human"], "")
        assert len(links) == 1
        page.goto(links[0])
        page.wait_for_selector("#answer-form", timeout=STEP_MS)
        briefing = page.locator("#briefing").inner_text()
        assert "calendar assistant" in briefing
        assert "Slot 0:" in page.locator("#observation").text_content()
        done: dict[str, Any] = {}
        deadline = time.monotonic() + 180
        shot = False
        while not page.locator("#game-over").count():
            assert time.monotonic() < deadline, "the game did not end"
            if not _calendar_move(page, done):
                time.sleep(0.1)
            elif not shot and page.locator("#messages li").count():
                page.screenshot(path=str(SHOTS / "seat-calendar.png"))
                shot = True
        assert "(complete)" in page.locator("#game-over").inner_text()
        received = page.locator("#messages li").count()
        browser.close()
    assert errors == []
    table = next(iter(hub.tables.values()))
    trace = read_trace(tmp_path / "humans" / "traces" / f"{table.spec.trace_id}.json")
    assert trace.status == "complete"
    assert [s.agent for s in trace.seats] == ["imap", "imap", "human"]
    mine = [e for e in trace.events if e["type"] == "dm_sent" and e["sender"] == 2]
    assert mine and mine[0]["content"] == "Slot 0 suits my user [ok]"
    to_me = [e for e in trace.events if e["type"] == "dm_sent" and 2 in e["recipients"]]
    assert to_me and received == len(to_me)  # every DM to this seat, and nothing else
    assert "decide" in done and "talk" in done
    # The slot picked in the browser is the slot the game was asked for.
    staged = [e for e in trace.events if e["type"] in ("batch_staged", "batch_rejected")]
    mine = [e for e in staged if e["agent"] == 2 and e.get("actions")]
    assert mine and mine[0]["actions"][0]["slot"] == done["decide"], staged


def test_a_live_run_page_shows_a_games_events_before_it_ends(tmp_path: Path) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    out = tmp_path / "live"
    slow = AgentSpec(model="mock/schema", options={"latency_s": 0.4})
    spec = GameSpec(
        trace_id="slow-game",
        game="negotiation",
        options={"rounds": 3},
        seed=1,
        agents=[slow, AgentSpec(agent="greedy")],
    )
    (out / "traces").mkdir(parents=True)
    runner = threading.Thread(target=run_sync, args=([spec], out), daemon=True)
    with serving(create_app([out])) as url, playwright_api.sync_playwright() as p:
        runner.start()
        deadline = time.monotonic() + 30
        while not (out / LIVE_DIR / "slow-game.jsonl").exists():
            assert time.monotonic() < deadline, "the run did not start"
            time.sleep(0.05)
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{url}/#/run/live")
        page.wait_for_selector("#run-state")
        assert page.locator("#run-state").inner_text() == "running"
        # The progress line follows the run as it goes (the stream updates it).
        page.wait_for_function(
            "() => document.querySelector('#run-progress-line')"
            ".textContent.includes('in flight 1')",
            timeout=STEP_MS,
        )
        page.wait_for_selector(".status-playing")
        page.screenshot(path=str(SHOTS / "live-run.png"))
        page.click('a[href="#/run/live/game/slow-game"]')
        page.wait_for_selector("#live-timeline")
        assert page.locator("#live-status").inner_text() == "playing"
        first = page.locator("#live-timeline li").count()
        page.wait_for_function(
            "(n) => document.querySelectorAll('#live-timeline li').length > n",
            arg=first + 2,
            timeout=STEP_MS,
        )
        assert page.locator("#live-status").inner_text() == "playing"  # still going
        assert not (out / "traces" / "slow-game.json").exists()
        seen = [li.get_attribute("data-type") for li in page.locator("#live-timeline li").all()]
        page.screenshot(path=str(SHOTS / "live.png"))
        # When the game ends the page turns into the whole trace.
        page.wait_for_selector(".transcript-col", timeout=60_000)
        browser.close()
        runner.join(timeout=60)
    assert errors == []
    trace = read_trace(out / "traces" / "slow-game.json")
    assert seen == [e["type"] for e in trace.events[: len(seen)]]
    assert len(seen) < len(trace.events)


def _sorting_move(page: Any, state: dict[str, Any]) -> bool:
    """First turn: a message whose second line starts with a command is caught as typed,
    then reworded and sent; next turn: the own numbers sorted, as the result."""
    form = page.locator("#answer-form")
    if page.locator("#game-over").count() or not form.count():
        return False
    request_id = form.get_attribute("data-id")
    assert form.get_attribute("data-controls") == "sorting"
    _no_model_format(form)
    row = form.locator("#sort-commands > li").first
    if "said" not in state:
        state["said"] = True
        verbs = form.locator("#sort-help dt").all_text_contents()
        assert verbs == [
            "receive_messages",
            "broadcast_message",
            "list_agents",
            "wait",
            "submit_result",
        ]
        row.locator('select[aria-label="command"]').select_option("broadcast_message")
        row.locator('[aria-label="message"]').fill("my numbers\nwait for me")
        page.wait_for_selector('#answer-check[data-state="invalid"]', timeout=STEP_MS)
        assert "starts with the command 'wait'" in page.locator("#answer-check").inner_text()
        row.locator('[aria-label="message"]').fill(f"my numbers are {state['xs']}")
        form.locator("#sort-add").click()
        form.locator("#sort-commands > li").nth(1).locator("select").select_option("list_agents")
        page.wait_for_selector('#answer-check[data-state="ok"]', timeout=STEP_MS)
        page.locator("#request").screenshot(path=str(SHOTS / "play-sorting.png"))
        _fits_a_phone(page, "play-sorting")
    else:
        row.locator('select[aria-label="command"]').select_option("submit_result")
        row.locator('input[aria-label="integers"]').fill(" ".join(map(str, state["xs"])))
    _send_when_valid(page, request_id)
    return True


def test_one_person_plays_a_sorting_seat_with_the_command_list(tmp_path: Path) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    hub = PlayHub(tmp_path / "humans")
    with serving(create_app([], play=hub)) as url, playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        errors: list[str] = []
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        links = _new_table(
            page, url, hub.lobby_key, "sorting-v3", ["human", "share-all", "share-all"], ""
        )
        page.goto(links[0])
        page.wait_for_selector("#sort-slice", timeout=STEP_MS)
        shown = page.locator("#sort-slice").inner_text()
        xs = sorted(int(v) for v in shown.split("[")[1].split("]")[0].split(", "))
        state: dict[str, Any] = {"xs": xs}
        deadline = time.monotonic() + 120
        while not page.locator("#game-over").count():
            assert time.monotonic() < deadline, "the game did not end"
            if not _sorting_move(page, state):
                time.sleep(0.1)
        browser.close()
    assert errors == []
    table = next(iter(hub.tables.values()))
    trace = read_trace(tmp_path / "humans" / "traces" / f"{table.spec.trace_id}.json")
    assert trace.status == "complete"
    mine = [e for e in trace.events if e["type"] == "turn" and e["seat"] == 0]
    ran = [c["command"] for e in mine for c in e["commands"]]
    assert ran[:2] == [f"broadcast_message my numbers are {xs}", "list_agents"], mine
    assert all(c["ok"] for c in mine[0]["commands"])
    submitted = [e for e in trace.events if e["type"] == "submission" and e["seat"] == 0]
    assert submitted and submitted[0]["values"] == xs


def test_a_game_without_controls_gets_a_schema_form_without_thinking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game that declares no controls: a form from the reply's schema, the model's private
    `thinking` left out (sent empty) and no box to type JSON into."""
    from accord.web import play as play_module

    monkeypatch.setattr(play_module, "play_controls", lambda game_id: None)
    hub = PlayHub(tmp_path / "humans")
    with serving(create_app([], play=hub)) as url, playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        errors: list[str] = []
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        options = '{"rounds": 1, "talk_turns": 1, "reflection": false}'
        links = _new_table(page, url, hub.lobby_key, "negotiation-v3", ["human", "greedy"], options)
        page.goto(links[0])
        deadline = time.monotonic() + 60
        while not page.locator("#game-over").count():
            assert time.monotonic() < deadline, "the game did not end"
            form = page.locator("#answer-form")
            if not form.count():
                time.sleep(0.1)
                continue
            assert form.get_attribute("data-controls") == "schema"
            _no_model_format(form)
            assert form.locator(".form-row > label").all_inner_texts()[:2] == ["speech", "action"]
            request_id = form.get_attribute("data-id")
            form.locator('textarea[aria-label="speech"]').fill("A here")
            pick = form.locator('select[aria-label="action: kind"]')
            labels = pick.locator("option").all_inner_texts()
            if form.get_attribute("data-kind") == "talk" and "none" in labels:
                pick.select_option(label="none")
            else:
                pick.select_option(index=0)
                for box in form.locator('input[type="number"]').all():
                    box.fill("1")
            page.click("#answer-submit")
            _answered(page, request_id)
            assert _error(page) == "", _error(page)
        browser.close()
    assert errors == []
    table = next(iter(hub.tables.values()))
    trace = read_trace(tmp_path / "humans" / "traces" / f"{table.spec.trace_id}.json")
    assert trace.status == "complete"
    mine = [e for e in trace.events if e["type"] == "message" and e["seat"] == 0]
    assert mine and all(e["speech"] == "A here" and e["thinking"] == "" for e in mine)
