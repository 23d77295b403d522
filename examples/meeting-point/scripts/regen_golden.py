"""Rewrite the golden traces in tests/golden/ (after an intended change of rules or prompts):
``python scripts/regen_golden.py``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))  # before installing too

from meeting_point.golden import GOLDEN, ensure_registered, golden_trace

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "golden"


def main() -> None:
    """Play every golden case and write its trace."""
    ensure_registered()
    OUT.mkdir(parents=True, exist_ok=True)
    for case in sorted(GOLDEN):
        path = OUT / f"{case}.json"
        path.write_text(json.dumps(golden_trace(case), indent=1, sort_keys=True) + "\n")
        print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
