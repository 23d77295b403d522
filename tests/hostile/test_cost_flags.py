"""Issue 37 case 8 (carried over from round 3): ``accord cost --games -1`` was accepted."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def test_cost_refuses_a_negative_game_count(cli: Any, run_dir: Path) -> None:
    cli.error(cli.invoke("cost", run_dir, "--games", "-1"), "--games", "greater than or equal to 0")
