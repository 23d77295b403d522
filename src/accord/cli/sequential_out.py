"""`accord run ... --until-decided METRIC` and experiments with ``stop:``: the sequential loop
(`accord.analysis.sequential_run`) with a line per look and the sequence at the end."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text

from accord.cli.main import console
from accord.core.errors import ConfigError
from accord.runner.config import Stop, load_experiment
from accord.runner.specs import GameSpec


def stop_rule(target: str, until_decided: str | None) -> Stop | None:
    """The experiment file's ``stop:`` block, its metric replaced by `until_decided`; or a
    default rule for `until_decided` alone; None for a run that is not sequential."""
    path = Path(target)
    rule = None
    if path.suffix in (".yaml", ".yml") and path.is_file():
        exp = load_experiment(path)
        rule = exp.stop or (exp.analysis.stop if exp.analysis is not None else None)
    if until_decided is None:
        return rule
    if not until_decided.strip():
        raise ConfigError("--until-decided names a metric, e.g. --until-decided success_rate")
    return (rule or Stop(metric=until_decided)).model_copy(update={"metric": until_decided})


def lock_analysis(target: str, out: Path, *, resume: bool) -> None:
    """Lock the experiment's ``analysis:`` block into the run directory (refused on --resume
    when it changed: `accord.analysis.analysis_plan`)."""
    from accord.analysis.analysis_plan import lock

    path = Path(target)
    if path.suffix in (".yaml", ".yml") and path.is_file():
        lock(load_experiment(path).analysis, out, resume=resume)


def run_sequential(
    specs: Sequence[GameSpec],
    out: Path,
    rule: Stop,
    *,
    resume: bool,
    concurrency: int,
    options: dict[str, Any],
) -> dict[str, Any]:
    """Play block by block, print each look, then the sequence and the stopping point."""
    from accord.analysis.sequential import Decision
    from accord.analysis.sequential_run import run_until_decided
    from accord.runner.run import run_sync

    def play(all_specs: Sequence[GameSpec], ids: set[str], again: bool) -> object:
        return run_sync(all_specs, out, resume=again, only=ids, concurrency=concurrency, **options)

    def look(d: Decision) -> None:
        last = d.points[-1] if d.points else None
        seq = f"[{last.low:.4g}, {last.high:.4g}]" if last else "-"
        console.print(
            Text(f"look: {d.pairs} pairs, {rule.metric} B - A sequence {seq}: {d.status}")
        )

    console.print(
        Text(
            f"Sequential comparison of {rule.metric} in blocks of {rule.block} pairs "
            f"(alpha {rule.alpha:g}, range {list(rule.range)}) -> {out}"
        )
    )
    result = run_until_decided(specs, out, rule, resume=resume, play=play, on_look=look)
    print_sequence(result)
    return result


def print_sequence(result: dict[str, Any]) -> None:
    """The sequence at each look and the stopping point (`sequential.json`)."""
    looks = set(result.get("looks", []))
    table = Table(title=Text(f"{result['rule']['metric']}: B - A, {result['sides']}"))
    for col in ("pairs", "mean", "sequence low", "sequence high"):
        table.add_column(col, justify="right")
    for p in result["sequence"]:
        if p["n"] in looks or p["n"] == result["pairs"]:
            table.add_row(str(p["n"]), f"{p['mean']:+.4g}", f"{p['low']:.4g}", f"{p['high']:.4g}")
    console.print(table)
    console.print(
        Text(
            f"{result['status']}: {result['reason']} ({result['games_played']} of "
            f"{result['games_planned']} games played)"
        ),
        style="bold",
    )
    for item in result.get("left_out", []):
        console.print(Text(f"left out of the sequence: {item['pair']} ({item['why']})"))
