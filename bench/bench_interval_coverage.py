"""Coverage of the confidence intervals `accord compare` prints (a statistical property, not a
speed: nothing here is timed).

For each kind of difference and each sample size n, `--reps` samples are drawn with a known
true mean, the interval is computed, and the share of intervals that contain the true mean
is printed (the coverage; 95% is the target, and with 2,000 samples the Monte Carlo standard
error is about 0.5 points), with the intervals' mean width.

Kinds of data:

- ``normal``: paired differences N(0.1, 1);
- ``skewed``: paired differences Exp(1) (skewness 2, heavier than most bounded metrics);
- ``binary``: the difference of two 0/1 outcomes, B ~ Bernoulli(0.6) minus A ~ Bernoulli(0.5)
  (values -1, 0, 1; mean 0.1), as a success rate compared game by game.

Unpaired rows draw n games per side: N(0, 1) against N(0.1, 1), Exp(1) against Exp(1) + 0.1,
Bernoulli(0.5) against Bernoulli(0.6).

Intervals: ``compare`` (exactly the functions `accord compare` calls: the studentized
bootstrap widened to Student's t interval, `accord.analysis.paired_stats.paired_ci` and
`unpaired_ci`); with ``--others`` also ``percentile`` (the percentile bootstrap used before)
and ``t`` (Student's t alone).

Run:  python bench/bench_interval_coverage.py [--reps 2000] [--resamples 2000] [--sizes 3,5,10]
      [--others]
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

import numpy as np

from accord.analysis import paired_stats as ps
from accord.analysis.paired import MIN_PAIRS
from accord.analysis.power import t_quantile

Array = np.ndarray
SIZES = (3, 5, 6, 7, 8, 10, 20, 50, 100)


def paired_draw(kind: str, n: int, rng: np.random.Generator) -> tuple[Array, float]:
    """One sample of n paired differences and their true mean."""
    if kind == "normal":
        return rng.normal(0.1, 1.0, n), 0.1
    if kind == "skewed":
        return rng.exponential(1.0, n), 1.0
    a, b = rng.random(n) < 0.5, rng.random(n) < 0.6
    return b.astype(float) - a.astype(float), 0.1


def unpaired_draw(kind: str, n: int, rng: np.random.Generator) -> tuple[Array, Array, float]:
    """n games per side and the true difference of means (B - A)."""
    if kind == "normal":
        return rng.normal(0.0, 1.0, n), rng.normal(0.1, 1.0, n), 0.1
    if kind == "skewed":
        return rng.exponential(1.0, n), rng.exponential(1.0, n) + 0.1, 0.1
    return (rng.random(n) < 0.5).astype(float), (rng.random(n) < 0.6).astype(float), 0.1


def t_ci(d: Array) -> tuple[float, float]:
    """Student's t interval of the mean."""
    m, se = float(d.mean()), float(d.std(ddof=1)) / math.sqrt(d.size)
    q = t_quantile(0.975, d.size - 1)
    return m - q * se, m + q * se


def coverage(
    draw: Callable[[np.random.Generator], tuple[tuple[Array, ...], float]],
    interval: Callable[[tuple[Array, ...], int], tuple[float, float]],
    reps: int,
    seed: int,
) -> tuple[float, float]:
    """The share of `reps` intervals that contain the true value, and their mean width."""
    rng = np.random.default_rng(seed)
    hits = 0
    width = 0.0
    for rep in range(reps):
        data, truth = draw(rng)
        lo, hi = interval(data, rep)
        hits += int(lo <= truth <= hi)
        width += hi - lo
    return hits / reps, width / reps


def _cell(cov: float, width: float) -> str:
    return f"{cov:6.1%} {width:7.3g}"


def _header(title: str, sizes: list[int]) -> None:
    print(f"\n{title}")
    print(f"{'':19} " + " ".join(f"{'n=' + str(n):>14}" for n in sizes))
    print(f"{'':19} " + " ".join(f"{'cover   width':>14}" for _ in sizes), flush=True)


def _row(label: str, cells: list[tuple[float, float]]) -> None:
    print(f"{label:19} " + " ".join(_cell(c, w) for c, w in cells), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000, help="Samples per cell.")
    parser.add_argument("--resamples", type=int, default=ps.RESAMPLES, help="Bootstrap draws.")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="Sample sizes n.")
    parser.add_argument(
        "--others", action="store_true", help="Also the percentile bootstrap and plain t."
    )
    args = parser.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    b = args.resamples

    paired: dict[str, Callable[[tuple[Array, ...], int], tuple[float, float]]] = {
        "compare": lambda x, s: ps.paired_ci(x[0], resamples=b, seed=s),
    }
    if args.others:
        paired["percentile"] = lambda x, s: ps.percentile_paired_ci(x[0], resamples=b, seed=s)
        paired["t"] = lambda x, s: t_ci(x[0])
    print(
        f"Coverage and mean width of 95% intervals, {args.reps} samples per cell, {b} bootstrap "
        f"draws; `compare` prints a paired interval from n = {MIN_PAIRS} pairs on"
    )
    _header("paired differences", sizes)
    for kind in ("normal", "skewed", "binary"):
        for name, interval in paired.items():
            cells = []
            for n in sizes:

                def draw(rng: np.random.Generator, k: str = kind, n: int = n) -> tuple:
                    d, mu = paired_draw(k, n, rng)
                    return (d,), mu

                cells.append(coverage(draw, interval, args.reps, seed=n))
            _row(f"{kind} {name}", cells)

    _header("unpaired (n games per side)", sizes)
    for kind in ("normal", "skewed", "binary"):
        cells = []
        for n in sizes:

            def draw2(rng: np.random.Generator, k: str = kind, n: int = n) -> tuple:
                xa, xb, mu = unpaired_draw(k, n, rng)
                return (xa, xb), mu

            cells.append(
                coverage(
                    draw2,
                    lambda x, s: ps.unpaired_ci(x[0], x[1], resamples=b, seed=s),
                    args.reps,
                    seed=n,
                )
            )
        _row(f"{kind} compare", cells)


if __name__ == "__main__":
    main()
