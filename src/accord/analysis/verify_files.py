"""The run-level checks of `accord verify` (`accord.analysis.verify`): the plan
(``experiment.json``) read and matched against the traces found, and ``results.jsonl`` and
``summary.json`` against what the traces give."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from accord.analysis.verify_record import Check, GameVerification
from accord.core.errors import ConfigError
from accord.core.inputs import MAX_TRACE_BYTES, load_json, read_text
from accord.runner.results import seat_rows, summarize
from accord.runner.specs import GameSpec
from accord.traces.schema import Trace


def read_plan(run: Path) -> tuple[dict[str, GameSpec] | None, str]:
    """The run's planned games by trace id, or None and why there is no usable plan."""
    path = run / "experiment.json"
    if not path.is_file():
        return None, "the run has no experiment.json, so no removed or added game can be found"
    try:
        data = _read_json(path, "run plan")
    except ConfigError as exc:
        return None, f"experiment.json cannot be read: {exc}"
    games = data.get("games") if isinstance(data, dict) else data
    if not isinstance(games, list):
        return None, "experiment.json holds no list of games"
    try:
        specs = [GameSpec.model_validate(g) for g in games]
    except ValidationError as exc:
        return None, f"experiment.json has an invalid game: {exc.errors()[0]['msg']}"
    return {s.trace_id: s for s in specs}, ""


def plan_check(
    plan: dict[str, GameSpec] | None, problem: str, games: Sequence[GameVerification]
) -> Check:
    if plan is None:
        return Check(name="plan", passed=False, detail=problem)
    have = {g.trace_id for g in games}
    missing = [tid for tid in plan if tid not in have]
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        return Check(
            name="plan",
            passed=False,
            detail=f"{len(missing)} planned games have no trace (removed?): "
            f"{', '.join(missing[:3])}{more}",
        )
    return Check(name="plan", passed=True, detail=f"all {len(plan)} planned games have a trace")


def results_checks(run: Path, files: Sequence[Path], traces: dict[str, Trace]) -> list[Check]:
    """results.jsonl and summary.json against what the traces give."""
    ordered = [traces[p.name] for p in files if p.name in traces]
    return [_rows_check(run, ordered), _summary_check(run, ordered)]


def _rows_check(run: Path, traces: Sequence[Trace]) -> Check:
    path = run / "results.jsonl"
    if not path.is_file():
        return Check(name="results.jsonl", passed=False, detail="missing")
    try:
        text = read_text(path, what="results file", max_bytes=MAX_TRACE_BYTES)
        rows = [load_json(line, source=str(path)) for line in text.splitlines() if line.strip()]
    except ConfigError as exc:
        return Check(name="results.jsonl", passed=False, detail=str(exc))
    want = sorted(_canon(r) for t in traces for r in seat_rows(t))
    got = sorted(
        _canon({k: v for k, v in r.items() if k != "schema_version"} if isinstance(r, dict) else r)
        for r in rows
    )
    if want != got:
        extra = next((r for r in got if r not in want), None)
        lost = next((r for r in want if r not in got), None)
        what = f"row {_short(json.loads(extra))} is not" if extra else "a row is missing from"
        if extra is None and lost is not None:
            what = f"row {_short(json.loads(lost))} is missing from"
        return Check(name="results.jsonl", passed=False, detail=f"{what} what the traces give")
    return Check(name="results.jsonl", passed=True, detail=f"{len(rows)} rows equal the traces'")


def _summary_check(run: Path, traces: Sequence[Trace]) -> Check:
    path = run / "summary.json"
    if not path.is_file():
        return Check(name="summary.json", passed=False, detail="missing")
    try:
        data = _read_json(path, "run summary")
    except ConfigError as exc:
        return Check(name="summary.json", passed=False, detail=str(exc))
    if not isinstance(data, dict):
        return Check(name="summary.json", passed=False, detail="not a JSON object")
    got = {k: v for k, v in data.items() if k not in ("schema_version", "unreadable")}
    want = json.loads(json.dumps(summarize(traces)))
    diff = first_difference(got, want, "summary")
    if diff is not None:
        return Check(
            name="summary.json",
            passed=False,
            detail=diff.replace("recorded", "file has").replace("re-played", "traces give"),
        )
    return Check(name="summary.json", passed=True, detail="equals the summary of the traces")


def _read_json(path: Path, what: str) -> Any:
    return load_json(read_text(path, what=what, max_bytes=MAX_TRACE_BYTES), source=str(path))


def _canon(row: dict[str, Any]) -> str:
    return json.dumps(row, sort_keys=True, ensure_ascii=False)


def first_difference(a: Any, b: Any, path: str) -> str | None:
    """Where two JSON values first differ, as ``path: recorded X, re-played Y``."""
    if a == b:
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        for key in [*a, *(k for k in b if k not in a)]:
            found = first_difference(a.get(key), b.get(key), f"{path}.{key}" if path else key)
            if found is not None:
                return found
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found is not None:
                return found
        return f"{path}: {len(a)} recorded, {len(b)} re-played"
    return f"{path}: recorded {_short(a)}, re-played {_short(b)}"


def _short(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."
