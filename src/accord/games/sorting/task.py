"""Task generators and checkers of the sorting game (MAS-Bench §3.1, §3.3, App. F.1-F.2, G.3).

The core task is distributed sorting (Algorithm 1, INITSORTTASK): N*K distinct integers are
drawn from ``range(10*N*K)``, laid out in one of five orders, and cut into N segments of K; agent
``i`` holds ``xs[i]`` and must submit ``expected[i]``, the ``i``-th K-slice of the ascending
order.

App. G.3 adds two looser tasks on the same inputs, with their own checkers:

- ``max`` (Distributed Maximum, loose coupling): every agent submits ``[m]``, the global maximum.
- ``prefix_sum`` (Distributed Prefix Sum, medium coupling): the global array is the agents'
  segments concatenated in id order; agent ``i`` submits the K inclusive prefix sums at its own
  positions ``i*K .. i*K+K-1``. It only needs the total of the segments before it.

Everything here is a pure function of its arguments; all randomness comes from the seed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Literal, get_args

from accord.core.rng import make_rng

Mode = Literal["asc", "near_asc", "random", "near_desc", "desc"]
"""Input families of §3.3, from least to most disordered (in expectation)."""
TaskKind = Literal["sort", "max", "prefix_sum"]
"""The sorting task and the two App. G.3 extensions."""

MODES: tuple[Mode, ...] = get_args(Mode)
TASKS: tuple[TaskKind, ...] = get_args(TaskKind)

NEAR_FRACTION = 0.2
"""Share of positions permuted in the ``near_*`` families ("freeze 80%", §3.3)."""
VALUE_FACTOR = 10
"""Values are drawn from ``range(VALUE_FACTOR * N * K)`` (Algorithm 1, line 1)."""

Submission = Sequence[int] | None
"""What an agent submitted, or ``None`` if it never did."""


@dataclass(frozen=True)
class Task:
    """One instance: who holds what, and what each agent must submit.

    Attributes:
        kind: which task (``sort``, ``max`` or ``prefix_sum``).
        n: number of agents N.
        k: segment length K.
        mode: input family the segments were laid out with.
        xs: the segment each agent holds, in agent-id order.
        expected: the exact submission each agent must make.
    """

    kind: TaskKind
    n: int
    k: int
    mode: Mode
    xs: tuple[tuple[int, ...], ...]
    expected: tuple[tuple[int, ...], ...]

    @property
    def flat(self) -> list[int]:
        """The global input ``l``: the segments concatenated in agent order."""
        return [v for seg in self.xs for v in seg]

    @property
    def submit_len(self) -> int:
        """How many integers each agent must submit."""
        return 1 if self.kind == "max" else self.k

    @property
    def inversions(self) -> int:
        """Inv(l), eq. (2)."""
        return inversion_count(self.flat)

    @property
    def rho(self) -> float:
        """Normalised inversion rate rho(l), eq. (3)."""
        return inversion_rate(self.flat)

    def as_dict(self) -> dict[str, object]:
        """JSON-able form (lists, not tuples, so it survives a trace round trip unchanged)."""
        return {
            "task": self.kind,
            "n": self.n,
            "k": self.k,
            "mode": self.mode,
            "xs": [list(s) for s in self.xs],
            "expected": [list(s) for s in self.expected],
            "global_input": self.flat,
            "submit_len": self.submit_len,
            "inversions": self.inversions,
            "rho": self.rho,
        }


def partial_shuffle(values: Sequence[int], fraction: float, rng: random.Random) -> list[int]:
    """PARTIALSHUFFLE: permute the values at ``floor(fraction * len)`` random positions.

    The chosen positions exchange their values by a uniform random permutation, so a few may
    keep their value; the other positions are frozen.
    """
    out = list(values)
    count = int(fraction * len(out))
    positions = sorted(rng.sample(range(len(out)), count))
    picked = [out[p] for p in positions]
    rng.shuffle(picked)
    for p, v in zip(positions, picked, strict=True):
        out[p] = v
    return out


def _layout(n: int, k: int, mode: Mode, seed: int) -> list[int]:
    """Algorithm 1, lines 1-9: the global input in the requested order."""
    if n < 1 or k < 1:
        raise ValueError(f"N and K must be positive, got N={n}, K={k}")
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; use one of {', '.join(MODES)}")
    total = n * k
    rng = make_rng(seed, "sorting", "task")
    drawn = rng.sample(range(VALUE_FACTOR * total), total)
    base = sorted(drawn, reverse=mode in ("desc", "near_desc"))
    fraction = 1.0 if mode == "random" else NEAR_FRACTION if "near" in mode else 0.0
    return partial_shuffle(base, fraction, rng)


def _segments(values: Sequence[int], n: int, k: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(values[i * k : (i + 1) * k]) for i in range(n))


def init_sort_task(n: int, k: int, mode: Mode, seed: int) -> Task:
    """INITSORTTASK (Algorithm 1): segments ``xs`` and ground-truth sorted slices."""
    return init_task("sort", n, k, mode, seed)


def init_task(kind: TaskKind, n: int, k: int, mode: Mode, seed: int) -> Task:
    """An instance of `kind` on the Algorithm 1 inputs (same seed, same segments)."""
    flat = _layout(n, k, mode, seed)
    xs = _segments(flat, n, k)
    if kind == "sort":
        expected = _segments(sorted(flat), n, k)
    elif kind == "max":
        expected = tuple((max(flat),) for _ in range(n))
    elif kind == "prefix_sum":
        expected = _segments(list(accumulate(flat)), n, k)
    else:
        raise ValueError(f"unknown task {kind!r}; use one of {', '.join(TASKS)}")
    return Task(kind=kind, n=n, k=k, mode=mode, xs=xs, expected=expected)


# -- disorder ---------------------------------------------------------------------------------
def inversion_count(values: Sequence[int]) -> int:
    """Pairs ``p < q`` with ``values[p] > values[q]`` (eq. 2), by merge sort in O(n log n)."""

    def count(seq: list[int]) -> tuple[list[int], int]:
        if len(seq) <= 1:
            return seq, 0
        mid = len(seq) // 2
        left, a = count(seq[:mid])
        right, b = count(seq[mid:])
        merged: list[int] = []
        inv = a + b
        i = j = 0
        while i < len(left) and j < len(right):
            if right[j] < left[i]:
                merged.append(right[j])
                inv += len(left) - i  # every remaining left value is larger
                j += 1
            else:
                merged.append(left[i])
                i += 1
        merged += left[i:] + right[j:]
        return merged, inv

    return count(list(values))[1]


def inversion_rate(values: Sequence[int]) -> float:
    """rho = Inv / C(len, 2) in [0, 1] (eq. 3); 0 for fewer than two values."""
    pairs = len(values) * (len(values) - 1) // 2
    return inversion_count(values) / pairs if pairs else 0.0


# -- checkers ---------------------------------------------------------------------------------
def strict_correct(task: Task, subs: Sequence[Submission]) -> list[bool]:
    """Per-agent strict correctness ``ys[i] == expected[i]`` (the SR indicator, eq. 4)."""
    return [s is not None and list(s) == list(e) for s, e in zip(subs, task.expected, strict=True)]


def check(task: Task, subs: Sequence[Submission]) -> bool:
    """The global success predicate CHECK of App. F.2 (and its App. G.3 counterparts).

    Sorting: every agent submitted exactly K integers and their concatenation equals the
    sorted union of all segments (any split that concatenates to it passes). Maximum and
    prefix sum have no such freedom: every agent must submit exactly its expected values.
    """
    if len(subs) != task.n:
        return False
    if task.kind != "sort":
        return all(strict_correct(task, subs))
    joined: list[int] = []
    for s in subs:
        if s is None or len(s) != task.k:
            return False
        joined += list(s)
    return joined == sorted(task.flat)
