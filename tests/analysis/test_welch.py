"""Welch's t-test without SciPy (`accord.analysis.welch`)."""

from __future__ import annotations

import math

import pytest

from accord.analysis.welch import betainc, stars, t_two_sided_p, welch


@pytest.mark.parametrize(
    ("t", "df", "p"),
    [
        # Two-sided critical values of Student's t (standard tables).
        (12.706, 1, 0.05),
        (2.571, 5, 0.05),
        (2.228, 10, 0.05),
        (3.169, 10, 0.01),
        (2.042, 30, 0.05),
        (3.646, 30, 0.001),
        (1.960, 1e6, 0.05),
    ],
)
def test_p_values_match_t_tables(t: float, df: float, p: float) -> None:
    assert t_two_sided_p(t, df) == pytest.approx(p, rel=2e-3)
    assert t_two_sided_p(-t, df) == pytest.approx(p, rel=2e-3)


def test_incomplete_beta_edges_and_symmetry() -> None:
    assert betainc(2, 3, 0) == 0 and betainc(2, 3, 1) == 1
    # I_x(1, 1) = x and I_x(a, b) = 1 - I_{1-x}(b, a).
    assert betainc(1, 1, 0.3) == pytest.approx(0.3)
    assert betainc(2.5, 0.5, 0.7) == pytest.approx(1 - betainc(0.5, 2.5, 0.3))
    assert t_two_sided_p(0.0, 7) == pytest.approx(1.0)


def test_welch_statistic_and_degrees_of_freedom() -> None:
    a = [19.1, 20.3, 21.0, 18.7, 20.9, 19.6]
    b = [22.0, 23.5, 21.7, 24.1, 22.8]
    r = welch(a, b)
    assert r is not None
    ma, mb = sum(a) / 6, sum(b) / 5
    va = sum((x - ma) ** 2 for x in a) / 5
    vb = sum((x - mb) ** 2 for x in b) / 4
    se2 = va / 6 + vb / 5
    assert r.diff == pytest.approx(ma - mb) and r.t == pytest.approx((ma - mb) / math.sqrt(se2))
    assert r.df == pytest.approx(se2**2 / ((va / 6) ** 2 / 5 + (vb / 5) ** 2 / 4))
    assert r.p == pytest.approx(t_two_sided_p(r.t, r.df)) and 0.001 < r.p < 0.0011
    assert stars(r.p) == "**" and stars(0.0005) == "***" and stars(0.03) == "*"
    assert stars(0.2) == "" and stars(None) == ""


def test_welch_degenerate_samples() -> None:
    assert welch([1.0], [1.0, 2.0]) is None
    same = welch([1.0, 1.0], [1.0, 1.0, 1.0])
    assert same is not None and same.p == 1.0
    apart = welch([0.0, 0.0], [1.0, 1.0])
    assert apart is not None and apart.p == 0.0 and apart.t == -math.inf
    one_sided_spread = welch([0.0, 0.0, 0.0], [0.0, 1.0, 1.0, 1.0])
    assert one_sided_spread is not None and 0 < one_sided_spread.p < 1
