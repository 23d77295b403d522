"""Calendar prompts come from template files, byte for byte the wording they replaced."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accord.testing.prompt_cases import transcripts

GOLDEN = Path(__file__).parent / "data" / "prompt_transcripts.json"


async def test_the_default_templates_send_exactly_the_recorded_prompts() -> None:
    expected = json.loads(GOLDEN.read_text())
    fresh = json.loads(json.dumps(await transcripts("calendar"), ensure_ascii=False))
    assert fresh.keys() == expected.keys()
    for case in expected:
        for seat in expected[case]:
            got = [m["content"] for m in fresh[case][seat]["messages"]]
            want = [m["content"] for m in expected[case][seat]["messages"]]
            assert got == want, (case, seat)
    assert fresh == expected


@pytest.mark.parametrize("case", ["default"])
def test_cases_cover_every_template(case: str) -> None:
    from accord.games.calendar.prompts import TEMPLATES

    assert len(TEMPLATES) >= 20 and case
