"""``accord suite calendar``: the canonical suite (CalBench §4.1: 45 uniform + 45 varied tasks,
5 agents, 16 slots, 5 meetings; 15 easy, 15 medium, 15 hard each), the published CalBench task
files, or a suite file. Declared in this package's `INFO` (``suites``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from accord.core.errors import ConfigError
from accord.core.gameinfo import SuiteTool


def _tasks(name: str, seed: int) -> list[Any]:
    from accord.games.calendar.calbench import load_suite
    from accord.games.calendar.suite import build_canonical_suite

    if name == "canonical":
        return build_canonical_suite(seed)
    if seed != 0:
        raise ConfigError(f"--seed only applies to the canonical suite, not to {name!r}")
    return load_suite(name)


def _summary(name: str, tasks: list[Any]) -> list[str]:
    """One line per (cost setting, agents) with the difficulty buckets by feasible fraction."""
    from rich.markup import escape

    from accord.games.calendar.counting import difficulty_bucket, feasible_fraction

    groups: Counter[tuple[str, int, str]] = Counter(
        (t.cost_setting, t.num_agents, difficulty_bucket(feasible_fraction(t))) for t in tasks
    )
    lines = [f"[bold]{escape(name)}[/bold]: {len(tasks)} tasks"]
    for setting, n in sorted({(s, a) for s, a, _ in groups}):
        counts = ", ".join(f"{groups[(setting, n, b)]} {b}" for b in ("easy", "medium", "hard"))
        total = sum(groups[(setting, n, b)] for b in ("easy", "medium", "hard"))
        lines.append(f"  {setting:8} {n} agents: {total:3} tasks ({counts})")
    return lines


def _write(path: Path, tasks: list[Any]) -> Path:
    from accord.games.calendar.suite import write_suite

    return write_suite(path, tasks)


SUITES = SuiteTool(
    names=("canonical", "calbench-uniform", "calbench-varied"),
    tasks=_tasks,
    summary=_summary,
    write=_write,
    task_id=lambda task: task.task_id,
    seeded=("canonical",),
)
