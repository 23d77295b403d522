"""The deference / coherence detectors against hand-labelled utterances (seed 004 §5.5, §5.6).

`speech_labels.json` (46 utterances) is the development set the rules were tuned on;
`speech_heldout.json` (20) was written afterwards and scored once. docs/negotiation.md
reports both; these floors keep a later change from silently degrading them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accord.games.negotiation import speech

DATA = Path(__file__).parent / "data"


def load(name: str) -> tuple[list[dict[str, object]], dict[str, str]]:
    d = json.loads((DATA / name).read_text(encoding="utf-8"))
    return d["items"], d["names"]


@pytest.mark.parametrize(
    ("name", "size", "floor"),
    [("speech_labels.json", 40, 0.95), ("speech_heldout.json", 20, 0.9)],
)
def test_precision_and_recall_on_labelled_sets(name: str, size: int, floor: float) -> None:
    items, names = load(name)
    assert len(items) >= size
    scores = speech.evaluate(items, names)
    for key in ("partner", "own"):
        assert scores[key]["precision"] >= floor, scores
        assert scores[key]["recall"] >= floor, scores


@pytest.mark.parametrize(
    ("text", "partner", "own"),
    [
        ("5 stone for you, 5 stone for me.", {"r2": 5}, {"r2": 5}),
        ("6 stone and 2 gold for you.", {"r2": 6, "r3": 2}, {}),
        ("Counter: 7 stone for you, 3 stone and 4 gold for me.", {"r2": 7}, {"r2": 3, "r3": 4}),
        ("3 units of gold go to you.", {"r3": 3}, {}),
        ("For me 4 gold; for you 2 gold.", {"r3": 2}, {"r3": 4}),
        ("Ok, final: I'll buy stone: 6.", {}, {"r2": 6}),
    ],
)
def test_quantity_first_phrasings(text: str, partner: dict[str, int], own: dict[str, int]) -> None:
    names = {"r1": "wood", "r2": "stone", "r3": "gold"}
    assert speech.directed(text, names) == (partner, own)
