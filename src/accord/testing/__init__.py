"""The conformance suite every registered game must pass (DESIGN principle 3).

Use it from a test: ``accord.testing.check_game("negotiation-v3")`` or the single checks.
`check_bombardment` plays every seat with a random schema-valid model over many seeds;
`check_judges` holds every judge the game declares to the rule that judging nothing fails.
"""

from accord.testing.bombard import Bombardment, check_bombardment
from accord.testing.conformance import (
    check_api,
    check_determinism,
    check_game,
    check_oracle,
    check_rejects_outside_spec,
    check_replay,
    check_requests_unchanged,
    check_trace_roundtrip,
    drive_with_fallbacks,
)
from accord.testing.judges import check_judges

__all__ = [
    "Bombardment",
    "check_api",
    "check_bombardment",
    "check_determinism",
    "check_game",
    "check_judges",
    "check_oracle",
    "check_rejects_outside_spec",
    "check_replay",
    "check_requests_unchanged",
    "check_trace_roundtrip",
    "drive_with_fallbacks",
]
