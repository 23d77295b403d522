"""The drift sentinel (`accord drift`) measured against a fake model server: how often it raises a
false alarm on an unchanged model, and how often it detects a swapped one at the planned
number of games (a statistical property; nothing here is timed).

The fake (`accord.testing.policy_server`) serves ``openai-compatible/policy``: schema-valid
replies drawn by a seeded policy with noise (the same scenario played twice gives two games,
as a model sampled at a temperature does). The *swapped* model has another policy (``lean``)
under the same name, fingerprint and version headers: it can only be found from the metrics.

1. A baseline: ``--scenarios`` games of ``--game`` (small options), each scenario played
   ``--repeats`` times, so the baseline has a noise floor.
2. ``--pool`` canaries of the unchanged model and ``--pool`` of the swapped one, each one
   real ``accord.drift`` call (the canary replays the baseline's plan against the fake);
   their verdicts are the end-to-end rates.
3. ``--sims`` simulated sentinels per model, drawn from those games: for every game of the
   plan, the baseline's game is drawn from the unchanged model's runs and the canary's from
   another of its runs (unchanged) or from the swapped model's runs, then judged by
   `accord.analysis.drift.metric_drift` at ``--alpha`` (the code `accord drift` runs).

The effect size of the swap is stated per metric: the mean shift over every game played, the
spread of a per-scenario difference, their ratio (d_z), the MDD of the plan and the planned
number of scenarios for 80% power at alpha over the metrics compared
(`accord.analysis.power.games_needed`).

Run:  python bench/bench_drift.py [--game calendar] [--scenarios 16] [--pool 8] [--sims 1000]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import accord
from accord.analysis.drift import metric_drift
from accord.analysis.paired import GameRecord, headline_metrics, load_side
from accord.analysis.power import games_needed, mdd
from accord.testing.policy_server import policy_server

OPTIONS = {
    "calendar": {"num_agents": 2, "num_meetings": 1, "num_slots": 4, "max_turns_per_round": 4},
    "negotiation": {"rounds": 2, "talk_turns": 2, "reflection": False, "ratio": 0.8},
}


def experiment(folder: Path, game: str, scenarios: int, repeats: int, url: str) -> Path:
    seat = {"model": "openai-compatible/policy", "options": {"base_url": url}}
    data = {
        "version": 1,
        "name": "drift-bench",
        "defaults": {"game": game, "games": scenarios, "seed": 5, "repeats": repeats},
        "batches": [{"name": "self", "options": OPTIONS[game], "agents": [seat, seat]}],
    }
    path = folder / "drift-bench.yaml"
    path.write_text(json.dumps(data))
    return path


def records(run: Path) -> dict[str, GameRecord]:
    found, left = load_side(run)
    if left:
        raise SystemExit(f"{run}: {len(left)} games did not complete: {left[0]}")
    return {r.trace_id: r for r in found}


def rate(hits: int, n: int) -> str:
    p = hits / n if n else math.nan
    se = math.sqrt(p * (1 - p) / n) if n else math.nan
    return f"{hits}/{n} = {p:.3f} (+/- {1.96 * se:.3f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="calendar", choices=sorted(OPTIONS))
    ap.add_argument("--scenarios", type=int, default=16)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--pool", type=int, default=8)
    ap.add_argument("--sims", type=int, default=1000)
    ap.add_argument("--lean", type=float, default=1.5, help="The swapped model's policy.")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--concurrency", type=int, default=8)
    args = ap.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp, policy_server(noise=True, seed=0) as server:
        root = Path(tmp)
        path = experiment(root, args.game, args.scenarios, args.repeats, server.url)
        accord.run(path, out=root / "base", live=False, concurrency=args.concurrency)
        runs: dict[str, list[Path]] = {"unchanged": [root / "base"], "swapped": []}
        verdicts: dict[str, int] = defaultdict(int)
        for kind, lean in (("unchanged", 1.0), ("swapped", args.lean)):
            server.swap(lean)
            for i in range(args.pool):
                server.reseed(1000 * (lean != 1.0) + i + 1)
                out = root / f"{kind}-{i}"
                report = accord.drift(
                    root / "base", out=out, alpha=args.alpha, concurrency=args.concurrency
                )
                verdicts[kind] += bool(report.drifted_metrics())
                runs[kind].append(out)
        played = time.monotonic() - started
        pools = {kind: [records(r) for r in found] for kind, found in runs.items()}
    ids = sorted(pools["unchanged"][0])
    games = len(ids)
    print(
        f"{args.game}: {args.scenarios} scenarios x {args.repeats} repeats = {games} games a "
        f"run; swapped lean {args.lean:g}; {args.pool} canaries per model, played in "
        f"{played:.0f} s (machine shared and loaded)"
    )
    print(f"end to end (accord drift on real canaries, alpha {args.alpha:g}):")
    print(f"  false alarms, unchanged model: {rate(verdicts['unchanged'], args.pool)}")
    print(f"  detections, swapped model:     {rate(verdicts['swapped'], args.pool)}")

    # The effect of the swap, per headline metric (the family the sentinel tests), from every
    # game played: per scenario, the mean of its repeats in a swapped run minus the mean in an
    # unchanged run.
    first = pools["unchanged"][0]
    cells: dict[tuple[str, str], list[str]] = defaultdict(list)
    for tid in ids:
        cells[(first[tid].scenario, first[tid].seating)].append(tid)
    names = headline_metrics({r.game_id for r in first.values()}) or []
    rng = random.Random(0)
    effects = []
    for name in names:
        a = [
            r.metrics[name] for run in pools["unchanged"] for r in run.values() if name in r.metrics
        ]
        b = [r.metrics[name] for run in pools["swapped"] for r in run.values() if name in r.metrics]
        if not a or not b or len(set(a) | set(b)) == 1:
            continue
        diffs = []
        for _ in range(400):
            cell = rng.choice(list(cells.values()))
            xa = [rng.choice(pools["unchanged"])[t].metrics.get(name) for t in cell]
            xb = [rng.choice(pools["swapped"])[t].metrics.get(name) for t in cell]
            if None not in xa and None not in xb:
                diffs.append(sum(xb) / len(xb) - sum(xa) / len(xa))  # type: ignore[arg-type]
        delta = sum(b) / len(b) - sum(a) / len(a)
        mean_d = sum(diffs) / len(diffs)
        sd = math.sqrt(sum((d - mean_d) ** 2 for d in diffs) / (len(diffs) - 1))
        effects.append((name, delta, sd))
    family = max(1, len(effects))
    print(
        f"effect of the swap per headline metric that varies ({family}; a scenario is "
        f"{args.repeats} games a side; MDD and plan at alpha/{family}, 80% power):"
    )
    print("  metric                        shift    sd_d     d_z  MDD(plan)  planned scenarios")
    for name, delta, sd in effects:
        dz = abs(delta) / sd if sd else math.inf
        plan_mdd = mdd(sd, len(cells), alpha=args.alpha / family)
        need = games_needed(abs(delta), sd, alpha=args.alpha / family) if delta else "-"
        print(f"  {name:<28} {delta:+.3f}  {sd:7.3f}  {dz:5.2f}  {plan_mdd:9.3f}  {need}")

    def draw(kind: str, avoid: list[dict[str, GameRecord]] | None) -> list[GameRecord]:
        out = []
        for i, tid in enumerate(ids):
            choices = pools[kind]
            pick = rng.choice(choices)
            while avoid is not None and kind == "unchanged" and pick is avoid[i]:
                pick = rng.choice(choices)
            out.append(pick[tid])
        return out

    alarms = {"unchanged": 0, "swapped": 0}
    for _ in range(args.sims):
        runs_a = [rng.choice(pools["unchanged"]) for _ in ids]
        base = [run[tid] for run, tid in zip(runs_a, ids, strict=True)]
        for kind in alarms:
            canary = draw(kind, runs_a)
            _, rows = metric_drift(base, canary, alpha=args.alpha)
            alarms[kind] += any(r.drifted for r in rows)
    print(f"simulated sentinels ({args.sims} per model, drawn from the games above):")
    print(f"  false alarms, unchanged model: {rate(alarms['unchanged'], args.sims)}")
    print(f"  detections, swapped model:     {rate(alarms['swapped'], args.sims)}")


if __name__ == "__main__":
    main()
