"""The drift sentinel: has the model behind a name changed since a baseline run?

`accord drift BASELINE` (`accord.api.drift`) replays the baseline's games, the same scenarios,
seeds and seats, now (a *canary* run, written to a folder of its own: `canary_plan`), then
`drift_report` compares the two:

* **Metrics.** The canary's games are paired with the baseline's by the paired comparison
  (`accord.analysis.paired.compare`: the same game, scenario, seat assignment, seed and
  setup; repeats of a scenario averaged), per headline metric of each game. A metric has
  *drifted* when its paired difference is significant at ``alpha`` after Holm's correction
  over the metrics compared (the sign-flip permutation test), so an unchanged model raises a
  false alarm on at most ``alpha`` of canaries. Each metric also gets the minimum detectable
  difference (MDD, 80% power) of this comparison at the family's level (``alpha`` over the
  number of metrics, the first step of Holm), taken from the baseline's noise floor
  (`accord.analysis.power_noise`: the spread of a metric when the same scenario is played
  again, from the baseline's ``repeats``): the per-scenario difference of two runs without
  drift has spread ``within_sd * sqrt(1 / k + 1 / k')`` (``k`` and ``k'`` games per scenario
  in the baseline and the canary). With fewer than `MIN_FLOOR_SCENARIOS`
  repeated scenarios in the baseline the spread is read from the paired differences
  themselves (and the row says so). ``beyond_mdd`` says
  whether the change is at least that large: a swap of that size is found four times in five.
* **What was served.** The model ids, fingerprints and version headers the provider named
  (`accord.runner.served`) in the canary against those of the baseline, per seat model: a
  value the baseline never saw is a change, whatever the metrics say.

Drift is detected (exit 1 on the command line) when a metric drifted or what was served
changed. The canary folder gets ``drift.json`` (`DriftReport`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from accord.analysis.paired import Comparison, GameRecord, compare, headline_metrics, record
from accord.analysis.power import DEFAULT_ALPHA, mdd
from accord.analysis.power_noise import noise_floor
from accord.analysis.verify_files import read_plan
from accord.core.errors import ConfigError, ModelError
from accord.runner.planning import RunPlan
from accord.runner.served import ServedTally, header_values, served_counts
from accord.traces.io import atomic_write_json
from accord.traces.reader import read_trace, run_traces_folder, skip_reason, trace_files

DRIFT_VERSION = 1
"""Schema version of ``drift.json``."""
MIN_FLOOR_SCENARIOS = 5
"""Fewest repeated scenarios in the baseline for its noise floor to set the MDD (fewer give
too rough a spread; the paired differences are used instead)."""


class DriftMetric(BaseModel):
    """One metric of one game: the canary minus the baseline."""

    game_id: str = Field(description="The game.")
    metric: str = Field(description="The metric (a headline metric of the game).")
    mode: str = Field(description="'paired', or 'unpaired' with the reason in `reason`.")
    reason: str = Field("", description="Why the comparison is unpaired ('' when paired).")
    pairs: int = Field(description="Scenarios played by both runs (repeats count once).")
    baseline_mean: float = Field(description="The baseline's mean over the compared games.")
    canary_mean: float = Field(description="The canary's mean over the compared games.")
    diff: float = Field(description="Canary minus baseline (the mean paired difference).")
    ci_low: float | None = Field(description="95% interval of the difference, low end.")
    ci_high: float | None = Field(description="95% interval of the difference, high end.")
    p: float = Field(description="The test's p-value (sign-flip permutation when paired).")
    p_holm: float = Field(description="`p` after Holm's correction over the metrics compared.")
    mdd: float | None = Field(
        description="The minimum detectable difference of this comparison (80% power, at "
        "alpha over the number of metrics); None when it cannot be estimated."
    )
    mdd_from: str = Field(description="Where the spread behind `mdd` comes from.")
    beyond_mdd: bool = Field(description="Whether |diff| is at least `mdd` (and not 0).")
    drifted: bool = Field(description="Whether `p_holm` is at most alpha.")


class ServedChange(BaseModel):
    """Something the provider named in the canary that it never named in the baseline."""

    seat: str = Field(description="The seat model (provider/model as the run asked for it).")
    kind: str = Field(description="'model', 'fingerprint' or 'version <header>'.")
    baseline: list[str] = Field(description="The values the baseline's replies named.")
    canary: list[str] = Field(description="The values the canary's replies named.")


class DriftReport(BaseModel):
    """``drift.json``: what `accord drift` found (module docstring)."""

    version: int = Field(DRIFT_VERSION, description="Schema version of this file.")
    baseline: str = Field(description="The baseline run directory.")
    canary: str = Field(description="The canary run directory (where this file is).")
    alpha: float = Field(description="The false-alarm rate the metric tests are held to.")
    games_baseline: int = Field(description="Complete baseline games compared.")
    games_canary: int = Field(description="Complete canary games compared.")
    failed_canary: list[dict[str, str]] = Field(
        default_factory=list,
        description="Canary games left out: {trace, status, reason} (failed or unreadable).",
    )
    matched_on: str = Field("", description="What the games were paired on.")
    metrics: list[DriftMetric] = Field(default_factory=list, description="One row per metric.")
    left_out: list[str] = Field(
        default_factory=list,
        description="Metrics with one constant value in both runs (game:metric): unchanged.",
    )
    served: list[ServedChange] = Field(
        default_factory=list, description="Changes of what the provider said it served."
    )
    served_unknown: list[str] = Field(
        default_factory=list,
        description="Seat models whose baseline recorded nothing about what was served "
        "(a run made before Accord recorded it, or a provider that says nothing).",
    )
    drifted: bool = Field(description="A metric drifted or what was served changed.")

    @property
    def exit_code(self) -> int:
        """1 when drift was detected, else 0 (bad input is 2, raised before this exists)."""
        return 1 if self.drifted else 0

    def drifted_metrics(self) -> list[DriftMetric]:
        """The metrics whose change is significant."""
        return [m for m in self.metrics if m.drifted]


@dataclasses.dataclass
class _Side:
    records: list[GameRecord]
    served: ServedTally
    left: list[dict[str, str]]


def _read_side(folder: Path, keep: set[str] | None = None) -> _Side:
    """The complete games of a run (`keep`: only these trace ids), what their providers
    said they served, and the games left out."""
    side = _Side([], ServedTally(), [])
    for path in trace_files(run_traces_folder(folder)):
        if keep is not None and path.stem not in keep:
            continue
        try:
            trace = read_trace(path)
        except ConfigError as exc:
            reason = skip_reason(path, exc)[:300]
            side.left.append({"trace": path.stem, "status": "unreadable", "reason": reason})
            continue
        if trace.status != "complete":
            reason = (trace.error or "")[:300]
            side.left.append({"trace": path.stem, "status": trace.status, "reason": reason})
            continue
        side.records.append(dataclasses.replace(record(trace), trace_id=path.stem))
        side.served.add(served_counts(trace))
    return side


def default_out(baseline: Path) -> Path:
    """Where a canary goes without ``--out``: beside the baseline, named after it and the
    time (UTC)."""
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    return baseline.parent / f"{baseline.name}-drift-{stamp}"


def canary_plan(baseline: Path, *, games: int | None = None, out: Path | None = None) -> RunPlan:
    """The canary of `baseline`: its planned games whose baseline trace is complete, in plan
    order (the first `games` of them), to be played into `out`. `ConfigError` (one line,
    nothing written) for a folder that is not a run, too few complete games, or an `out`
    that already holds files."""
    if not baseline.is_dir():
        raise ConfigError(f"{baseline} is not a run directory; give the folder of a run.")
    plan, problem = read_plan(baseline)
    if plan is None:
        raise ConfigError(
            f"{baseline}: {problem}; accord drift replays a run's planned games, so the "
            "baseline must be a run directory written by accord run."
        )
    if games is not None and games < 2:
        raise ConfigError(f"--games {games}: a canary needs at least 2 games.")
    complete = {r.trace_id for r in _read_side(baseline, set(plan)).records}
    specs = [s for s in plan.values() if s.trace_id in complete]
    if len(specs) < 2:
        raise ConfigError(
            f"{baseline} has {len(specs)} complete planned game{'s' * (len(specs) != 1)}; a "
            "canary needs a baseline with at least 2: finish it (accord run --resume) first."
        )
    if games is not None:
        specs = specs[:games]
    target = out if out is not None else default_out(baseline)
    if target.resolve() == baseline.resolve():
        raise ConfigError("--out is the baseline itself; give a new folder for the canary.")
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise ConfigError(f"--out {target} already holds files; give a new folder.")
    return RunPlan(specs=specs, out=target)


def _sd(xs: Sequence[float]) -> float:
    if len(xs) < 2:
        return math.nan
    m = math.fsum(xs) / len(xs)
    return math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def _differences(a: Iterable[GameRecord], b: Iterable[GameRecord], name: str) -> list[float]:
    """Per scenario played by both (same game, scenario, seats, seed, setup): the mean of
    the canary's repeats minus the mean of the baseline's."""

    def means(side: Iterable[GameRecord]) -> dict[tuple[Any, ...], float]:
        cells: dict[tuple[Any, ...], list[float]] = defaultdict(list)
        for r in side:
            if name in r.metrics:
                key = (r.game_id, r.scenario, r.seating, r.seed, tuple(sorted(r.setup.items())))
                cells[key].append(r.metrics[name])
        return {k: math.fsum(v) / len(v) for k, v in cells.items()}

    ma, mb = means(a), means(b)
    return [mb[k] - ma[k] for k in ma if k in mb]


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _served_changes(base: ServedTally, canary: ServedTally) -> tuple[list[ServedChange], list[str]]:
    before, after = base.result(), canary.result()
    changes: list[ServedChange] = []
    unknown: list[str] = []
    for seat, now in after.items():
        then = before.get(seat)
        if then is None:
            unknown.append(seat)
            continue
        for kind, key in (("model", "models"), ("fingerprint", "fingerprints")):
            old, new = set(then.get(key) or {}), set(now.get(key) or {})
            if old and new - old:
                changes.append(ServedChange(seat=seat, kind=kind, baseline=sorted(old),
                                            canary=sorted(new)))  # fmt: skip
        old_h = header_values(then.get("versions") or {})
        new_h = header_values(now.get("versions") or {})
        for name in sorted(set(old_h) & set(new_h)):
            if new_h[name] - old_h[name]:
                changes.append(
                    ServedChange(
                        seat=seat,
                        kind=f"version {name}",
                        baseline=sorted(old_h[name]),
                        canary=sorted(new_h[name]),
                    )
                )
    return changes, unknown


def metric_drift(
    baseline: Sequence[GameRecord],
    canary: Sequence[GameRecord],
    *,
    alpha: float = DEFAULT_ALPHA,
    metrics: Sequence[str] | None = None,
) -> tuple[Comparison, list[DriftMetric]]:
    """The paired comparison of `canary` with `baseline` and its drift rows (module
    docstring); the records of one side are complete games."""
    # The canary plays the baseline's games again: the same trace ids and often, with a model
    # that answers the same, the same content. Not a copy: its own games, named as such.
    canary_records = [dataclasses.replace(r, identity=f"canary:{r.identity}") for r in canary]
    names = list(metrics) if metrics is not None else headline_metrics(r.game_id for r in baseline)
    comparison = compare(baseline, canary_records, metrics=names)
    floor = {(n.game_id, n.metric): n for n in noise_floor(baseline, metrics=names)}
    level = alpha / max(1, len(comparison.rows))
    rows: list[DriftMetric] = []
    for row in comparison.rows:
        noise = floor.get((row.game_id, row.metric))
        if (
            noise is not None
            and math.isfinite(noise.within_sd)
            and noise.scenarios >= MIN_FLOOR_SCENARIOS
        ):
            played = sum(1 for r in canary if r.game_id == row.game_id and row.metric in r.metrics)
            repeats = max(1.0, played / max(1, row.pairs))  # the canary's games per scenario
            spread = noise.within_sd * math.sqrt(1.0 / noise.repeats + 1.0 / repeats)
            source = (
                f"the baseline's noise floor ({noise.scenarios} scenarios played "
                f"{noise.repeats:g} times)"
            )
        else:
            base_game = [r for r in baseline if r.game_id == row.game_id]
            can_game = [r for r in canary_records if r.game_id == row.game_id]
            spread = _sd(_differences(base_game, can_game, row.metric))
            source = (
                "the paired differences (the baseline repeats fewer than "
                f"{MIN_FLOOR_SCENARIOS} scenarios)"
            )
        floor_mdd = mdd(spread, row.pairs, alpha=level) if row.pairs >= 2 else math.nan
        ci = row.paired_ci if row.mode == "paired" else row.unpaired_ci
        rows.append(
            DriftMetric(
                game_id=row.game_id,
                metric=row.metric,
                mode=row.mode,
                reason=row.reason,
                pairs=row.pairs,
                baseline_mean=row.mean_a,
                canary_mean=row.mean_b,
                diff=row.diff,
                ci_low=_finite(ci[0]),
                ci_high=_finite(ci[1]),
                p=row.p,
                p_holm=row.p_holm,
                mdd=_finite(floor_mdd),
                mdd_from=source,
                beyond_mdd=math.isfinite(floor_mdd)
                and abs(row.diff) >= floor_mdd
                and row.diff != 0,
                drifted=row.p_holm <= alpha,
            )
        )
    return comparison, rows


def check_alpha(alpha: float) -> None:
    """A `ConfigError` for a test level outside (0, 1)."""
    if not 0.0 < alpha < 1.0:
        raise ConfigError(f"--alpha {alpha:g}: give a level between 0 and 1, e.g. 0.05.")


def drift_report(
    baseline: Path,
    canary: Path,
    *,
    alpha: float = DEFAULT_ALPHA,
    metrics: Sequence[str] | None = None,
) -> DriftReport:
    """Compare the canary at `canary` with the games of `baseline` it replayed (module
    docstring). A `ModelError` when fewer than two canary games completed (their reasons
    are in the canary's traces)."""
    check_alpha(alpha)
    can = _read_side(canary)
    if len(can.records) < 2:
        first = next((g["reason"] for g in can.left if g.get("reason")), "no game finished")
        played = len(can.records) + len(can.left)
        raise ModelError(
            f"the canary in {canary} completed {len(can.records)} of {played} games, too few "
            f"to compare ({first}); fix what failed and run accord drift again."
        )
    base = _read_side(baseline, {r.trace_id for r in can.records})
    comparison, rows = metric_drift(base.records, can.records, alpha=alpha, metrics=metrics)
    changes, unknown = _served_changes(base.served, can.served)
    return DriftReport(
        baseline=str(baseline),
        canary=str(canary),
        alpha=alpha,
        games_baseline=len(base.records),
        games_canary=len(can.records),
        failed_canary=can.left,
        matched_on=comparison.matched_on,
        metrics=rows,
        left_out=comparison.left_out,
        served=changes,
        served_unknown=unknown,
        drifted=any(r.drifted for r in rows) or bool(changes),
    )


def write_drift(report: DriftReport, folder: Path) -> Path:
    """Write `report` as ``folder/drift.json``; return its path."""
    path = folder / "drift.json"
    atomic_write_json(path, report.model_dump(mode="json"))
    return path
