"""Rewrite the committed golden traces in tests/golden/ from the scripted cases.

Run after an intended change to rules, prompts or trace format:  python scripts/regen_golden.py
"""

from __future__ import annotations

import json
from pathlib import Path

from accord.testing.golden import golden_cases, golden_trace

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for case in golden_cases():
        path = OUT / f"{case}.json"
        path.write_text(json.dumps(golden_trace(case), indent=1, sort_keys=True) + "\n")
        print(f"wrote {path.relative_to(OUT.parent.parent)}")


if __name__ == "__main__":
    main()
