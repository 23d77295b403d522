"""A locked analysis plan: the ``analysis:`` block of an experiment, fixed before the first game.

When a run starts, the block (primary metrics, comparison, alpha, interval, stopping rule,
maximum games) is written with its SHA-256 to ``DIR/analysis_plan.json`` (beside the plan of
games, ``experiment.json``). ``--resume`` with a different block is refused, naming what
changed, so a study cannot move its goalposts halfway. `accord compare` and the report read
the file: the primary metrics are *pre-registered* and form the family Holm's adjustment
covers; every other metric is *exploratory*, adjusted in a family of its own and marked so.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from accord.analysis.paired_stats import holm
from accord.core.errors import ConfigError
from accord.runner.config import AnalysisPlan

if TYPE_CHECKING:
    from accord.analysis.paired import Comparison

FILE = "analysis_plan.json"
SCHEMA_VERSION = 1


def _canonical(plan: AnalysisPlan) -> dict[str, Any]:
    """The plan as JSON, without the stopping rule's tuning fields when unset (added later:
    a plan locked before they existed keeps its digest)."""
    data = plan.model_dump(mode="json")
    stop = data.get("stop")
    if isinstance(stop, dict):
        data["stop"] = {k: v for k, v in stop.items() if not (k in _LATER and v is None)}
    return data


_LATER = frozenset({"effect", "sd"})


def digest(plan: AnalysisPlan) -> str:
    """SHA-256 of the plan's canonical JSON."""
    text = json.dumps(_canonical(plan), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _read(path: Path) -> dict[str, Any]:
    from accord.core.inputs import load_json, read_text

    data = load_json(read_text(path, what="analysis plan", max_bytes=1 << 20), source=str(path))
    if not isinstance(data, dict) or not isinstance(data.get("plan"), dict):
        raise ConfigError(f"{path} is not an analysis plan this Accord wrote; move it away")
    return data


def lock(plan: AnalysisPlan | None, out: Path, *, resume: bool) -> None:
    """Write the plan into `out` as the run starts; on `resume`, refuse a changed one."""
    if plan is None:
        return
    path = out / FILE
    new = _canonical(plan)
    if resume and path.is_file():
        old = _read(path)
        if old.get("sha256") != digest(plan):
            keys = sorted(set(old["plan"]) | set(new))
            changed = [
                f"{k} ({old['plan'].get(k)!r} -> {new.get(k)!r})"
                for k in keys
                if old["plan"].get(k) != new.get(k)
            ]
            raise ConfigError(
                f"the analysis plan of {out} changed since the run started: "
                f"{'; '.join(changed) or 'its digest'}. A locked plan cannot change on "
                "--resume: restore the analysis: block, or start a new run with another --out"
            )
        return
    out.mkdir(parents=True, exist_ok=True)
    record = {"version": SCHEMA_VERSION, "sha256": digest(plan), "plan": new}
    path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def primary_metrics(run_dir: Path) -> list[str] | None:
    """The pre-registered metrics of a run (None when it has no locked plan)."""
    path = run_dir / FILE
    if not path.is_file():
        return None
    primary = _read(path)["plan"].get("primary")
    return [str(m) for m in primary] if isinstance(primary, list) else None


def mark(result: Comparison, primary: list[str]) -> None:
    """Mark each row pre-registered or exploratory; Holm within each family."""
    for family in ("pre-registered", "exploratory"):
        rows = [r for r in result.rows if (r.metric in primary) == (family == "pre-registered")]
        for row, adj in zip(rows, holm([r.p for r in rows]), strict=True):
            row.registered, row.p_holm = family, adj
