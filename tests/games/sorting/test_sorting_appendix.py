"""App. G analyses and per-phase Table 1 of the sorting report (`sorting.appendix`)."""

from __future__ import annotations

from typing import Any

import pytest

from accord.analysis.welch import welch
from accord.games.sorting import appendix


def row(model: str, backend: str, cond: str, sr: float, tokens: float, **kw: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "model": model,
        "backend": backend,
        "condition": cond,
        "n": kw.pop("n", 3),
        "sr": sr,
        "success": 1.0 if sr == 1.0 else 0.0,
        "total_tokens": tokens,
    }
    out.update(kw)
    return out


def grid() -> list[dict[str, Any]]:
    rows = []
    for i in range(6):
        wobble = 10.0 * i
        for backend, scale in (("broadcast", 1.0), ("p2p", 2.0), ("kv", 5.0)):
            rows.append(row("m", backend, "base", [1.0, 0.5][i % 2], 1000 * scale + wobble))
            rows.append(row("m", backend, "abl-submit", 1.0, 1000 * scale + wobble + 20))
            rows.append(row("m", backend, "abl-message", 0.5, 1000 * scale + wobble - 20))
            rows.append(row("m", backend, "camoc", 1.0, 1020 * scale + wobble))
    return rows


def test_table6_pools_base_and_ablations_against_camoc() -> None:
    rows = grid()
    t6 = {r["backend"]: r for r in appendix.table6(rows)}
    assert list(t6) == ["broadcast", "p2p", "kv"]
    kv = [r for r in rows if r["backend"] == "kv"]
    rest = [r["total_tokens"] for r in kv if r["condition"] != "camoc"]
    camoc = [r["total_tokens"] for r in kv if r["condition"] == "camoc"]
    change = 100 * (sum(camoc) / 6 - sum(rest) / 18) / (sum(rest) / 18)
    assert t6["kv"]["change %"] == f"{change:+.1f}"
    assert t6["kv"]["games (Base/Abl., CAMOC)"] == "18, 6"
    test = welch(camoc, rest)
    assert test is not None and t6["kv"]["Welch p"].startswith(f"{test.p:.3g}")


def test_table7_is_tokens_per_successful_kv_run() -> None:
    rows = grid()
    (t7,) = appendix.table7(rows)
    base = [r for r in rows if r["backend"] == "kv" and r["condition"] == "base"]
    per_correct = sum(r["total_tokens"] for r in base) / 3  # half the Base runs succeed
    assert t7["Base tokens/correct"] == f"{per_correct:,.0f}"
    assert t7["correct (Base, CAMOC)"] == "3, 6"
    assert t7["change %"].startswith("-")


def test_table8_measures_the_kv_overhead_at_n_1() -> None:
    rows = [
        row("m", b, "base", 1.0, tokens, n=1)
        for b, base in (("broadcast", 1000), ("p2p", 1000), ("kv", 1300))
        for tokens in (base - 20, base, base + 20)
    ] + [row("m", "kv", "base", 0.0, 99_999, n=3)]
    t8 = {r["backend"]: r for r in appendix.table8(rows)}
    assert t8["kv"]["overhead vs broadcast+p2p %"] == "+30.0"
    assert t8["kv"]["Welch p"].endswith("***") and t8["kv"]["games"] == 3
    assert "Welch p" not in t8["broadcast"]


def test_table11_and_the_welch_sweep_flag_a_significant_regression() -> None:
    rows = [row("q", "p2p", "base", 1.0 if i % 10 else 0.0, 100) for i in range(40)]
    rows += [row("q", "p2p", "camoc", 0.0 if i % 2 else 1.0, 100) for i in range(40)]
    rows += [row("q", "p2p", "abl-submit", 1.0 if i % 10 else 0.0, 100) for i in range(40)]
    (t11,) = appendix.table11(rows)
    assert t11["SR % base"].startswith("90.0") and t11["SR % camoc"].startswith("50.0")
    assert t11["regression"] == "yes" and t11["Welch p (CAMOC vs Base)"].endswith("***")
    sweep = {r["condition"]: r for r in appendix.welch_table(rows)}
    assert sweep["camoc"]["ΔSR pp"] == "-40.0" and sweep["abl-submit"]["ΔSR pp"] == "+0.0"
    assert sweep["abl-submit"]["SR p"].startswith("1")
    assert sweep["camoc"]["tokens p"].startswith("1")  # identical token counts


def test_backend_pairs_and_phases_table() -> None:
    rows = grid()
    pairs = {r["backends"]: r for r in appendix.welch_backends(rows)}
    assert set(pairs) == {"broadcast vs p2p", "broadcast vs kv", "p2p vs kv"}
    rows = [
        row("m", "kv", "camoc", 1.0, 100, rounds_phase1=3, rounds_phase2=2, rounds_combined=5,
            te_phase1=10.0, te_phase2=20.0, te_combined=6.0, cr_phase1=0.1, cr_phase2=0.2,
            cr_combined=0.15)
    ]  # fmt: skip
    (p,) = appendix.phases_table(rows)
    assert (p["R phase1"], p["R phase2"], p["R combined"]) == ("3.0", "2.0", "5.0")
    assert p["TE phase2"] == "20.00" and p["CR % combined"] == "15.0"


def test_failures_table_counts_agents_and_games() -> None:
    rows = [
        row("m", "kv", "base", 0.5, 1, fail_stale_kv_read=1, fail_premature_submission=0),
        row("m", "kv", "base", 0.0, 1, fail_stale_kv_read=0, fail_premature_submission=2),
        row("m", "kv", "base", 1.0, 1),
    ]
    (f,) = appendix.failures_table(rows)
    assert f["failed games"] == 2 and f["games"] == 3
    assert f["stale_kv_read"] == "1 (50% of failed)"
    assert f["premature_submission"] == "2 (50% of failed)"
    assert f["other"] == "0 (0% of failed)"


@pytest.mark.parametrize("fn", [appendix.table6, appendix.table7, appendix.table8])
def test_tables_are_empty_without_their_games(fn: Any) -> None:
    assert fn([row("m", "broadcast", "base", 1.0, 10)]) == []
