"""A seat in tools mode is told to call the tools, never to write a JSON envelope.

CalBench App. A.5's reply (``{"thinking", "actions": [...]}``) is json mode's; a seat acting
through native tool calls gets the same prompts with the reply instructions worded as calls.
The mock model plays each game in both modes; every system and user message a tools seat was
sent is checked, and a json seat still reads the envelope (its prompts are the golden ones).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.schema import Trace

ENVELOPE = (
    "one JSON object",
    "JSON object only",
    '"actions"',
    "actions list",
    "[] to pass",
    "return []",
    "Return []",
    "Reply with JSON",
    "JSON decision",
    '"action"',
    "whole reply",
    "fenced",
    "Example of one command",
    "built-in tool-calling",
)
"""Phrases of the JSON envelope a tools seat must never be sent."""

CASES: dict[str, tuple[int, dict[str, Any]]] = {
    "calendar": (3, {"max_turns_per_round": 2, "reflection": True}),
    "negotiation": (2, {"rounds": 2, "talk_turns": 2, "json_reminder": "always"}),
    "negotiation-plain": (2, {"rounds": 1, "talk_turns": 2, "thinking": False}),
    "sorting": (3, {"backend": "broadcast"}),
    "sorting-kv": (2, {"backend": "kv", "n": 2}),
}
JSON_SAYS = {
    "calendar": ("one JSON object", "[] to pass"),
    "negotiation": ("one JSON object", "Reply with JSON"),
    "negotiation-plain": ("JSON decision", "JSON decision"),
    "sorting": ("fenced code block", "Write your first commands."),
    "sorting-kv": ("fenced code block", "Write your first commands."),
}
"""A phrase of the JSON envelope in the system prompt and in some user message, per case."""


def _play(game: str, mode: str) -> Trace:
    seats, options = CASES[game]
    seat = AgentSpec(model="mock/schema", action_mode=mode)
    name = game.split("-")[0]
    spec = GameSpec(trace_id="t", game=name, options=options, seed=1, agents=[seat] * seats)
    trace = asyncio.run(play_game(spec))
    assert trace.status == "complete", trace.error
    return trace


def _sent(trace: Trace, role: str) -> list[str]:
    out: list[str] = []
    for transcript in trace.transcripts.values():
        out += [str(m["content"]) for m in transcript.messages if m["role"] == role]
    return out


@pytest.mark.parametrize("game", sorted(CASES))
def test_a_tools_seat_is_told_to_call_the_tools(game: str) -> None:
    trace = _play(game, "tools")
    systems, users = _sent(trace, "system"), _sent(trace, "user")
    assert systems and users
    for text in systems + users:
        assert not [p for p in ENVELOPE if p in text], text
    assert all("calling" in s and "tool" in s for s in systems)
    assert all("call" in u for u in users)


@pytest.mark.parametrize("game", sorted(CASES))
def test_a_json_seat_still_reads_the_envelope(game: str) -> None:
    trace = _play(game, "json")
    in_system, in_user = JSON_SAYS[game]
    assert all(in_system in s for s in _sent(trace, "system"))
    assert any(in_user in u for u in _sent(trace, "user"))


def test_a_sorting_seat_under_auto_keeps_the_fenced_commands() -> None:
    """Sorting offers its tools only to a seat that asks for tools itself: under ``auto`` the
    seat plays in text, so it must read the fenced-block wording, not the tools wording."""
    trace = _play("sorting", "auto")
    assert all("fenced code block" in s for s in _sent(trace, "system"))
    assert not any("calling the tools" in text for text in _sent(trace, "system"))


def test_accord_prompts_says_the_templates_are_json_modes() -> None:
    result = CliRunner().invoke(app, ["prompts", "calendar"])
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())  # the console wraps lines
    assert "json mode's prompts" in said
    assert "worded for tool calls" in said
