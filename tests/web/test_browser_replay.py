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
            GameSpec(
                trace_id="mock", game="negotiation", options=options, seed=4, agents=[model, model]
            ),
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
            [...tr.querySelectorAll('td')].map((td) =>
                td.firstChild ? td.firstChild.textContent : ''))""",
    )


def goto_step(page: Any, url: str, trace_id: str, step: int) -> None:
    page.goto(f"{url}/#/run/demo/game/{trace_id}/step/{step}")
    page.wait_for_selector(f'#replay-view[data-step="{step}"]')


def shoot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#replay").screenshot(path=str(SHOTS / f"{name}.png"))


def no_horizontal_scroll(page: Any) -> bool:
    return bool(
        page.evaluate(
            "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
        )
    )


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


def cell_classes(page: Any, row: int, col: int) -> str:
    return page.eval_on_selector(
        "#replay-view .rv-grid",
        f"(g) => g.querySelectorAll('tbody tr')[{row}].querySelectorAll('td')[{col}].className",
    )


def calendar_texts(calendars: list[list[dict[str, Any] | None]]) -> list[list[str]]:
    """What the calendar view writes in each cell of these calendars."""
    out = []
    for cal in calendars:
        row = []
        for item in cal:
            if item is None:
                row.append("")
            elif item["kind"] == "meeting":
                row.append(f"M{item['id']} ·{item['cost']}")
            else:
                row.append(f"#{item['id']} ·{item['cost']}")
        out.append(row)
    return out


def test_calendar_replay_follows_the_trace(served, browser) -> None:
    url, traces = served
    trace = read_trace(traces / "cal.json")
    events = trace.events
    page, errors = new_page(browser)

    # Step 0: the scenario's calendars, nothing placed yet.
    goto_step(page, url, "cal", 0)
    assert grid_texts(page) == calendar_texts(trace.scenario["calendars"])
    talk = next(i for i, e in enumerate(events) if e["type"] == "dm_sent")
    goto_step(page, url, "cal", talk)
    assert f"Round {events[talk]['round']}" in page.inner_text(".rv-title")
    assert page.inner_text("#replay-view .rv-msg.current .bubble") == events[talk]["content"]
    shoot(page, "calendar-1-talk")

    # The first committed batch with a move: the moved entry sits at its new slot, marked.
    moved = next(
        i
        for i, e in enumerate(events)
        if e["type"] == "batch_applied" and any(a["type"] == "reschedule" for a in e["actions"])
    )
    ev = events[moved]
    move = next(a for a in ev["actions"] if a["type"] == "reschedule")
    goto_step(page, url, "cal", moved)
    texts = grid_texts(page)
    assert texts[ev["agent"]][move["to_slot"]].startswith(f"#{move['item_id']} ·")
    assert "tone-moved" in cell_classes(page, ev["agent"], move["to_slot"])
    place = next(a for a in ev["actions"] if a["type"] == "schedule")
    assert texts[ev["agent"]][place["slot"]].startswith(f"M{place['meeting_id']} ·")
    # The oracle's optimal schedule, switched on as an overlay.
    page.check("#rv-overlay")
    optimal = trace.scenario["oracle"]["optimal_assignment"]
    meetings = {m["id"]: m["participants"] for m in trace.scenario["meetings"]}
    marked = page.eval_on_selector(
        "#replay-view .rv-grid",
        """(g) => [...g.querySelectorAll('tbody tr')].map((tr) =>
            [...tr.querySelectorAll('td')].map((td) => td.dataset.overlay || ''))""",
    )
    for mid, slot in optimal.items():
        for agent in meetings[int(mid)]:
            assert marked[agent][slot] == f"M{mid}"
    assert sum(1 for row in marked for m in row if m) == sum(len(meetings[int(m)]) for m in optimal)
    assert page.locator("#replay-view .rv-overlay").first.is_visible()
    shoot(page, "calendar-2-move-with-oracle")
    # The check box just ticked holds the focus: the arrow keys still move the scrubber.
    assert page.evaluate("document.activeElement.id") == "rv-overlay"
    page.keyboard.press("ArrowRight")
    page.wait_for_selector(f'#replay-view[data-step="{moved + 1}"]')
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector(f'#replay-view[data-step="{moved}"]')

    # Buttons and arrow keys step; the address and the timeline follow.
    page.click("#rv-next")
    page.wait_for_selector(f'#replay-view[data-step="{moved + 1}"]')
    assert page.url.endswith(f"/game/cal/step/{moved + 1}")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector(f'#replay-view[data-step="{moved}"]')
    assert page.get_attribute(".events-col .ev.current", "data-step") == str(moved)
    assert page.url.endswith(f"/step/{moved}")

    # The last step: exactly the final state's calendars.
    page.keyboard.press("End")
    last = len(events) - 1
    page.wait_for_selector(f'#replay-view[data-step="{last}"]')
    assert grid_texts(page) == calendar_texts(trace.final_state["calendars"])
    shoot(page, "calendar-3-end")
    assert errors == []


def test_negotiation_replay_shows_purchases_overdraw_and_rewards(served, browser) -> None:
    url, traces = served
    trace = read_trace(traces / "neg.json")
    events = trace.events
    market = trace.scenario["market"]
    resources = sorted(market["supply"])
    page, errors = new_page(browser)

    talk = next(i for i, e in enumerate(events) if e["type"] == "message")
    goto_step(page, url, "neg", talk)
    assert page.inner_text("#replay-view .rv-msg.current .bubble") == events[talk]["speech"]
    # Nobody has decided yet: no purchase is shown.
    assert grid_texts(page)[1] == ["…"] * (len(resources) + 1)
    shoot(page, "negotiation-1-talk")

    decided = next(i for i, e in enumerate(events) if e["type"] == "decision")
    goto_step(page, url, "neg", decided)
    seat = events[decided]["seat"]
    bought = events[decided]["purchase"]
    assert grid_texts(page)[1 + seat][: len(resources)] == [
        str(bought.get(r, 0)) for r in resources
    ]
    assert grid_texts(page)[2 - seat][0] == "…"  # the other side has not decided yet
    shoot(page, "negotiation-2-decision")

    results = [i for i, e in enumerate(events) if e["type"] == "round_result"]
    assert any(events[i]["annulled"] for i in results)  # the golden game has an overdraw
    for i in results:
        ev = events[i]
        goto_step(page, url, "neg", i)
        rows = grid_texts(page)
        for side in (0, 1):
            assert rows[1 + side][: len(resources)] == [
                str(ev["purchases"][side].get(r, 0)) for r in resources
            ]
        for k, r in enumerate(resources):
            total = sum(p.get(r, 0) for p in ev["purchases"])
            assert rows[3][k] == str(total)
            over = "tone-bad" in cell_classes(page, 3, k)
            assert over == (total > market["supply"][r])
        facts = dict(
            zip(
                page.locator("#replay-view .rv-facts dt").all_inner_texts(),
                page.locator("#replay-view .rv-facts dd").all_inner_texts(),
                strict=True,
            )
        )
        assert facts["joint reward"] == str(ev["joint_reward"])
        assert facts["oracle's max joint reward"] == str(ev["oracle_max"])
        assert facts["rewards"] == f"A {ev['rewards'][0]} / B {ev['rewards'][1]}"
        assert ("annulled" in facts) == ev["annulled"]
        if ev["annulled"]:
            shoot(page, "negotiation-3-overdraw-annulled")
    assert errors == []


def test_sorting_replay_shows_slices_store_and_check(served, browser) -> None:
    url, traces = served
    trace = read_trace(traces / "sort.json")
    events = trace.events
    sc = trace.scenario
    page, errors = new_page(browser)

    goto_step(page, url, "sort", 0)
    rows = grid_texts(page)
    assert [r[0] for r in rows] == [str(x).replace(" ", "").replace(",", ", ") for x in sc["xs"]]
    assert [r[1] for r in rows] == [
        str(x).replace(" ", "").replace(",", ", ") for x in sc["expected"]
    ]

    write = next(
        i
        for i, e in enumerate(events)
        if e["type"] == "turn"
        and any(c["ok"] and c["command"].startswith("write_file") for c in e["commands"])
    )
    command = next(
        c["command"] for c in events[write]["commands"] if c["command"].startswith("write_file")
    )
    key, value = command.split("\n", 1)[0].split()[1], command.split("\n", 1)[1]
    goto_step(page, url, "sort", write)
    store = page.locator("#replay-view .rv-grid").nth(1)
    labels = store.locator("tbody th").all_inner_texts()
    assert key in labels
    assert store.locator("tbody td").nth(labels.index(key)).inner_text() == value
    shoot(page, "sorting-1-store")

    for i, e in enumerate(events):
        if e["type"] != "submission":
            continue
        goto_step(page, url, "sort", i)
        row = grid_texts(page)[e["seat"]]
        assert row[2] == "[" + ", ".join(map(str, e["values"])) + "]"
        assert row[3] == ("correct" if e["correct"] else "wrong")
        first_submission = i
    assert first_submission
    shoot(page, "sorting-2-check")

    # A second phase starts from an empty store and no submissions.
    second = [i for i, e in enumerate(events) if e["type"] == "phase_start"][1]
    goto_step(page, url, "sort", second)
    assert [r[2] for r in grid_texts(page)] == ["–"] * sc["n"]
    assert "(0 files)" in page.locator("#replay-view .rv-grid").nth(1).inner_text()

    page.goto(f"{url}/#/run/demo/game/sort/step/{len(events) - 1}")
    page.wait_for_selector("#replay-view .rv-facts")
    rate = f"{100 * events[-1]['sr']:.0f}%"
    assert rate in page.inner_text("#replay-view .rv-facts")
    shoot(page, "sorting-3-end")
    assert errors == []


def test_scrubber_moves_the_transcript_to_the_call_behind_the_step(served, browser) -> None:
    url, traces = served
    trace = read_trace(traces / "mock.json")
    events = trace.events
    page, errors = new_page(browser, width=1500)
    # A message of seat B whose model call came just before it.
    step = next(
        i for i, e in enumerate(events) if e["type"] == "message" and e["seat"] == 1 and i > 0
    )
    call = next(e for e in reversed(events[:step]) if e["type"] == "model_call" and e["seat"] == 1)
    goto_step(page, url, "mock", step)
    page.wait_for_selector(".transcript-col .call.current")
    assert page.input_value(".transcript-col select") == "B"
    assert page.get_attribute(".transcript-col .call.current", "data-call") == str(call["call"])
    assert page.get_attribute(".events-col .ev.current", "data-step") == str(step)
    assert errors == []


def test_two_games_side_by_side_step_together(served, browser) -> None:
    url, traces = served
    a, b = read_trace(traces / "mock.json"), read_trace(traces / "refs.json")
    page, errors = new_page(browser)
    goto_step(page, url, "mock", 3)
    page.wait_for_selector("#side-go")
    page.select_option("#side-with", "refs")
    page.click("#side-go")
    page.wait_for_selector("#side-a .rv-frame")
    assert "Same scenario" in page.inner_text("#side-scenario")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "side-by-side-negotiation.png"))
    # Both games start together, and the end shows both games' last events.
    assert page.get_attribute("#side-a", "data-step") == "0"
    assert page.get_attribute("#side-b", "data-step") == "0"
    page.keyboard.press("End")
    page.wait_for_selector(f'#side-a[data-step="{len(a.events) - 1}"]')
    assert page.get_attribute("#side-b", "data-step") == str(len(b.events) - 1)
    # Round by round: whatever the step, both sides show the same round.
    for step in (1, 5, 9, 14):
        page.goto(f"{url}/#/side/demo/mock/demo/refs/step/{step}")
        page.wait_for_selector("#side-a .rv-frame")
        sa = int(page.get_attribute("#side-a", "data-step"))
        sb = int(page.get_attribute("#side-b", "data-step"))
        round_of = lambda evs, k: max([e["round"] for e in evs[: k + 1] if "round" in e] or [0])  # noqa: E731
        assert round_of(a.events, sa) == round_of(b.events, sb)
    # The metrics' differences, B minus A.
    shared = {
        k
        for k in set(a.metrics) & set(b.metrics)
        if all(
            isinstance(t.metrics[k], int | float) and not isinstance(t.metrics[k], bool)
            for t in (a, b)
        )
    }
    diffs = page.locator(".side-diff")
    assert diffs.count() == len(shared)
    assert "joint_reward" in shared or "efficiency" in shared
    key = "efficiency" if "efficiency" in shared else "joint_reward"
    row = page.locator("tr", has=page.locator("td", has_text=key)).first
    assert float(row.locator(".side-diff").inner_text()) == pytest.approx(
        b.metrics[key] - a.metrics[key], abs=1e-3
    )
    assert errors == []


@pytest.mark.parametrize("width", [1280, 390])
def test_pages_have_no_horizontal_scroll(served, browser, width) -> None:
    url, _ = served
    page, errors = new_page(browser, width=width, height=800)
    for route in [
        "#/",
        "#/run/demo",
        "#/compare/demo//demo/",
        *(f"#/run/demo/game/{t}/step/5" for t in ("cal", "neg", "sort", "mock")),
    ]:
        page.goto(f"{url}/{route}")
        page.wait_for_selector("h1")
        page.wait_for_timeout(200)
        assert no_horizontal_scroll(page), f"{route} scrolls sideways at {width} px"
    if width < 500:
        SHOTS.mkdir(parents=True, exist_ok=True)
        goto_step(page, url, "cal", 21)
        page.screenshot(path=str(SHOTS / "phone-calendar.png"))
    page.goto(f"{url}/#/side/demo/mock/demo/refs/step/4")
    page.wait_for_selector("#side-a .rv-frame")
    assert no_horizontal_scroll(page), f"the side-by-side page scrolls sideways at {width} px"
    assert errors == []
