"""reproduction.md / .json from the traces: complete games only, failed ones counted."""

from __future__ import annotations

import json
from pathlib import Path

from accord.reproduce.plan import make_plan
from accord.reproduce.writeup import collect, write_reproduction
from accord.runner.run import run_sync


def test_a_failed_game_is_counted_but_never_enters_a_value(tmp_path: Path) -> None:
    plan = make_plan("grounding", models=["mock/schema"], smoke=True, tables=["3"])
    run_sync(plan.specs, tmp_path)
    before = collect(plan, tmp_path)
    assert before.complete == 3 and not before.failed
    path = sorted((tmp_path / "traces").glob("*.json"))[0]
    data = json.loads(path.read_text())
    data.update(status="failed", error="model unreachable")
    path.write_text(json.dumps(data))
    after = collect(plan, tmp_path)
    assert after.complete == 2 and after.failed == {"model unreachable": 1}
    assert sum(c.games for c in after.tables["3"]) == 2
    written = write_reproduction(plan, tmp_path, command="accord reproduce grounding")
    text = (tmp_path / "reproduction.md").read_text()
    assert "1 failed (kept out of every value)" in text and "1 × model unreachable" in text
    assert "not a model of the paper" in text and "shape only" in text
    assert {p.name for p in written} >= {"table3.png", "table3.svg", "figure2.png"}
