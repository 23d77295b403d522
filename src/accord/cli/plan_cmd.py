"""`accord plan`: how many games a comparison needs, and the noise floor of a run."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from accord.cli.compare_cmd import finite
from accord.cli.main import _fail, app, console, print_skipped
from accord.core.errors import AccordError, ConfigError

if TYPE_CHECKING:
    from accord.analysis.power_noise import NoiseRow


@app.command("plan")
def plan_cmd(
    detect: Annotated[
        float | None,
        typer.Option(
            help="The difference to detect, in the metric's units (0.05 = 5 points of a rate)."
        ),
    ] = None,
    metric: Annotated[
        str | None, typer.Option("--metric", "-m", help="The metric, e.g. efficiency.")
    ] = None,
    from_dirs: Annotated[
        list[Path] | None,
        typer.Option("--from", help="Earlier run directory to measure the spread in (repeatable)."),
    ] = None,
    sd: Annotated[
        float | None,
        typer.Option(
            help="The metric's spread over games, when no run measures it (default "
            "0.5: the most a rate can spread)."
        ),
    ] = None,
    side_a: Annotated[
        str | None,
        typer.Option("--a", help="With one --from run: its arm A (batch=NAME, model=P/M, ...)."),
    ] = None,
    side_b: Annotated[str | None, typer.Option("--b", help="Its arm B, as --a.")] = None,
    power: Annotated[float, typer.Option(help="Chance of detecting the difference.")] = 0.8,
    alpha: Annotated[float, typer.Option(help="Two-sided significance level.")] = 0.05,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    analysis_block: Annotated[
        bool,
        typer.Option(
            "--analysis-block",
            help="Also print an analysis: block (the locked plan) for the experiment file.",
        ),
    ] = False,
) -> None:
    """Games needed to detect a difference (80% power, alpha 0.05), and, with --from, the
    noise floor of a run: within-scenario spread, outcome flips between repeats, and the
    minimum detectable difference of a run of its size.

    Example: accord plan --detect 0.05 --metric efficiency

    Example: accord plan --from runs/repeated --detect 0.05 --metric efficiency

    Example: accord plan --from runs/imap --from runs/dsm --detect 0.035 -m adjusted_excess

    Example: accord plan --detect 0.05 -m success_rate --analysis-block >> study.yaml

    With a pilot of both arms (two --from runs, or --a/--b in one) the paired plan uses the
    SD of the real paired differences; with one arm it is a labelled lower bound.
    """
    from accord.analysis.paired import headline_metrics, load_records, parse_selector, select
    from accord.analysis.power import WORST_SD, games_needed
    from accord.analysis.power_noise import noise_floor
    from accord.analysis.power_pilot import ONE_ARM_ASSUMPTION, two_arm_plan

    try:
        if not (0.0 < power < 1.0 and 0.0 < alpha < 1.0):
            raise ConfigError("--power and --alpha must lie strictly between 0 and 1")
        if detect is not None and not (detect > 0 and math.isfinite(detect)):
            raise ConfigError(f"--detect must be a positive difference, not {detect}")
        if sd is not None and not (sd >= 0 and math.isfinite(sd)):
            raise ConfigError(f"--sd must be zero or positive, not {sd}")
        if detect is None and not from_dirs:
            raise ConfigError(
                "give --detect DIFF (games a comparison needs) or --from RUN (the run's noise "
                "floor), e.g. accord plan --detect 0.05 --metric efficiency"
            )
        if detect is not None and from_dirs and metric is None:
            raise ConfigError("--detect with --from needs --metric (which metric to plan for)")
        rows: list[NoiseRow] = []
        arms = None
        if from_dirs and (side_a or side_b):
            if len(from_dirs) != 1 or not (side_a and side_b):
                raise ConfigError("--a and --b pick the two arms of one --from run: give both")
            one = load_records(from_dirs[0])[0]
            arms = (select(one, parse_selector(side_a)), select(one, parse_selector(side_b)))
        elif from_dirs and len(from_dirs) == 2:
            arms = (load_records(from_dirs[0])[0], load_records(from_dirs[1])[0])
        if from_dirs:
            unreadable: list[str] = []
            records = [r for d in from_dirs for r in load_records(d, unreadable)[0]]
            print_skipped(unreadable)
            if not records:
                raise ConfigError(f"no complete games in {', '.join(map(str, from_dirs))}")
            known = sorted({k for r in records for k in r.metrics})
            if metric is not None and metric not in known:
                raise ConfigError(
                    f"no game in the run reports {metric!r}; metrics found: {', '.join(known)}"
                )
            chosen = [metric] if metric else headline_metrics({r.game_id for r in records})
            rows = noise_floor(records, metrics=chosen, power=power, alpha=alpha)
        plans = []
        if detect is not None and arms is not None and sd is None:
            assert metric is not None
            plans.append(two_arm_plan(*arms, metric, detect, power=power, alpha=alpha))
        elif detect is not None:
            sources: list[NoiseRow | None] = [r for r in rows if r.metric == metric] or [None]
            for row in sources:
                spread = sd if sd is not None else (row.sd if row else WORST_SD)
                plan: dict[str, Any] = {
                    "game_id": row.game_id if row else None,
                    "metric": metric,
                    "detect": detect,
                    "power": power,
                    "alpha": alpha,
                    "sd": spread,
                    "sd_from": "--sd" if sd is not None else ("run" if row else "worst case"),
                    "games_per_side_unpaired": games_needed(
                        detect, spread, paired=False, power=power, alpha=alpha
                    )
                    if not math.isnan(spread)
                    else None,
                    "scenarios_paired": None,
                    "lower_bound": False,
                    "assumption": "",
                }
                if row is not None and not math.isnan(row.within_sd):
                    plan["sd_paired"] = row.within_sd * math.sqrt(2.0)
                    plan["scenarios_paired"] = games_needed(
                        detect, plan["sd_paired"], power=power, alpha=alpha
                    )
                    plan["lower_bound"] = True
                    plan["assumption"] = ONE_ARM_ASSUMPTION
                plans.append(plan)
        if analysis_block and (detect is None or metric is None):
            raise ConfigError("--analysis-block needs --detect and --metric (what to plan for)")
    except AccordError as exc:
        raise _fail(exc) from exc
    if analysis_block and plans:
        compared = f"{side_a} vs {side_b}" if side_a and side_b else None
        sys.stdout.write(block_yaml(plans[0], compared))
        return
    if as_json:
        data = {"noise_floor": [r.as_dict() for r in rows], "plans": plans}
        sys.stdout.write(json.dumps(finite(data), indent=1, allow_nan=False) + "\n")
        return
    if rows:
        _print_noise(rows, power, alpha)
    for p in plans:
        _print_plan(p)


SEQUENTIAL_MAX = 2.0
"""The stopping rule's most pairs, as a multiple of the fixed design's: an anytime-valid
sequence gives up some power at any one size, and with bets tuned to the planned effect it
matched a fixed t-test of 80% power at about 1.7 times its size and reached 91% at 2 times
(``bench/bench_sequential.py``, docs/analysis.md "Sequential comparisons")."""


def block_yaml(plan: dict[str, Any], comparison: str | None) -> str:
    """The ``analysis:`` block of `plan` (`accord.runner.config.AnalysisPlan`), as YAML: a
    fixed design of the planned size, and a stopping rule tuned to the planned effect and
    spread that may play up to `SEQUENTIAL_MAX` times as many pairs."""
    import yaml

    from accord.runner.config import AnalysisPlan, Stop

    pairs = int(plan.get("scenarios_paired") or plan["games_per_side_unpaired"])
    spread = plan.get("sd_paired") or plan.get("sd")
    most = math.ceil(SEQUENTIAL_MAX * pairs)
    block = AnalysisPlan(
        primary=[plan["metric"]],
        comparison=comparison,
        alpha=plan["alpha"],
        max_games=2 * most,
        stop=Stop(
            metric=plan["metric"],
            alpha=plan["alpha"],
            max_pairs=most,
            effect=float(plan["detect"]),
            sd=float(spread) if spread is not None and math.isfinite(spread) else None,
        ),
    )
    text: str = yaml.safe_dump(
        {"analysis": block.model_dump(mode="json", exclude_none=True)}, sort_keys=False
    )
    return text


def _print_noise(rows: list[NoiseRow], power: float, alpha: float) -> None:
    table = Table(
        title=f"Noise floor (minimum detectable difference at {power:.0%} power, alpha {alpha:g})"
    )
    for col in (
        "game",
        "metric",
        "games",
        "repeated scenarios",
        "k",
        "within-scenario SD",
        "flips",
        "SD",
        "MDD paired",
        "MDD unpaired",
    ):
        table.add_column(col, justify="left" if col in {"game", "metric"} else "right")
    for r in rows:
        table.add_row(
            *(
                Text(c)
                for c in (
                    r.game_id,
                    r.metric,
                    str(r.games),
                    str(r.scenarios),
                    _g(r.repeats),
                    _g(r.within_sd),
                    "–" if math.isnan(r.flip_share) else f"{r.flip_share:.0%}",
                    _g(r.sd),
                    _g(r.mdd_paired),
                    _g(r.mdd_unpaired),
                )
            )
        )
    console.print(table)
    if any(r.scenarios == 0 for r in rows):
        console.print(
            Text(
                "No scenario was played twice: add repeats: k to the experiment (the same scenario "
                "k times) to measure the within-scenario spread and the paired MDD."
            )
        )
    console.print(
        Text(
            "flips: repeated scenarios whose value changed between repeats. MDD paired: two runs "
            "of this design on the same scenarios, repeats averaged, the sides differing by a "
            "constant; MDD unpaired: two independent runs of this many games."
        )
    )
    if any(r.within_sd == 0 for r in rows):
        console.print(
            Text(
                "MDD paired 0: the agents repeat exactly (within-scenario SD 0, e.g. reference "
                "agents), so the repeat noise is nil; it says nothing of how much two sides' "
                "differences vary between scenarios. Plan with a pilot of both arms (--from A "
                "--from B) for that."
            )
        )


def _print_plan(p: dict[str, Any]) -> None:
    where = f" of {p['game_id']}" if p["game_id"] else ""
    source = {
        "run": "measured in the run (both arms' games together)",
        "--sd": "given",
        "worst case": "the worst case for a rate; measure it with --from RUN",
    }.get(p["sd_from"], p["sd_from"])
    lines = [
        f"To detect a difference of {p['detect']:g} in {p['metric'] or 'the metric'}{where} "
        f"({p['power']:.0%} power, alpha {p['alpha']:g}, SD {_g(p['sd'])} {source}):",
        f"  unpaired (fresh games on each side): {_n(p['games_per_side_unpaired'])} games per side",
    ]
    if p["scenarios_paired"] is not None and "pairs" in p:
        lines.append(
            f"  paired (both sides on the same scenarios): {_n(p['scenarios_paired'])} scenarios, "
            f"from {p['sd_paired_from']} (SD {_g(p['sd_paired'])}, mean "
            f"{p['mean_difference']:+.3g})"
        )
    elif p["scenarios_paired"] is not None:
        lines.append(
            f"  paired (both sides on the same scenarios): at least {_n(p['scenarios_paired'])} "
            f"scenarios (a lower bound: SD {_g(p['sd_paired'])} = within-scenario SD x sqrt 2; "
            f"it {p['assumption']})"
        )
    else:
        lines.append(
            "  paired (same scenarios): fewer when the two sides' scores move together across "
            "scenarios; measure with repeats: k and --from RUN"
        )
    console.print(Text("\n".join(lines)))


def _g(v: float) -> str:
    return "–" if v is None or math.isnan(v) else f"{v:.3g}"


def _n(v: int | None) -> str:
    return "–" if v is None else f"{v:,}"
