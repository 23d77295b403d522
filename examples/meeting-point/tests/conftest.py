"""Make the package importable and the game registered, installed or not."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from meeting_point.golden import ensure_registered

ensure_registered()
