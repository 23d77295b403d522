"""Paired comparison of two runs, batches or models: `accord compare`, the web compare page
and the comparison tables of `accord report` all call `compare`.

**Matching** (`accord.analysis.paired_match`): like with like. Games pair on game id and
version, scenario digest, seat assignment, seed and setup but the compared factor; cells are
never pooled as repeats, exact duplicates are named and left out, a self-comparison or sides
that differ in more than one factor are refused. Repeats of one setup are averaged first.

**Per metric** (B minus A): with at least `MIN_PAIRS` matched scenarios carrying the metric,
the mean paired difference, its CI and the sign-flip permutation p-value
(`accord.analysis.paired_stats`); otherwise (or when under `MIN_MATCH_SHARE` of the games
found a counterpart) an unpaired comparison of all the games each side has, with the
reason. Both the paired and the unpaired CI are always given, so their widths can be
compared. Holm covers every metric row; unmatched games are listed (`Comparison.unmatched_a`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from accord.analysis import paired_stats as ps
from accord.analysis.paired_match import SELECTED, drop_duplicates, match
from accord.core.errors import AccordError, ConfigError
from accord.traces.schema import Trace

MIN_PAIRS = 8
"""Fewest pairs for a paired comparison: from 7 on, the paired interval covers 93-97% for normal,
skewed and 0/1 differences (``bench/bench_interval_coverage.py``; at 5-6 pairs 0/1 ones ~91%,
skewed ones 92.6-93.1%); 8 keeps a margin for rarer 0/1 outcomes."""
MIN_MATCH_SHARE = 0.5
"""Below this share of scenarios with a counterpart the headline comparison is unpaired: the
pairs would describe a different (and possibly chosen) subset of the games."""


@dataclass(frozen=True)
class GameRecord:
    """What a comparison needs of one complete game."""

    trace_id: str
    game_id: str
    seed: int | None
    scenario: str
    """Digest of the scenario played (see the module docstring)."""
    seating: str
    """The seat assignment: first speaker (and the chosen model's seats, see `select`)."""
    metrics: Mapping[str, float]
    labels: Mapping[str, Any] = field(default_factory=dict)
    players: tuple[str, ...] = ()
    setup: Mapping[str, str] = field(default_factory=dict)
    """Each part of the configuration that can change an outcome: ``options.NAME`` per game
    option, ``seat I`` per seat's agent spec (`accord.analysis.paired_match`)."""
    identity: str = ""
    """Digest of everything that makes the game what it is (exact duplicates share it)."""


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def scenario_digest(trace: Trace) -> str:
    """The scenario a trace played: its recorded ``scenario``, else its seed and options."""
    if trace.scenario:
        return _digest(trace.scenario)
    options = {k: v for k, v in trace.config.items() if k != "first_speaker"}
    return _digest([trace.seed, options])


def seating(trace: Trace) -> str:
    """The seat assignment of a trace: its first speaker (runs swap it on one scenario)."""
    first = trace.config.get("first_speaker", trace.run.get("first_speaker"))
    return "" if first is None else f"first={first}"


def numeric_metrics(metrics: Mapping[str, Any]) -> dict[str, float]:
    """The finite numbers among `metrics` (booleans as 0/1; nested values left out)."""
    out: dict[str, float] = {}
    for key, value in metrics.items():
        if isinstance(value, bool | int | float) and math.isfinite(float(value)):
            out[key] = float(value)
    return out


def setup(trace: Trace) -> dict[str, str]:
    """The setup of a trace: each game option but the first speaker (the seat assignment),
    and each seat's agent spec (its display label aside: a name changes no outcome)."""
    out = {f"options.{k}": _text(v) for k, v in trace.config.items() if k != "first_speaker"}
    specs = trace.agents_config or [{"agent": s.agent, "model": s.model} for s in trace.seats]
    for i, spec in enumerate(specs):
        out[f"seat {i}"] = _text(
            {k: v for k, v in spec.items() if k != "label" and v not in (None, {}, [])}
        )
    return out


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and set(value) <= {"agent", "model"}:
        named = [v for v in value.values() if v is not None]
        if len(named) == 1:
            return str(named[0])
    return json.dumps(value, sort_keys=True, default=str, separators=(",", ":"))


def record(trace: Trace) -> GameRecord:
    """The comparison record of one trace."""
    metrics = numeric_metrics(trace.metrics)
    return GameRecord(
        trace_id=trace.trace_id,
        game_id=trace.game_id,
        seed=trace.seed,
        scenario=scenario_digest(trace),
        seating=seating(trace),
        metrics=metrics,
        labels=dict(trace.run),
        players=tuple(s.identity for s in trace.seats),
        setup=setup(trace),
        identity=_digest(
            [
                *(trace.game_id, trace.seed, trace.config, trace.agents_config),
                *(trace.run, trace.scenario, trace.status, metrics),
            ]
        ),
    )


def record_from_row(row: Mapping[str, Any]) -> GameRecord:
    """The record of a web games-table row (which carries ``scenario`` and ``seating``)."""
    return GameRecord(
        trace_id=str(row.get("trace_id")),
        game_id=str(row.get("game_id")),
        seed=row.get("seed"),
        scenario=str(row.get("scenario") or _digest([row.get("seed"), row.get("game_id")])),
        seating=str(row.get("seating") or ""),
        metrics=numeric_metrics(row.get("metrics") or {}),
        labels={k: row.get(k) for k in ("batch", "pairing", "repeat", "replica")},
        players=(players := tuple(str(row.get("players") or "").split(" vs "))),
        setup={f"seat {i}": p for i, p in enumerate(players)},
    )


SELECT_KEYS = ("batch", "pairing", "model", "experiment", "replica")
"""What a side may be narrowed by: ``batch=NAME``, ``pairing=LABEL``, ``model=PROVIDER/M``."""


def parse_selector(text: str | None) -> dict[str, str]:
    """``"batch=X,model=Y"`` -> ``{"batch": "X", "model": "Y"}``; a `ConfigError` otherwise."""
    out: dict[str, str] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in SELECT_KEYS or not value.strip():
            raise ConfigError(
                f"cannot read the side {text!r}: give key=value with a key among "
                f"{', '.join(SELECT_KEYS)}, e.g. batch=imap or model=openai/gpt-5-mini"
            )
        out[key] = value.strip()
    return out


def select(records: Iterable[GameRecord], selector: Mapping[str, str]) -> list[GameRecord]:
    """The records a side keeps. With ``model=M`` the seats M held join the seat assignment,
    so M in seat 0 is compared with the other side's model in seat 0, and those seats become
    the compared factor (their setup reads `paired_match.SELECTED`)."""
    out = []
    for r in records:
        if any(str(r.labels.get(k)) != v for k, v in selector.items() if k != "model"):
            continue
        model = selector.get("model")
        if model is not None:
            seats = [i for i, p in enumerate(r.players) if p == model]
            if not seats:
                continue
            chosen = {f"seat {i}": SELECTED for i in seats}
            r = GameRecord(
                r.trace_id, r.game_id, r.seed, r.scenario,
                f"{r.seating}|seats={','.join(map(str, seats))}", r.metrics, r.labels, r.players,
                {**r.setup, **chosen}, r.identity,
            )  # fmt: skip
        out.append(r)
    return out


@dataclass
class MetricComparison:
    """One metric of one game, B minus A."""

    game_id: str
    metric: str
    mode: str
    """``"paired"`` or ``"unpaired"``."""
    reason: str
    """Why the comparison is unpaired ("" when paired)."""
    pairs: int
    n_a: int
    n_b: int
    mean_a: float
    mean_b: float
    diff: float
    paired_ci: tuple[float, float]
    unpaired_ci: tuple[float, float]
    p: float
    p_exact: bool
    p_holm: float = math.nan
    registered: str = ""
    """``pre-registered`` or ``exploratory`` under a locked analysis plan, else ""."""

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "game_id": self.game_id, "metric": self.metric, "mode": self.mode,
            "reason": self.reason, "pairs": self.pairs, "n_a": self.n_a, "n_b": self.n_b,
            "mean_a": self.mean_a, "mean_b": self.mean_b, "diff": self.diff,
            "paired_ci_low": self.paired_ci[0], "paired_ci_high": self.paired_ci[1],
            "unpaired_ci_low": self.unpaired_ci[0], "unpaired_ci_high": self.unpaired_ci[1],
            "p": self.p, "p_exact": self.p_exact, "p_holm": self.p_holm,
            **({"registered": self.registered} if self.registered else {}),
        }  # fmt: skip


