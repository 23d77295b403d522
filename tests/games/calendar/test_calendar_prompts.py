"""Prompts (CalBench App. A.1-A.3): sections, calendar render, variants, and label privacy
over many seeds."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from accord.core.errors import ConfigError
from accord.core.game import Game
from accord.core.registry import make
from accord.games.calendar import Scenario, prompts, rules
from accord.games.calendar.layout import scenario_from_layout
from accord.games.calendar.protocols import follow_oracle

SECTIONS = (
    "## Rules",
    "## Information constraints",
    "## Negotiation guidelines",
    "## Slot types",
    "## Tools",
    "## Phases",
    "## Response format",
    "## Identity",
    "## Environment",
)


def registered(game: Game) -> dict[int, str]:
    return {
        e["agent"]: e["system_prompt"]
        for e in game.drain_events()
        if e["type"] == "agent_registered"
    }


def test_system_prompt_has_the_nine_sections_in_order() -> None:
    g = make("calendar", {"channels": "all"})
    g.reset(1)
    text = registered(g)[1]
    positions = [text.index(h) for h in SECTIONS]
    assert positions == sorted(positions)
    assert "You are Agent 1. The agents in this game are 0, 1, 2." in text
    assert "Calendars have 8 slots, numbered 0 to 7" in text
    assert "resubmitted up to 3 time(s)" in text
    for tool in ('"type": "dm"', '"type": "participant_groupchat"', '"type": "all_groupchat"'):
        assert tool in text


def test_dm_only_game_lists_only_the_dm_channel() -> None:
    g = make("calendar")
    g.reset(1)
    text = registered(g)[0]
    assert '"type": "dm"' in text and "all_groupchat" not in text


def test_calendar_render_follows_app_a1() -> None:
    sc = scenario_from_layout([". 2 b3 .", ". . . ."], [[0, 1]], cost_setting="varied")
    cal = list(rules.initial_calendars(sc)[0])
    cal[3] = rules.meeting_item(sc.meetings[0])
    text = prompts.render_calendar(tuple(cal), sc, {"errands": {}, "meetings": {}})
    assert text.splitlines() == [
        "Slot 0: [FREE]",
        "Slot 1: Errand #1 (cost=10)",
        "Slot 2: Blocked Errand #2 (cost=100)",
        "Slot 3: Meeting M1 (cost=1) participants=[0, 1]",
    ]
    labelled = prompts.render_calendar(tuple(cal), sc, {"errands": {1: "Dentist"}, "meetings": {}})
    assert 'Slot 1: Errand #1 (cost=10) - private context: "Dentist"' in labelled


def test_adversarial_variant_is_one_extra_section_for_chosen_seats() -> None:
    g = make("calendar", {"prompt_variant": "redteam", "variant_seats": [0]})
    g.reset(0)
    events = g.drain_events()
    start = events[0]
    assert start["type"] == "game_start" and start["nosy_agents"] == [0]
    assert start["variant"]["source"] == "builtin"
    texts = {e["agent"]: e["system_prompt"] for e in events if e["type"] == "agent_registered"}
    assert texts[0].endswith(prompts.REDTEAM) and prompts.REDTEAM not in texts[1]
    plain = make("calendar")
    plain.reset(0)
    standard = registered(plain)
    assert texts[0] == standard[0] + "\n\n" + prompts.REDTEAM  # nothing else changes
    assert texts[1] == standard[1]
    nosy = make("calendar", {"prompt_variant": "nosy-highpressure"})
    nosy.reset(0)
    assert registered(nosy)[0].endswith(prompts.NOSY_HIGHPRESSURE)


def test_variant_files_are_loaded_and_recorded(tmp_path: Path) -> None:
    text = "## Compiled guidance\nAsk one precise question per message."
    (tmp_path / "c006.md").write_text(text + "\n", encoding="utf-8")
    g = make("calendar", {"prompt_variant": "c006", "prompt_variant_dir": str(tmp_path)})
    g.reset(0)
    events = g.drain_events()
    assert events[0]["variant"] == {
        "name": "c006",
        "source": "c006.md",
        "sha256": hashlib.sha256(text.encode()).hexdigest(),
    }
    assert events[1]["system_prompt"].endswith(text)
    with pytest.raises(ConfigError, match="prompt_variant_dir"):
        make("calendar", {"prompt_variant": "c006"})
    missing = make("calendar", {"prompt_variant": "nope", "prompt_variant_dir": str(tmp_path)})
    with pytest.raises(ConfigError, match=r"'nope\.md' not found"):
        missing.reset(0)


def _hidden(scenario: Scenario, seat: int) -> set[str]:
    """Labels `seat` must never see, computed from the scenario, not from the harness."""
    out = {m.label.text for m in scenario.meetings if seat not in m.participants}
    for owner, cal in enumerate(scenario.calendars):
        if owner != seat:
            out |= {e.label.text for e in cal if e is not None}
    mine = {e.label.text for e in scenario.calendars[seat] if e is not None}
    mine |= {m.label.text for m in scenario.meetings if seat in m.participants}
    return out - mine


def _chatty(info: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    """Wake everyone: broadcast at the first turn, then follow the oracle."""
    if info["phase"] == "DECISION":
        return follow_oracle({**info, "seat": seat})
    if info["phase"] == "CHEAP_TALK" and info["turn"] == 0:
        return [{"type": "all_groupchat", "content": "Which slots work for everyone?"}]
    return []


@pytest.mark.parametrize(
    "options",
    [
        {"channels": "all"},
        {
            "channels": "all",
            "num_agents": 5,
            "participants_per_meeting": 3,
            "num_slots": 10,
            "cost_setting": "varied",
            "density": 0.8,
        },
    ],
)
def test_no_prompt_ever_shows_another_agents_label(options: dict[str, Any]) -> None:
    checked = 0
    for seed in range(60):
        g = make("calendar", options)
        g.reset(seed)
        sc = Scenario.model_validate(g.scenario())
        hidden = [_hidden(sc, a) for a in range(sc.num_agents)]
        seen_own = False
        while not g.done():
            for req in g.pending():
                text = f"{req.system}\n{req.observation}"
                leaked = [label for label in hidden[req.seat] if label in text]
                assert not leaked, f"seed {seed}, seat {req.seat}: {leaked}"
                seen_own |= any(e.label.text in text for e in sc.calendars[req.seat] if e)
                checked += 1
                g.submit(req.seat, {"thinking": "", "actions": _chatty(req.info, req.seat)})
        assert seen_own  # the seat's own contexts are shown, so the check has teeth
    assert checked > 200


def test_privacy_guard_stops_a_leaking_render(monkeypatch: pytest.MonkeyPatch) -> None:
    def leak_all(calendar: rules.Calendar, scenario: Scenario, labels: Any) -> str:
        every = [e.label.text for cal in scenario.calendars for e in cal if e is not None]
        return "\n".join(every)

    monkeypatch.setattr(prompts, "render_calendar", leak_all)
    g = make("calendar")
    with pytest.raises(RuntimeError, match="privacy guard"):
        g.reset(0)
