"""`accord compare`: two runs, batches or models, paired on the scenarios both played."""

from __future__ import annotations

import csv
import enum
import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from accord.cli.main import _fail, app, console, err_console, print_skipped
from accord.cli.options import run_location
from accord.core.errors import AccordError, ConfigError

if TYPE_CHECKING:
    from accord.analysis.paired import Comparison, GameRecord

SHOWN_UNMATCHED = 10
"""Unmatched trace ids printed per side (``--format json`` lists them all)."""


class Format(enum.StrEnum):
    """Output formats of `accord compare`."""

    table = "table"
    csv = "csv"
    json = "json"


@app.command("compare")
def compare_cmd(
    run_a: Annotated[
        Path,
        typer.Argument(help="Run directory (or store location) of side A.", parser=run_location),
    ],
    run_b: Annotated[
        Path | None,
        typer.Argument(help="Run directory of side B (default: RUN_A again).", parser=run_location),
    ] = None,
    side_a: Annotated[
        str | None,
        typer.Option(
            "--a", help="Narrow side A: batch=NAME, pairing=LABEL, model=P/M (comma-joined)."
        ),
    ] = None,
    side_b: Annotated[str | None, typer.Option("--b", help="Narrow side B, as --a.")] = None,
    metric: Annotated[
        list[str] | None,
        typer.Option(
            "--metric",
            "-m",
            help="A metric to compare (repeatable; default: the game's summary metrics).",
        ),
    ] = None,
    all_metrics: Annotated[
        bool, typer.Option("--all-metrics", help="Compare every numeric metric both sides report.")
    ] = False,
    unpaired: Annotated[
        bool,
        typer.Option(help="Compare as independent samples, even where scenarios match."),
    ] = False,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.table,
) -> None:
    """Compare side B with side A, metric by metric, paired like with like: the same game
    version, scenario, seed, seat assignment and setup in everything but the compared factor
    (cells such as cross-play pairings are never pooled). Prints the mean difference B - A,
    paired and unpaired 95% CIs, a permutation p-value and Holm-adjusted p; lists unmatched,
    duplicate, failed and unreadable games. A run against itself, or sides that differ in
    more than one factor, are refused.

    Example: accord compare runs/imap runs/sdmap

    Example: accord compare runs/cross --a model=openai/gpt-5-mini --b model=local/smollm2 -f json

    Example: accord compare runs/grid --a batch=imap --b batch=dsm --metric success_rate
    """
    from accord.analysis.analysis_plan import mark, primary_metrics
    from accord.analysis.paired import (
        check_sides,
        compare,
        headline_metrics,
        load_side,
        parse_selector,
        select,
    )

    try:
        sel_a, sel_b = parse_selector(side_a), parse_selector(side_b)
        if run_b is None and not (sel_a or sel_b):
            raise ConfigError(
                "one run directory compares two of its parts: give --a and --b (e.g. --a "
                "batch=imap --b batch=dsm), or give a second run directory"
            )
        unreadable: list[str] = []
        rec_a, failed_a = load_side(run_a, unreadable)
        rec_b, failed_b = (
            (rec_a, failed_a) if run_b is None or run_b == run_a else load_side(run_b, unreadable)
        )
        print_skipped(unreadable)
        a, b = select(rec_a, sel_a), select(rec_b, sel_b)
        check_sides(a, b)
        games = {r.game_id for r in a} & {r.game_id for r in b}
        metrics = metric or (None if all_metrics else headline_metrics(games))
        if metric:
            known = {k for r in [*a, *b] if r.game_id in games for k in r.metrics}
            unknown = [m for m in metric if m not in known]
            if unknown:
                raise ConfigError(
                    f"no game on either side reports {', '.join(map(repr, unknown))}; metrics "
                    f"found: {', '.join(sorted(known))}"
                )
        result = compare(a, b, metrics=metrics, paired=not unpaired, drop_constant=not metric)
        result.failed_a = failed_a
        result.failed_b = [] if run_b in (None, run_a) else failed_b
        primary = primary_metrics(run_a) or (primary_metrics(run_b) if run_b else None)
        if primary:
            mark(result, primary)
        if result.matched == 0 and not unpaired:
            raise ConfigError(
                "the two sides share no scenario (seed, task, seat assignment and setup), so "
                "nothing can be paired: play both on the same seeds or suite, or pass "
                "--unpaired to compare them as independent samples"
            )
        if not result.rows and result.left_out:
            raise ConfigError(
                "every metric holds one constant value on both sides ("
                + ", ".join(result.left_out)
                + "): nothing differs; name one with --metric to compare it anyway"
            )
        if not result.rows:
            raise ConfigError("the two sides share no metric with a value to compare")
    except AccordError as exc:
        raise _fail(exc) from exc
    if result.failed_a or result.failed_b:
        counts = f"{len(result.failed_a)} in {run_a}" + (
            f", {len(result.failed_b)} in {run_b}" if run_b not in (None, run_a) else ""
        )
        err_console.print(Text(f"left out: failed or unreadable games ({counts})"))
    name_a = _name(run_a, side_a)
    name_b = _name(run_b or run_a, side_b)
    if fmt is Format.json:
        data = {"a": name_a, "b": name_b, **result.as_dict()}
        sys.stdout.write(json.dumps(finite(data), indent=1, allow_nan=False) + "\n")
        return
    if fmt is Format.csv:
        rows = [r.as_dict() for r in result.rows]
        w = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
        return
    _print(result, name_a, name_b, a, b)