@dataclass
class Comparison:
    """Every metric compared between side A and side B."""

    rows: list[MetricComparison]
    games_a: int
    games_b: int
    matched: int
    """Pairs: scenarios played on both sides in the same setup (repeats count once)."""
    matched_on: str
    """``"seed, scenario and setup"``, ``"scenario and setup (the sides' seeds differ)"`` or
    ``"nothing"``."""
    unmatched_a: list[str]
    unmatched_b: list[str]
    left_out: list[str] = field(default_factory=list)
    """Metrics left out because both sides hold one constant value."""
    factor: list[str] = field(default_factory=list)
    """The setup parts the sides differ in: what is compared (`paired_match`)."""
    match_share: float = math.nan
    """Pairs over the larger side's scenarios; below `MIN_MATCH_SHARE` the headline is unpaired."""
    duplicates_a: list[dict[str, str]] = field(default_factory=list)
    """Exact copies of another game of side A: ``{trace_id, copy_of}``, left out."""
    duplicates_b: list[dict[str, str]] = field(default_factory=list)
    failed_a: list[dict[str, str]] = field(default_factory=list)
    """Games of side A that are not in the comparison: ``{trace, status, reason}`` with
    status ``failed`` or ``unreadable`` (filled by the caller that read the files)."""
    failed_b: list[dict[str, str]] = field(default_factory=list)

    @property
    def mode(self) -> str:
        """``"paired"`` when every row is, ``"unpaired"`` when none is, else ``"mixed"``."""
        modes = {r.mode for r in self.rows}
        return modes.pop() if len(modes) == 1 else ("mixed" if modes else "unpaired")

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "mode": self.mode, "games_a": self.games_a, "games_b": self.games_b,
            "matched": self.matched, "matched_on": self.matched_on,
            "match_share": self.match_share, "factor": self.factor,
            "unmatched_a": self.unmatched_a, "unmatched_b": self.unmatched_b,
            "duplicates_a": self.duplicates_a, "duplicates_b": self.duplicates_b,
            "failed_a": self.failed_a, "failed_b": self.failed_b,
            "left_out": self.left_out, "rows": [r.as_dict() for r in self.rows],
        }  # fmt: skip


