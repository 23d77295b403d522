"""Fresh scripted traces equal the committed golden traces (regenerate with
``python scripts/regen_golden.py`` after an intended change)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accord.testing.golden import golden_cases, golden_trace

GOLDEN_DIR = Path(__file__).parent / "golden"


@pytest.mark.parametrize("case", sorted(golden_cases()))
def test_trace_matches_golden(case: str) -> None:
    expected = json.loads((GOLDEN_DIR / f"{case}.json").read_text())
    fresh = json.loads(json.dumps(golden_trace(case), sort_keys=True))
    assert fresh == expected


def test_every_committed_golden_trace_has_a_declared_case() -> None:
    """The games' declarations (`GameInfo.golden`) name exactly the committed files."""
    assert sorted(golden_cases()) == sorted(p.stem for p in GOLDEN_DIR.glob("*.json"))
