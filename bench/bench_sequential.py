"""The stopping rule of a sequential comparison (`accord.analysis.sequential`), simulated: its
type-I error under the null (also with optional continuation), its power against a fixed-size
paired t-test with the same maximum, and the games it saves (a statistical property; nothing
here is timed).

Each setting simulates `--sims` comparisons (default 1,000). Paired differences d in [-1, 1]
(a metric in [0, 1], B minus A):

- ``normal``: N(delta, 0.137) clipped to [-1, 1]; 0.137 is the SD of the 90 paired
  differences of DSM-Welfare minus IMAP in ``adjusted_excess`` on the canonical calendar
  suite, and delta = 0.035 their mean (the measured effect);
- ``binary``: Bernoulli(0.5 + delta/2) minus Bernoulli(0.5 - delta/2), independent (a 0/1
  outcome per game).

The sequential design looks after every block of 10 pairs and stops when the betting
confidence sequence (alpha 0.05) excludes 0, or at the maximum. The fixed design plays the
maximum and runs a two-sided paired t-test at 0.05. ``continued`` plays on after an undecided
stop at the maximum up to twice the maximum (a user who raises ``max_pairs`` and resumes):
its error is counted over the whole path. "fixed n, same power" is the paired t-test's size
with the power the sequential design reached (`accord.analysis.power`), and "saved" is
1 - mean pairs used / that size.

Run:  python bench/bench_sequential.py [--sims 1000] [--block 10]
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from accord.analysis.power import games_needed
from accord.analysis.sequential import CsPoint, betting_bounds, decide
from accord.analysis.welch import t_two_sided_p

SD = 0.137
EFFECT = 0.035


def draw(kind: str, delta: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """n paired differences of the given kind and mean (about) delta."""
    if kind == "normal":
        return np.clip(rng.normal(delta, SD, n), -1.0, 1.0)
    a = rng.random(n) < 0.5 - delta / 2
    b = rng.random(n) < 0.5 + delta / 2
    return b.astype(float) - a.astype(float)


def sequences(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The betting sequence of every row of `d` (differences in [-1, 1]), in d's units: the
    code `accord.analysis.sequential.difference_sequence` runs, all rows at once."""
    low, high = betting_bounds((d + 1.0) / 2.0)
    return 2.0 * low - 1.0, 2.0 * high - 1.0


def sequential(
    d: np.ndarray, low: np.ndarray, high: np.ndarray, block: int, max_pairs: int
) -> tuple[bool, int, float]:
    """(decided, pairs used, sign of the decision) of one comparison."""
    means = np.cumsum(d[:max_pairs]) / np.arange(1, max_pairs + 1)
    points = [
        CsPoint(n + 1, float(means[n]), float(low[n]), float(high[n])) for n in range(max_pairs)
    ]
    looks = list(range(block, max_pairs + 1, block))
    result = decide(points, max_pairs=max_pairs, checks=looks)
    if result.status == "decided":
        last = result.points[-1]
        return True, result.pairs, 1.0 if last.low > 0 else -1.0
    return False, result.pairs, 0.0


def fixed(d: np.ndarray) -> tuple[bool, float]:
    """(rejected, sign) of the paired t-test of mean 0 at 0.05."""
    sd = float(d.std(ddof=1))
    if sd == 0:
        return bool(d.mean() != 0), math.copysign(1.0, float(d.mean()))
    t = float(d.mean()) / (sd / math.sqrt(d.size))
    return t_two_sided_p(t, d.size - 1) < 0.05, math.copysign(1.0, t)


def setting(
    kind: str, delta: float, max_pairs: int, sims: int, block: int, seed: int
) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    seq_hits = fix_hits = cont_hits = 0
    used = []
    data = np.stack([draw(kind, delta, 2 * max_pairs, rng) for _ in range(sims)])
    lows, highs = sequences(data)
    for d, low, high in zip(data, lows, highs, strict=True):
        decided, n, sign = sequential(d, low, high, block, max_pairs)
        right = sign > 0 if delta > 0 else sign != 0  # under the null any decision is an error
        seq_hits += int(decided and right)
        used.append(n)
        if not decided:  # optional continuation: raise the maximum and resume
            decided, _, sign = sequential(d, low, high, block, 2 * max_pairs)
            right = sign > 0 if delta > 0 else sign != 0
        cont_hits += int(decided and right)
        rejected, fsign = fixed(d[:max_pairs])
        fix_hits += int(rejected and (fsign > 0 if delta > 0 else True))
    power = seq_hits / sims
    same = math.nan
    if delta > 0 and 0.05 < power < 0.999:
        sd = SD if kind == "normal" else math.sqrt(0.5 - delta**2 / 2)
        same = games_needed(delta, sd, paired=True, power=power)
    return {
        "seq": power,
        "continued": cont_hits / sims,
        "fixed": fix_hits / sims,
        "mean_used": float(np.mean(used)),
        "same_power_n": float(same),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=1000, help="Comparisons per setting.")
    parser.add_argument("--block", type=int, default=10, help="Pairs per look.")
    args = parser.parse_args()
    rows = [
        ("normal", 0.0, 90),
        ("binary", 0.0, 90),
        ("normal", 0.0, 250),
        ("normal", EFFECT, 90),
        ("normal", EFFECT, 250),
        ("normal", 2 * EFFECT, 90),
        ("binary", 0.2, 90),
    ]
    print(
        f"{args.sims} comparisons per setting, looks every {args.block} pairs, alpha 0.05; "
        "rates are the share of comparisons that decided (right sign; under the null: any)"
    )
    head = (
        f"{'kind':7} {'delta':>6} {'max':>5} | {'seq':>6} {'+cont.':>6} {'fixed':>6} | "
        f"{'mean pairs':>10} {'fixed n same power':>18} {'saved':>6}"
    )
    print(head)
    print("-" * len(head))
    for i, (kind, delta, max_pairs) in enumerate(rows):
        r = setting(kind, delta, max_pairs, args.sims, args.block, seed=i)
        same = r["same_power_n"]
        saved = 1 - r["mean_used"] / same if same == same else math.nan
        print(
            f"{kind:7} {delta:6.3f} {max_pairs:5d} | {r['seq']:6.1%} {r['continued']:6.1%} "
            f"{r['fixed']:6.1%} | {r['mean_used']:10.1f} "
            + (f"{same:18.0f} {saved:6.0%}" if same == same else f"{'-':>18} {'-':>6}"),
            flush=True,
        )


if __name__ == "__main__":
    main()
