"""Negotiation prompts come from template files, byte for byte the wording they replaced."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from prompt_cases import GOLDEN, transcripts


async def test_the_default_templates_send_exactly_the_recorded_prompts() -> None:
    expected = json.loads(GOLDEN.read_text())
    fresh = json.loads(json.dumps(await transcripts(), ensure_ascii=False))
    assert fresh.keys() == expected.keys()
    for case in expected:
        for seat in expected[case]:
            got = [m["content"] for m in fresh[case][seat]["messages"]]
            want = [m["content"] for m in expected[case][seat]["messages"]]
            assert got == want, (case, seat)
    assert fresh == expected


@pytest.mark.parametrize("case", ["default"])
def test_cases_cover_every_template(case: str) -> None:
    from accord.games.negotiation.prompts import TEMPLATES

    assert len(TEMPLATES) >= 10 and case
