"""The stopping rule of a sequential comparison (`accord.analysis.sequential`), simulated: its
type-I error under the null (also with optional continuation and with a resumed run), its
power against a fixed-size paired t-test with the same maximum, and the games it uses against
the fixed-size design with the same power (a statistical property; nothing here is timed).

Each setting simulates `--sims` comparisons (default 1,000). Paired differences d in [-1, 1]
(a metric in [0, 1], B minus A):

- ``normal``: N(delta, 0.137) clipped to [-1, 1]; 0.137 is the SD of the 90 paired
  differences of DSM-Welfare minus IMAP in ``adjusted_excess`` on the canonical calendar
  suite, and delta = 0.035 their mean (the measured effect);
- ``binary``: Bernoulli(0.5 + delta/2) minus Bernoulli(0.5 - delta/2), independent (a 0/1
  outcome per game).

Two sequences: ``tuned``, the betting sequence with every bet set from the planned effect
0.035 and SD 0.137 (``stop: {effect: 0.035, sd: 0.137}``; for 0/1 outcomes a planned effect
0.2 and their SD, 0.707), and ``plug-in``, the betting sequence whose bets adapt to the data (no
``effect:``). Both look after every block of `--block` pairs (default 5) and stop when the
sequence (alpha 0.05) excludes 0, or at the maximum. The fixed design plays the maximum and
runs a two-sided paired t-test at 0.05.

Columns: ``seq`` the share of comparisons the sequence decided (with the right sign; under the
null, any decision is an error); ``+cont.`` the same when every undecided comparison is
continued to twice the maximum (a user raising ``max_pairs`` and resuming), errors counted
over the whole path; ``fixed`` the t-test's rate at the maximum; ``mean pairs`` the pairs the
sequence used; ``fixed n`` the paired t-test's size with the power the sequence reached
(`accord.analysis.power.games_needed`); ``saved`` 1 - mean pairs / fixed n. A last line
checks resume: the sequence recomputed from the pairs played before an interruption (at a
random block) is the uninterrupted sequence, so a resumed run stops where an uninterrupted
one would.

Run:  python bench/bench_sequential.py [--sims 1000] [--block 5]
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from accord.analysis.power import games_needed
from accord.analysis.sequential import (
    CsPoint,
    betting_bounds,
    decide,
    difference_sequence,
    tuned_bet,
)
from accord.analysis.welch import t_two_sided_p

SD = 0.137
EFFECT = 0.035
CHUNK = 250
BENCH_GRID = 1000
GRID_USED = BENCH_GRID
"""Candidate means per sequence here (runs use `accord.analysis.sequential.GRID`, 4,000): a
coarser grid widens each interval by at most one step more (0.002 in a difference's units),
so the rates below are, if anything, slightly conservative."""


def draw(kind: str, delta: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """n paired differences of the given kind and mean (about) delta."""
    if kind == "normal":
        return np.clip(rng.normal(delta, SD, n), -1.0, 1.0)
    a = rng.random(n) < 0.5 - delta / 2
    b = rng.random(n) < 0.5 + delta / 2
    return b.astype(float) - a.astype(float)


def planned_sd(kind: str) -> float:
    """The SD a study would plan with: the calendar's, or a fair 0/1 outcome's difference."""
    return SD if kind == "normal" else math.sqrt(0.5)


def sequences(d: np.ndarray, bet: float | None) -> tuple[np.ndarray, np.ndarray]:
    """The betting sequence of every row of `d` (differences in [-1, 1]), in d's units: the
    code `accord.analysis.sequential.difference_sequence` runs, rows in chunks."""
    lows, highs = [], []
    for start in range(0, d.shape[0], CHUNK):
        low, high = betting_bounds((d[start : start + CHUNK] + 1.0) / 2.0, bet=bet, grid=GRID_USED)
        lows.append(2.0 * low - 1.0)
        highs.append(2.0 * high - 1.0)
    return np.concatenate(lows), np.concatenate(highs)


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
    kind: str,
    delta: float,
    max_pairs: int,
    design: str,
    sims: int,
    block: int,
    seed: int,
    planned: float = EFFECT,
) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    seq_hits = fix_hits = cont_hits = 0
    used = []
    data = np.stack([draw(kind, delta, 2 * max_pairs, rng) for _ in range(sims)])
    bet = None
    if design == "tuned":
        bet = tuned_bet(planned / 2.0, planned_sd(kind) / 2.0)  # [-1, 1] mapped onto [0, 1]
    lows, highs = sequences(data[:, :max_pairs], bet)
    undecided = []
    for i, (d, low, high) in enumerate(zip(data, lows, highs, strict=True)):
        decided, n, sign = sequential(d, low, high, block, max_pairs)
        right = sign > 0 if delta > 0 else sign != 0  # under the null any decision is an error
        seq_hits += int(decided and right)
        cont_hits += int(decided and right)
        used.append(n)
        if not decided:
            undecided.append(i)
        rejected, fsign = fixed(d[:max_pairs])
        fix_hits += int(rejected and (fsign > 0 if delta > 0 else True))
    if undecided:  # optional continuation: raise the maximum to twice and resume
        rest = data[undecided]
        lows, highs = sequences(rest, bet)
        for d, low, high in zip(rest, lows, highs, strict=True):
            decided, _, sign = sequential(d, low, high, block, 2 * max_pairs)
            right = sign > 0 if delta > 0 else sign != 0
            cont_hits += int(decided and right)
    power = seq_hits / sims
    same = math.nan
    if delta > 0 and power > 0.05:
        sd = SD if kind == "normal" else math.sqrt(0.5 - delta**2 / 2)
        same = games_needed(delta, sd, paired=True, power=min(power, 0.999))
    return {
        "seq": power,
        "continued": cont_hits / sims,
        "fixed": fix_hits / sims,
        "mean_used": float(np.mean(used)),
        "same_power_n": float(same),
    }


def resume_check(sims: int, block: int, seed: int) -> tuple[int, int]:
    """(comparisons whose resumed sequence equals the uninterrupted one, comparisons)."""
    rng = np.random.default_rng(seed)
    bet = tuned_bet(EFFECT / 2.0, SD / 2.0)
    same = 0
    for _ in range(sims):
        d = draw("normal", EFFECT, 120, rng)
        cut = block * int(rng.integers(1, 120 // block))
        whole = difference_sequence(list(d), lo=0.0, hi=1.0, effect=EFFECT, sd=SD)
        before = difference_sequence(list(d[:cut]), lo=0.0, hi=1.0, effect=EFFECT, sd=SD)
        again = difference_sequence(list(d), lo=0.0, hi=1.0, effect=EFFECT, sd=SD)
        same += int(before == whole[:cut] and again == whole and bet > 0)
    return same, sims


ROWS = (
    # kind, true delta, max pairs, design, planned effect of the tuned bets
    ("normal", 0.0, 250, "tuned", EFFECT),
    ("binary", 0.0, 250, "tuned", 0.2),
    ("normal", 0.0, 250, "plug-in", EFFECT),
    ("normal", EFFECT, 123, "tuned", EFFECT),
    ("normal", EFFECT, 200, "tuned", EFFECT),
    ("normal", EFFECT, 250, "tuned", EFFECT),
    ("normal", EFFECT, 300, "tuned", EFFECT),
    ("normal", EFFECT, 300, "plug-in", EFFECT),
    ("normal", 2 * EFFECT, 200, "tuned", EFFECT),
    ("binary", 0.2, 200, "tuned", 0.2),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=1000, help="Comparisons per setting.")
    parser.add_argument("--block", type=int, default=5, help="Pairs per look.")
    parser.add_argument("--resume-sims", type=int, default=50, help="Comparisons resumed.")
    parser.add_argument("--grid", type=int, default=BENCH_GRID, help="Candidate means.")
    args = parser.parse_args()
    global GRID_USED
    GRID_USED = args.grid
    print(
        f"{args.sims} comparisons per setting, looks every {args.block} pairs, alpha 0.05, "
        f"grid {args.grid}; "
        f"tuned: normal planned effect {EFFECT}, sd {SD}; 0/1 planned 0.2, sd 0.707; rates "
        "are the share of comparisons that decided (right sign; under the null: any)"
    )
    head = (
        f"{'kind':7} {'delta':>6} {'max':>5} {'design':>8} | {'seq':>6} {'+cont.':>6} "
        f"{'fixed':>6} | {'mean pairs':>10} {'fixed n':>8} {'saved':>6}"
    )
    print(head)
    print("-" * len(head))
    for i, (kind, delta, max_pairs, design, planned) in enumerate(ROWS):
        r = setting(kind, delta, max_pairs, design, args.sims, args.block, i, planned)
        same = r["same_power_n"]
        saved = 1 - r["mean_used"] / same if same == same else math.nan
        print(
            f"{kind:7} {delta:6.3f} {max_pairs:5d} {design:>8} | {r['seq']:6.1%} "
            f"{r['continued']:6.1%} {r['fixed']:6.1%} | {r['mean_used']:10.1f} "
            + (f"{same:8.0f} {saved:6.0%}" if same == same else f"{'-':>8} {'-':>6}"),
            flush=True,
        )
    same, total = resume_check(args.resume_sims, args.block, seed=99)
    print(
        f"resume: the sequence recomputed after an interruption equals the uninterrupted one "
        f"in {same} of {total} comparisons"
    )


if __name__ == "__main__":
    main()