def _name(run: Path, side: str | None) -> str:
    return f"{run}" + (f" [{side}]" if side else "")


def finite(value: Any) -> Any:
    """`value` with every NaN or infinity replaced by None (strict JSON)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def _print(
    result: Comparison, name_a: str, name_b: str, a: list[GameRecord], b: list[GameRecord]
) -> None:
    console.print(
        Text(
            f"A: {name_a} ({result.games_a} complete games)\nB: {name_b} "
            f"({result.games_b} complete games)"
        )
    )
    console.print(
        Text(
            f"{result.matched} scenarios played on both sides in the same setup (matched on "
            f"{result.matched_on}, {_share(result.match_share)}); comparison: {result.mode}"
        )
    )
    if result.factor:
        console.print(Text(f"compared: {', '.join(result.factor)} (everything else the same)"))
    for side, ids in (("A", result.unmatched_a), ("B", result.unmatched_b)):
        if ids:
            shown = ", ".join(ids[:SHOWN_UNMATCHED]) + (
                " ..." if len(ids) > SHOWN_UNMATCHED else ""
            )
            console.print(
                Text(
                    f"unmatched games of {side} ({len(ids)}, left out of the paired "
                    f"differences): {shown}"
                )
            )
    for side, dups in (("A", result.duplicates_a), ("B", result.duplicates_b)):
        if dups:
            named = ", ".join(f"{d['trace_id']} (= {d['copy_of']})" for d in dups[:SHOWN_UNMATCHED])
            more = " ..." if len(dups) > SHOWN_UNMATCHED else ""
            console.print(
                Text(f"exact duplicates in {side} ({len(dups)}, left out): {named}{more}"),
                style="yellow",
            )
    for side, failed in (("A", result.failed_a), ("B", result.failed_b)):
        if failed:
            named = ", ".join(f"{f['trace']} ({f['status']})" for f in failed[:SHOWN_UNMATCHED])
            more = " ..." if len(failed) > SHOWN_UNMATCHED else ""
            console.print(
                Text(f"not compared in {side} ({len(failed)}): {named}{more}"), style="yellow"
            )
    games = sorted({r.game_id for r in result.rows})
    table = Table(
        title=Text(f"{', '.join(games)}: B - A per metric (95% bootstrap CIs; p: permutation test)")
    )
    cols = ["game"] if len(games) > 1 else []
    cols += ["metric", "mode", "pairs", "A", "B", "B - A", "paired CI", "unpaired CI", "p"]
    planned = any(r.registered for r in result.rows)
    for col in [*cols, "p (Holm)", *(["plan"] if planned else [])]:
        table.add_column(col, justify="left" if col in {"game", "metric", "mode"} else "right")
    for r in result.rows:
        cells = [r.game_id] if len(games) > 1 else []
        cells += [r.metric, r.mode, str(r.pairs), _f(r.mean_a), _f(r.mean_b)]
        cells += [_f(r.diff, sign=True), _ci(r.paired_ci), _ci(r.unpaired_ci)]
        cells += [_p(r.p, r.p_exact), _p(r.p_holm, True)] + ([r.registered] if planned else [])
        table.add_row(*(Text(c) for c in cells))
    console.print(table)
    widths = [
        (r.paired_ci[1] - r.paired_ci[0], r.unpaired_ci[1] - r.unpaired_ci[0])
        for r in result.rows
        if r.mode == "paired" and not math.isnan(r.unpaired_ci[0])
    ]
    if widths:
        narrower = sum(1 for pw, uw in widths if pw < uw - 1e-12)
        same = sum(1 for pw, uw in widths if abs(pw - uw) <= 1e-12)
        console.print(
            Text(
                f"CI widths: paired narrower than unpaired on {narrower} of {len(widths)} "
                f"metrics ({same} equal); summed widths paired {sum(w for w, _ in widths):.4g}, "
                f"unpaired {sum(w for _, w in widths):.4g}"
            )
        )
    if planned:
        console.print(
            Text(
                "plan: the run's locked analysis plan; Holm within the pre-registered metrics, "
                "and separately within the exploratory ones"
            )
        )
    reasons = sorted({(r.reason) for r in result.rows if r.mode == "unpaired"})
    for reason in reasons:
        console.print(Text(f"unpaired: {reason}"), style="yellow")
    if result.left_out:
        console.print(
            Text("left out (one constant value on both sides): " + ", ".join(result.left_out))
        )
    console.print(
        escape(
            "paired: mean over matched scenarios (repeats averaged first), CI resampling "
            "scenarios, sign-flip p (exact up to 16 pairs; p* from 10,000 random sign flips); "
            "unpaired: every game of each side, each resampled on its own, label-permutation p"
        )
    )


def _share(share: float) -> str:
    return "no share" if math.isnan(share) else f"{share:.0%} of the scenarios"


def _f(v: float, *, sign: bool = False) -> str:
    if math.isnan(v):
        return "–"
    return f"{v:+.3g}" if sign else f"{v:.3g}"


def _ci(ci: tuple[float, float]) -> str:
    lo, hi = ci
    if math.isnan(lo):
        return "–"
    return f"[{lo:.3g}, {hi:.3g}]"


def _p(p: float, exact: bool) -> str:
    if math.isnan(p):
        return "–"
    return f"{p:.3g}" if exact else f"{p:.3g}*"
