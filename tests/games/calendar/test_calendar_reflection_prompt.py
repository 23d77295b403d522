"""The F.3 reflection question is a template (`templates/reflection.j2`): same text as before it
moved out of Python, overridable like every prompt, recorded in the trace only when sent."""

from __future__ import annotations

from pathlib import Path

from accord.core.registry import make
from accord.games.calendar import prompts

BEFORE = (
    "=== ROUND 2 REFLECTION (measurement only) ===\n"
    "This question is not part of the game: no other agent sees your answer and it changes "
    "nothing in the game.\n"
    "For each of agents [0, 2] and each slot 0 to 5 of their calendar: how did this round change "
    "your belief that the slot is OCCUPIED on their calendar? Give an integer from -3 to 3: "
    'positive means you now lean more towards "occupied", negative more towards "free", 0 no '
    "change; +3 or -3 means you now know.\n"
    'Reply with one JSON object: {"thinking": "...", "deltas": {"0": [0, 0, 0, 0, ...], '
    '"2": [0, 0, 0, 0, ...]}} with exactly 6 integers for every agent listed.'
)
"""The text the Python version rendered for round 2, targets 0 and 2, six slots."""


def test_the_template_renders_the_text_the_code_did() -> None:
    assert prompts.reflection_prompt(2, [0, 2], 6) == BEFORE
    short = prompts.reflection_prompt(1, [1], 2)
    assert '"deltas": {"1": [0, 0, ...]}} with exactly 2 integers' in short
    assert "each slot 0 to 1 of their calendar" in short


def test_an_override_changes_the_question(tmp_path: Path) -> None:
    (tmp_path / "reflection.j2").write_text(
        "R{{ round_no }} {{ targets }} {{ last_slot }} {{ deltas_example }} {{ num_slots }}\n"
    )
    mine = prompts.templates(tmp_path)
    assert mine.origin["reflection"] == "override"
    text = prompts.reflection_prompt(3, [1], 2, mine)
    assert text == 'R3 [1] 1 {"1": [0, 0, ...]} 2'


def test_the_trace_records_the_template_only_when_the_question_is_asked() -> None:
    small = {"num_agents": 3, "num_meetings": 2}
    assert "reflection" not in make("calendar-v2", small).prompt_templates()
    recorded = make("calendar-v2", small | {"reflection": True}).prompt_templates()
    assert recorded["reflection"]["source"] == "default"
    game = make("calendar-v2", small | {"reflection": True})
    game.reset(5)
    while not any(r.spec.kind == "reflect" for r in game.pending()):
        for req in game.pending():
            game.submit(req.seat, {"thinking": "", "actions": []})
    req = game.pending()[0]
    others = [a for a in range(3) if a != req.seat]
    assert req.observation.endswith(prompts.reflection_prompt(1, others, game.config.num_slots))