def check_sides(a: Sequence[GameRecord], b: Sequence[GameRecord]) -> None:
    """A `ConfigError` (one line, exit 2) for sides that cannot be compared at all."""
    for name, side in (("A", a), ("B", b)):
        if len(side) < 2:
            raise ConfigError(
                f"side {name} has {len(side)} complete game{'s' * (len(side) != 1)}; a "
                "comparison needs at least 2 per side: check the run directory and the "
                "--a/--b selection"
            )
    games_a, games_b = {r.game_id for r in a}, {r.game_id for r in b}
    if not games_a & games_b:
        raise ConfigError(
            f"side A plays {', '.join(sorted(games_a))} and side B plays "
            f"{', '.join(sorted(games_b))}: compare runs of the same game"
        )


def compare(
    a: Sequence[GameRecord],
    b: Sequence[GameRecord],
    *,
    metrics: Sequence[str] | None = None,
    paired: bool = True,
    seed: int = 0,
    drop_constant: bool = True,
) -> Comparison:
    """Compare side B with side A (module docstring). `metrics` limits the metrics; with
    ``paired=False`` every metric is compared unpaired ("unpaired: asked for"). A metric with
    one constant value on both sides is listed in `left_out` (not compared, not in the Holm
    family) unless ``drop_constant=False``. Raises `ConfigError` for sides that are the same
    games or differ in more than the compared factor (`accord.analysis.paired_match`)."""
    a, dup_a = drop_duplicates(a)
    b, dup_b = drop_duplicates(b)
    m = match(a, b)
    low_share = ""
    if m.shared and m.share < MIN_MATCH_SHARE:
        units = max(len(m.keys_a), len(m.keys_b))
        low_share = (
            f"only {len(m.shared)} of {units} scenarios have a counterpart in the same setup "
            f"({m.share:.0%}, under {MIN_MATCH_SHARE:.0%}): the paired mean would describe "
            "other games than the sides played"
        )
    common = sorted({r.game_id for r in a} & {r.game_id for r in b})
    rows: list[MetricComparison] = []
    left_out: list[str] = []
    for game_id in common:
        ga = [r for r in a if r.game_id == game_id]
        gb = [r for r in b if r.game_id == game_id]
        names = sorted({k for r in ga for k in r.metrics} & {k for r in gb for k in r.metrics})
        if metrics is not None:
            names = [x for x in metrics if x in names]
        for name in names:
            va = [r.metrics[name] for r in ga if name in r.metrics]
            vb = [r.metrics[name] for r in gb if name in r.metrics]
            if drop_constant and len(set(va) | set(vb)) == 1:
                left_out.append(f"{game_id}:{name}")
                continue
            shared = [k for k in m.shared if k[0] == game_id]
            pairs = _pairs(a, b, m.keys_a, m.keys_b, shared, name)
            rows.append(_one(game_id, name, va, vb, pairs, paired=paired, seed=seed,
                             low_share=low_share))  # fmt: skip
    for row, adj in zip(rows, ps.holm([r.p for r in rows]), strict=True):
        row.p_holm = adj
    return Comparison(
        rows, len(a), len(b), len(m.shared), m.matched_on, m.unmatched_a, m.unmatched_b,
        left_out, m.factor, m.share, dup_a, dup_b,
    )  # fmt: skip


