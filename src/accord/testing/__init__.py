"""The conformance suite every registered game must pass (DESIGN principle 3).

Use it from a test: ``accord.testing.check_game("negotiation-v3")`` or the single checks.
"""

from accord.testing.conformance import (
    check_api,
    check_determinism,
    check_game,
    check_oracle,
    check_replay,
    check_trace_roundtrip,
    drive_with_fallbacks,
)

__all__ = [
    "check_api",
    "check_determinism",
    "check_game",
    "check_oracle",
    "check_replay",
    "check_trace_roundtrip",
    "drive_with_fallbacks",
]
