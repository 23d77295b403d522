"""Test cases of the calendar game: the golden traces (`accord.testing.golden`: small scripted games
whose traces are committed under tests/golden) and the prompt cases (`accord.testing.
prompt_cases`: seeded games under every prompt condition with the mock model in every seat).
Declared in this package's `INFO`.
"""

from __future__ import annotations

from typing import Any

from accord.core.gameinfo import PromptCases

GOLDEN: dict[str, dict[str, Any]] = {
    # The default small game (3 agents, 8 slots, 3 meetings of 2, direct messages) with full
    # enough calendars that every meeting displaces an errand.
    "calendar-follower-dm": {
        "options": {"density": 0.8},
        "seed": 1,
        "agents": ["oracle-follower"] * 3,
    },
    # Varied costs, every channel, meetings of 3, and a DM cap of 0, so that every proposal is
    # dropped (message_dropped) while the followers still schedule by the oracle.
    "calendar-follower-varied-capped": {
        "options": {
            "num_agents": 4,
            "participants_per_meeting": 3,
            "num_meetings": 2,
            "cost_setting": "varied",
            "channels": "all",
            "dm_cap": 0,
        },
        "seed": 4,
        "agents": ["oracle-follower"] * 4,
    },
}


def _seats(options: dict[str, Any]) -> int:
    from accord.games.calendar.config import CalendarConfig

    return CalendarConfig.model_validate(options).seats()


PROMPTS = PromptCases(
    cases={
        "default": {},
        "varied-capped": {"cost_setting": "varied", "max_turns_per_round": 2, "num_meetings": 2},
        "dm-only-redteam": {"channels": "dm", "prompt_variant": "redteam", "variant_seats": [0]},
        "groupchats-nosy": {"channels": "all_groupchat", "prompt_variant": "nosy-highpressure",
                            "num_agents": 4, "participants_per_meeting": 2},
        "suite-task": {"suite": "canonical", "task": 3},
        "no-talk": {"dm_cap": 0, "num_meetings": 2},
        "uncapped-turns": {"max_turns_per_round": None, "num_meetings": 2},
    },
    seats=_seats,
)  # fmt: skip
"""Channels, caps, cost displays, variants, a canonical task (log10 costs) and no talk."""