def _pairs(
    a: Sequence[GameRecord],
    b: Sequence[GameRecord],
    keys_a: Mapping[tuple[Any, ...], list[int]],
    keys_b: Mapping[tuple[Any, ...], list[int]],
    shared: Sequence[tuple[Any, ...]],
    name: str,
) -> list[tuple[float, float]]:
    """Per shared key carrying `name` on both sides: (mean of A's repeats, mean of B's)."""
    out = []
    for k in shared:
        xa = [a[i].metrics[name] for i in keys_a[k] if name in a[i].metrics]
        xb = [b[i].metrics[name] for i in keys_b[k] if name in b[i].metrics]
        if xa and xb:
            out.append((sum(xa) / len(xa), sum(xb) / len(xb)))
    return out


def _one(
    game_id: str,
    name: str,
    va: list[float],
    vb: list[float],
    pairs: list[tuple[float, float]],
    *,
    paired: bool,
    seed: int,
    low_share: str = "",
) -> MetricComparison:
    unpaired_ci = ps.unpaired_ci(va, vb, seed=seed)
    d = np.asarray([y - x for x, y in pairs], dtype=float)
    paired_ci = ps.paired_ci(d, seed=seed) if d.size >= MIN_PAIRS else (math.nan, math.nan)
    reason = ""
    if not paired:
        reason = "asked for (--unpaired)"
    elif not pairs:
        reason = "no scenario was played on both sides in the same setup"
    elif len(pairs) < MIN_PAIRS:
        reason = (
            f"too few pairs: {len(pairs)} scenario{'s' * (len(pairs) != 1)} with this metric "
            f"on both sides, a paired interval needs {MIN_PAIRS}"
        )
    elif low_share:
        reason = low_share
    mean_a, mean_b = sum(va) / len(va), sum(vb) / len(vb)
    if reason:
        p, exact = ps.label_permutation_p(va, vb, seed=seed), False
        return MetricComparison(
            game_id, name, "unpaired", reason, len(pairs), len(va), len(vb), mean_a, mean_b,
            mean_b - mean_a, paired_ci, unpaired_ci, p, exact,
        )  # fmt: skip
    p, exact = ps.sign_flip_p(d, seed=seed)
    return MetricComparison(
        game_id, name, "paired", "", len(pairs), len(va), len(vb),
        float(np.mean([x for x, _ in pairs])), float(np.mean([y for _, y in pairs])),
        float(d.mean()), paired_ci, unpaired_ci, p, exact,
    )  # fmt: skip


def load_side(
    run_dir: Path, unreadable: list[str] | None = None
) -> tuple[list[GameRecord], list[dict[str, str]]]:
    """The complete games of a run directory (or a bare trace folder), and each game left
    out: ``{trace, status, reason}`` with status ``failed`` or ``unreadable``. Files are read
    by the one reader every command uses (`accord.traces.reader`); each unreadable file's
    one-line reason is also appended to `unreadable` when given."""
    from accord.traces.reader import read_trace, run_traces_folder, skip_reason, trace_files

    out: list[GameRecord] = []
    left: list[dict[str, str]] = []
    for path in trace_files(run_traces_folder(run_dir)):
        try:
            trace = read_trace(path)
        except ConfigError as exc:
            reason = skip_reason(path, exc)
            left.append({"trace": path.stem, "status": "unreadable", "reason": reason[:300]})
            if unreadable is not None:
                unreadable.append(reason)
            continue
        if trace.status == "complete":
            # Named by its file: a copied trace keeps the trace id inside it.
            out.append(dataclasses.replace(record(trace), trace_id=path.stem))
        else:
            reason = (trace.error or "")[:300]
            left.append({"trace": path.stem, "status": trace.status, "reason": reason})
    return out, left


def load_records(
    run_dir: Path, unreadable: list[str] | None = None
) -> tuple[list[GameRecord], int]:
    """`load_side` with the number of games left out (failed or unreadable)."""
    records, left = load_side(run_dir, unreadable)
    return records, len(left)


def headline_metrics(game_ids: Iterable[str]) -> list[str] | None:
    """The metrics each game's summary table shows (`Game.summary_metrics`): the default set
    of a comparison, so the Holm family is the headline metrics, not every counter. None
    when no game declares any (then every shared metric is compared)."""
    from accord.core.registry import game_class

    keys: list[str] = []
    for gid in sorted(set(game_ids)):
        try:
            keys += [k for k, _, _ in game_class(gid).summary_metrics]
        except (AccordError, KeyError):  # a game not installed here: compare every metric
            return None
    return list(dict.fromkeys(keys)) or None
