"""The sequential loop: play an experiment's paired games block by block until the stopping
rule of its ``stop:`` block decides (`accord.analysis.sequential`).

**Sides and pairs.** The experiment holds two sides: two batches, or two pairings of one
batch. Games of the two sides pair by their place in the plan (task, repeat, first speaker,
replica); the two games of a pair must play the same scenario (a calendar suite's task, or
the shared seeds of one batch's pairings), else the run is refused before a block is
played. Pairs are taken in plan order, `block` at a time.

**Each block** plays both sides' games of the next pairs (`accord.runner.run.run_sync` with
``only``: the plan file always holds every game, so ``--resume`` accepts it), reads their
traces, appends the differences B - A of the metric to the sequence, and applies the rule.
A pair with a failed game leaves the sequence and is listed. ``DIR/sequential.json`` holds
the rule, the sequence after every pair, the looks, the decision and the pairs left out.

**Resume.** The sequence is a function of the ordered pairs alone, so ``--resume`` reads
the traces already played, rebuilds the same sequence, and plays on from where it stopped:
the same sequence, continued. Raising `max_pairs` after an undecided stop continues it too
(a confidence sequence stays valid under optional continuation).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accord.analysis.paired import scenario_digest
from accord.analysis.sequential import Decision, decide, difference_sequence
from accord.core.errors import ConfigError
from accord.runner.config import Stop
from accord.runner.specs import GameSpec

SCHEMA_VERSION = 1


@dataclass
class Pair:
    """The two games (or two groups of swapped games) of one place in the plan."""

    key: tuple[Any, ...]
    a: list[GameSpec] = field(default_factory=list)
    b: list[GameSpec] = field(default_factory=list)


def sides(specs: Sequence[GameSpec]) -> tuple[str, list[str], str]:
    """``(label, [side A, side B], what)``: the two batches, else two pairings of one batch."""
    for label in ("batch", "pairing"):
        names = list(dict.fromkeys(str(s.labels.get(label)) for s in specs))
        if len(names) == 2:
            return label, names, f"{label} {names[0]!r} against {label} {names[1]!r}"
        if len(names) > 2:
            raise ConfigError(
                f"a sequential comparison needs two sides; this experiment has {len(names)} "
                f"{label}es ({', '.join(names[:4])}): keep two batches, or two pairings"
            )
    raise ConfigError(
        "a sequential comparison needs two sides: give two batches (or two pairings in one "
        "batch) that play the same scenarios"
    )


def pairs_of(specs: Sequence[GameSpec]) -> tuple[str, list[Pair]]:
    """The pairs of the plan, in plan order, and a line naming the sides."""
    label, names, what = sides(specs)
    out: dict[tuple[Any, ...], Pair] = {}
    for s in specs:
        key = tuple(s.labels.get(k) for k in ("task", "repeat", "replica"))
        pair = out.setdefault(key, Pair(key))
        (pair.a if str(s.labels.get(label)) == names[0] else pair.b).append(s)
    lonely = [p for p in out.values() if len(p.a) != len(p.b) or not p.a]
    if lonely:
        raise ConfigError(
            f"the two sides do not play the same games ({len(lonely)} places in the plan have "
            "a game on one side only): give both sides the same games, suite and repeats"
        )
    return what, list(out.values())


def _value(out: Path, spec: GameSpec, metric: str) -> tuple[float | None, str, str]:
    """``(metric value or None, scenario digest, why None)`` of one played game."""
    from accord.traces.io import read_trace

    path = out / "traces" / f"{spec.trace_id}.json"
    if not path.exists():
        return None, "", "not played"
    trace = read_trace(path)
    if trace.status != "complete":
        return None, scenario_digest(trace), f"failed: {trace.error or ''}"[:200]
    value = trace.metrics.get(metric)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(
            f"{spec.game} reports no number {metric!r} (game {spec.trace_id}): name one of its "
            f"metrics, e.g. {', '.join(sorted(trace.metrics)[:5])}"
        )
    return float(value), scenario_digest(trace), ""


def differences(
    out: Path, pairs: Sequence[Pair], metric: str, bounds: tuple[float, float] = (0.0, 1.0)
) -> tuple[list[float], list[dict[str, str]]]:
    """B - A of `metric` per played pair (swapped games averaged), and the pairs left out.
    A value outside `bounds` is refused: the sequence's guarantee rests on the range."""
    diffs: list[float] = []
    left: list[dict[str, str]] = []
    for pair in pairs:
        got = [_value(out, s, metric) for s in [*pair.a, *pair.b]]
        for (v, _, _), s in zip(got, [*pair.a, *pair.b], strict=True):
            if v is not None and not bounds[0] <= v <= bounds[1]:
                raise ConfigError(
                    f"{metric} is {v:g} in game {s.trace_id}, outside the range "
                    f"[{bounds[0]:g}, {bounds[1]:g}] the stop: rule states: give the metric's "
                    "true range (range: [low, high]), or compare a bounded metric"
                )
        bad = next((why for v, _, why in got if v is None), "")
        if bad:
            left.append({"pair": "/".join(s.trace_id for s in [*pair.a, *pair.b]), "why": bad})
            continue
        n = len(pair.a)
        if {d for _, d, _ in got[:n]} != {d for _, d, _ in got[n:]}:
            raise ConfigError(
                f"games {pair.a[0].trace_id} and {pair.b[0].trace_id} play different "
                "scenarios, so they cannot be paired: use a suite, or put both sides in one "
                "batch (two pairings share its seeds)"
            )
        mean_a = sum(v for v, _, _ in got[:n] if v is not None) / n
        mean_b = sum(v for v, _, _ in got[n:] if v is not None) / n
        diffs.append(mean_b - mean_a)
    return diffs, left


