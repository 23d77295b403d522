"""Task generators and checkers of the sorting game (MAS-Bench Algorithm 1, App. F.2, G.3)."""

from __future__ import annotations

import random
from itertools import accumulate, combinations

import pytest

from accord.games.sorting.task import (
    MODES,
    VALUE_FACTOR,
    check,
    init_sort_task,
    init_task,
    inversion_count,
    inversion_rate,
    partial_shuffle,
    strict_correct,
)


def brute_inversions(values: list[int]) -> int:
    return sum(a > b for a, b in combinations(values, 2))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("n", "k"), [(1, 1), (3, 3), (5, 10), (20, 10)])
def test_generator_shapes_and_distinct_values(mode: str, n: int, k: int) -> None:
    t = init_sort_task(n, k, mode, seed=11)  # type: ignore[arg-type]
    assert len(t.xs) == len(t.expected) == n
    assert all(len(s) == k for s in t.xs) and all(len(s) == k for s in t.expected)
    flat = t.flat
    assert len(set(flat)) == n * k
    assert all(0 <= v < VALUE_FACTOR * n * k for v in flat)
    assert [v for s in t.expected for v in s] == sorted(flat)
    assert check(t, t.expected)


def test_same_seed_same_task_and_different_seed_differs() -> None:
    a = init_sort_task(5, 4, "random", 3)
    assert a == init_sort_task(5, 4, "random", 3)
    assert a.xs != init_sort_task(5, 4, "random", 4).xs


def test_ordered_families_are_exactly_sorted() -> None:
    asc = init_sort_task(4, 5, "asc", 1)
    desc = init_sort_task(4, 5, "desc", 1)
    assert asc.flat == sorted(asc.flat) and asc.rho == 0.0
    assert desc.flat == sorted(desc.flat, reverse=True) and desc.rho == 1.0


def test_near_families_freeze_eighty_percent() -> None:
    t = init_sort_task(10, 10, "near_asc", 5)
    ordered = sorted(t.flat)
    moved = sum(a != b for a, b in zip(t.flat, ordered, strict=True))
    assert 0 < moved <= 20  # floor(0.2 * 100) positions may move
    d = init_sort_task(10, 10, "near_desc", 5)
    moved = sum(a != b for a, b in zip(d.flat, sorted(d.flat, reverse=True), strict=True))
    assert 0 < moved <= 20


def test_rho_orders_the_families_on_average() -> None:
    mean = {m: sum(init_sort_task(5, 10, m, s).rho for s in range(20)) / 20 for m in MODES}
    assert mean["asc"] == 0.0 < mean["near_asc"] < mean["random"] < mean["near_desc"]
    assert mean["near_desc"] < mean["desc"] == 1.0
    assert 0.4 < mean["random"] < 0.6


def test_partial_shuffle_keeps_the_multiset_and_frozen_positions() -> None:
    values = list(range(50))
    out = partial_shuffle(values, 0.2, random.Random(0))
    assert sorted(out) == values
    assert sum(a != b for a, b in zip(out, values, strict=True)) <= 10
    assert partial_shuffle(values, 0.0, random.Random(0)) == values


@pytest.mark.parametrize("seed", range(5))
def test_inversion_count_matches_brute_force(seed: int) -> None:
    values = random.Random(seed).sample(range(100), 40)
    assert inversion_count(values) == brute_inversions(values)
    assert inversion_rate(values) == brute_inversions(values) / (40 * 39 / 2)
    assert inversion_rate([7]) == 0.0


def test_check_and_strict_correctness() -> None:
    t = init_sort_task(3, 2, "random", 2)
    good = [list(s) for s in t.expected]
    assert check(t, good) and strict_correct(t, good) == [True, True, True]
    swapped = [good[1], good[0], good[2]]
    assert not check(t, swapped)
    assert strict_correct(t, swapped) == [False, False, True]
    short = [good[0][:1], good[1], good[2]]
    assert not check(t, short)
    missing = [good[0], None, good[2]]
    assert not check(t, missing) and strict_correct(t, missing) == [True, False, True]
    wrong_value = [[good[0][0], good[0][1] + 1], good[1], good[2]]
    assert not check(t, wrong_value)
    assert not check(t, good[:2])


def test_check_rejects_right_values_with_wrong_lengths() -> None:
    t = init_sort_task(2, 2, "asc", 0)
    flat = sorted(t.flat)
    assert not check(t, [flat[:1], flat[1:]])


def test_distributed_maximum() -> None:
    t = init_task("max", 4, 3, "random", 9)
    assert t.submit_len == 1
    assert all(e == (max(t.flat),) for e in t.expected)
    assert check(t, [[max(t.flat)]] * 4)
    bad = [[max(t.flat)]] * 3 + [[max(t.flat) - 1]]
    assert not check(t, bad) and strict_correct(t, bad) == [True, True, True, False]
    assert not check(t, [[max(t.flat), 0]] * 4)
    assert init_task("max", 4, 3, "random", 9).xs == init_sort_task(4, 3, "random", 9).xs


def test_distributed_prefix_sum() -> None:
    t = init_task("prefix_sum", 3, 4, "near_asc", 2)
    sums = list(accumulate(t.flat))
    assert [list(e) for e in t.expected] == [sums[0:4], sums[4:8], sums[8:12]]
    assert check(t, t.expected)
    bad = [list(t.expected[0]), list(t.expected[1]), [v + 1 for v in t.expected[2]]]
    assert not check(t, bad) and strict_correct(t, bad) == [True, True, False]


def test_bad_arguments_are_rejected() -> None:
    with pytest.raises(ValueError, match="positive"):
        init_sort_task(0, 3, "asc", 0)
    with pytest.raises(ValueError, match="unknown mode"):
        init_sort_task(2, 2, "sideways", 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown task"):
        init_task("median", 2, 2, "asc", 0)  # type: ignore[arg-type]


def test_as_dict_is_json_shaped() -> None:
    d = init_sort_task(2, 3, "desc", 0).as_dict()
    assert isinstance(d["xs"], list) and all(isinstance(s, list) for s in d["xs"])
    assert d["rho"] == 1.0 and d["inversions"] == 15
