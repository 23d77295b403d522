"""Prompts of meeting-point-v1: template files in `templates/`, rendered by Accord's
`accord.core.prompts` (sandboxed Jinja2; an override must keep the required variables)."""

from __future__ import annotations

from pathlib import Path

from accord.core.prompts import PromptSet, TemplateSpec, load_prompts

TEMPLATES: dict[str, TemplateSpec] = {
    "system": TemplateSpec(
        "system",
        frozenset({"name", "partner", "places", "costs", "talk_turns"}),
        "the rules and the seat's private costs",
    ),
    "talk": TemplateSpec(
        "talk", frozenset({"history", "turn", "turns", "chars"}), "a turn to send a message"
    ),
    "meet": TemplateSpec("meet", frozenset({"history", "places"}), "the decision: where to go"),
}
"""Every template of the game, with the variables an override must keep."""


def templates(override: str | Path | None = None) -> PromptSet:
    """The game's templates (the defaults, or with `override`'s files laid over them)."""
    return load_prompts("meeting-point", __package__ or "meeting_point", TEMPLATES, override)