def run_until_decided(
    specs: Sequence[GameSpec],
    out: Path,
    rule: Stop,
    *,
    resume: bool = False,
    play: Callable[[Sequence[GameSpec], set[str], bool], object] | None = None,
    on_look: Callable[[Decision], None] | None = None,
) -> dict[str, Any]:
    """Play `specs` block by block until `rule` decides (module docstring); returns what it
    writes to ``out/sequential.json``. `play(specs, ids, resume)` plays the games `ids` (by
    default `accord.runner.run.run_sync` with ``only=ids``)."""
    what, pairs = pairs_of(specs)
    max_pairs = min(rule.max_pairs or len(pairs), len(pairs))
    if play is None:
        from accord.runner.run import run_sync

        def play(all_specs: Sequence[GameSpec], ids: set[str], again: bool) -> object:
            return run_sync(all_specs, out, resume=again, only=ids)

    lo, hi = rule.range
    taken = 0
    looks: list[int] = []
    again = resume
    while True:
        taken = min(taken + rule.block, max_pairs)
        ids = {s.trace_id for p in pairs[:taken] for s in [*p.a, *p.b]}
        play(specs, ids, again)
        again = True
        diffs, left = differences(out, pairs[:taken], rule.metric, rule.range)
        if diffs:
            looks.append(len(diffs))
        points = difference_sequence(
            diffs, lo=lo, hi=hi, alpha=rule.alpha, effect=rule.effect, sd=rule.sd
        )
        stop_at = len(diffs) if taken >= max_pairs else max_pairs
        decision = decide(points, max_pairs=stop_at, margin=rule.margin, checks=looks)
        if on_look is not None:
            on_look(decision)
        if decision.status != "continue" or taken >= max_pairs:
            break
    if decision.status == "continue":
        decision = Decision("undecided", "every pair of the plan was played", len(diffs), points)
    result = {
        "version": SCHEMA_VERSION,
        "sides": what,
        "rule": rule.model_dump(mode="json"),
        "pairs_planned": len(pairs),
        "pairs_played": taken,
        "games_played": len(ids),
        "games_planned": len(specs),
        "looks": looks,
        "left_out": left,
        **decision.as_dict(),
    }
    path = out / "sequential.json"
    path.write_text(json.dumps(result, indent=1, allow_nan=False) + "\n", encoding="utf-8")
    return result


def sequence_rows(run_dir: Path) -> tuple[str, list[dict[str, Any]]] | None:
    """The title and rows of ``report/sequential.md``: the sequence at each look and the
    stopping point of a sequential run (its ``sequential.json``); None for other runs."""
    from accord.core.inputs import load_json, read_text

    path = run_dir / "sequential.json"
    if not path.is_file():
        return None
    data = load_json(read_text(path, what="sequential record", max_bytes=1 << 24), source=str(path))
    try:
        looks = set(data["looks"])
        rows: list[dict[str, Any]] = [
            {"pairs": p["n"], "mean": p["mean"], "low": p["low"], "high": p["high"],
             "look": "stop" if p["n"] == data["pairs"] else "continue"}
            for p in data["sequence"]
            if p["n"] in looks or p["n"] == data["pairs"]
        ]  # fmt: skip
        title = (
            f"Sequential comparison of {data['rule']['metric']} (B - A, {data['sides']}): "
            f"{data['status']}, {data['reason']}; {data['games_played']} of "
            f"{data['games_planned']} games played"
        )
    except (KeyError, TypeError) as exc:
        raise ConfigError(f"{path} is not a sequential record this Accord wrote ({exc})") from exc
    return title, rows
