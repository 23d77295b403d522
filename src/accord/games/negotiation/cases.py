"""Test cases of negotiation: the golden traces (`accord.testing.golden`: small scripted games
whose traces are committed under tests/golden) and the prompt cases (`accord.testing.
prompt_cases`: seeded games under every prompt condition with the mock model in every seat).
Declared in this package's `INFO`.
"""

from __future__ import annotations

from typing import Any

from accord.core.gameinfo import PromptCases

GOLDEN: dict[str, dict[str, Any]] = {
    "negotiation-coop-0.5": {
        "options": {"ratio": 0.5, "rounds": 2},
        "seed": 11,
        "agents": ["cooperative", "cooperative"],
    },
    "negotiation-greedy-vs-split-rotating": {
        "options": {"ratio": 0.8, "rounds": 3, "projects": "rotating", "partner": "shifting"},
        "seed": 12,
        "agents": ["greedy", "equal-split"],
    },
}

PROMPTS = PromptCases(
    cases={
        "default": {"rounds": 3},
        "no-thinking": {"rounds": 2, "thinking": False},
        "no-talk": {"rounds": 2, "cheap_talk": False},
        "shifting-rotating": {"rounds": 3, "partner": "shifting", "projects": "rotating"},
        "transparency-joint": {"rounds": 2, "transparency": "joint", "projects": "rotating"},
        "transparency-full-tom": {
            "rounds": 2, "transparency": "full", "intervention": "theory_of_mind",
        },
        "share-projects-reminder": {
            "rounds": 2, "intervention": "share_projects", "json_reminder": "always",
        },
        "themes-per-round-unlimited": {
            "rounds": 3, "theme_per": "round", "talk_turns": 0, "max_talk_messages": 6,
        },
        "joint-goal-no-reflection": {"rounds": 2, "joint_goal": True, "reflection": False},
    },
    seats=lambda options: 2,
)  # fmt: skip
