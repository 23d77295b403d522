"""`accord report` for negotiation: Tables 3, 4, 9, 10 and Figures 2, 3, 5 on scripted runs."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from accord.analysis.report import build_report
from accord.games.negotiation import strategies as sx
from accord.games.negotiation.record import RoundRecord
from accord.games.negotiation.report_gaps import ACCORD_FIG5, COMPANION_FIG5
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.io import iter_traces

PAIRS = [("cooperative", "cooperative"), ("greedy", "greedy"), ("cooperative", "greedy")]


def spec(tid: str, a: str, b: str, seed: int, **options: object) -> GameSpec:
    opts = {"ratio": 0.5, "rounds": 2, **options}
    return GameSpec(
        trace_id=tid, game="negotiation", options=opts, seed=seed,
        agents=[AgentSpec(agent=a), AgentSpec(agent=b)],
    )  # fmt: skip


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    run = tmp_path_factory.mktemp("run")
    specs = [spec(f"{a}-{b}-{s}", a, b, s) for a, b in PAIRS for s in (1, 2)]
    specs += [spec(f"quiet-{a}-{s}", a, a, s, cheap_talk=False) for a in ("cooperative", "greedy")
              for s in (1, 2)]  # fmt: skip
    specs += [spec(f"open-{s}", "cooperative", "greedy", s, transparency="full") for s in (1, 2)]
    run_sync(specs, run)
    out = tmp_path_factory.mktemp("report")
    build_report([run], out)
    return run, out / "negotiation-v3"


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_files_written(report: tuple[Path, Path]) -> None:
    _, out = report
    names = {p.name for p in out.iterdir()}
    for stem in ("table3", "table4", "table9", "table10", "value_of_cheap_talk"):
        assert {f"{stem}.csv", f"{stem}.md"} <= names
    for fig in ("figure2.png", "figure3.png", "figure5.png"):
        data = (out / fig).read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 10_000
    assert "estimates.csv" in names


def test_table3_hand_checked(report: tuple[Path, Path]) -> None:
    _, out = report
    t3 = {r["pair"]: r for r in rows(out / "table3.csv")}
    assert list(next(iter(t3.values()))) == [
        "pair", "play", "games", "Overdraw 0.5", "Efficiency 0.5", "Optimum 0.5",
    ]  # fmt: skip
    # Self-play first, then cross-play; transparency and no-talk games are not in Table 3.
    assert list(t3) == ["cooperative", "greedy", "cooperative × greedy"]
    # Cooperative dyads share projects and play the joint optimum; two greedy seats at
    # M/C = 0.5 always ask for more than the supply, so every round is annulled.
    assert t3["cooperative"] == {"pair": "cooperative", "play": "self", "games": "2",
                                 "Overdraw 0.5": "0.0", "Efficiency 0.5": "100.0",
                                 "Optimum 0.5": "100.0"}  # fmt: skip
    assert (t3["greedy"]["Overdraw 0.5"], t3["greedy"]["Efficiency 0.5"]) == ("100.0", "0.0")
    assert t3["cooperative × greedy"]["play"] == "cross"


def test_table4_strategies(report: tuple[Path, Path]) -> None:
    _, out = report
    t4 = {r["pair"]: r for r in rows(out / "table4.csv")}
    # Cooperative repeats its optimal allocation (win-stay) and never loses; greedy repeats its
    # annulled allocation (no lose-shift) and never wins.
    assert t4["cooperative"]["Win-stay"] == "100.0" and t4["cooperative"]["Lose-shift"] == "–"
    assert t4["greedy"]["Lose-shift"] == "0.0" and t4["greedy"]["Win-stay"] == "–"
    assert t4["all"]["games"] == "6"


def test_table10_matches_the_round_records(report: tuple[Path, Path]) -> None:
    run, out = report
    t10 = {(r["pair"], r["mode"]): r for r in rows(out / "table10.csv")}
    assert set(t10) == {("cooperative", "stable"), ("greedy", "stable")}
    quiet = [t for t in iter_traces(run / "traces") if t.trace_id.startswith("quiet-coop")]
    recs = [RoundRecord.model_validate(r) for t in quiet for r in t.final_state["rounds"]]
    eff = sum(0.0 if r.annulled else r.joint_reward / r.oracle_max for r in recs) / len(recs)
    talk, notalk = t10[("cooperative", "stable")]["Efficiency 0.5"].split(" / ")
    assert talk == "100.0" and notalk.split(" ")[0] == f"{100 * eff:.1f}"
    assert t10[("cooperative", "stable")]["games (talk/no-talk)"] == "2/2"


def test_table9_only_pairs_with_transparent_games(report: tuple[Path, Path]) -> None:
    _, out = report
    t9 = rows(out / "table9.csv")
    assert [(r["pair"], r["condition"], r["mode"]) for r in t9] == [
        ("cooperative × greedy", "Baseline", "stable"),
        ("cooperative × greedy", "Transparent (full)", "stable"),
    ]


def test_estimates_hold_the_numbers_behind_the_tables(report: tuple[Path, Path]) -> None:
    _, out = report
    est = rows(out / "estimates.csv")
    coop = next(r for r in est if (r["table"], r["group"], r["metric"]) == (
        "table3", "cooperative", "efficiency"))  # fmt: skip
    assert float(coop["mean"]) == pytest.approx(1.0) and coop["games"] == "2"


def test_report_without_no_talk_or_transparency_skips_those(tmp_path: Path) -> None:
    run_sync([spec("only", "cooperative", "greedy", 1)], tmp_path / "run")
    build_report([tmp_path / "run"], tmp_path / "out")
    names = {p.name for p in (tmp_path / "out" / "negotiation-v3").iterdir()}
    assert "table3.md" in names and "figure2.png" in names
    assert not {"table9.md", "table10.md", "figure3.png"} & names
    skipped = (tmp_path / "out" / "negotiation-v3" / "skipped.txt").read_text()
    for name in ("Table 9", "Table 10", "Figure 3", "Figure 4", "Table 12", "Figure 7"):
        assert f"{name}:" in skipped, name
    assert "no-talk games" in skipped and "accord judge" in skipped


def test_process_headline_and_figures_4_and_6(tmp_path: Path) -> None:
    specs = [
        spec(f"{p}-{a}-{s}", a, "equal-split", s, partner=p, rounds=3)
        for p in ("stable", "shifting")
        for a in ("greedy", "equal-split")
        for s in (1, 2)
    ]
    run_sync(specs, tmp_path / "run")
    build_report([tmp_path / "run"], tmp_path / "out")
    out = tmp_path / "out" / "negotiation-v3"
    for fig in ("figure4.png", "figure6.png"):
        assert (out / fig).read_bytes().startswith(b"\x89PNG")
    process = {r["key"]: r for r in rows(out / "process.csv")}
    assert {"payoff_alternation", "perfunctory_fairness", "coherence", "bucket_repeated"} <= set(
        process
    )
    # The cell is the pooled rate over the pair's round records.
    recs = [
        RoundRecord.model_validate(r)
        for t in iter_traces(tmp_path / "run" / "traces")
        if t.trace_id.split("-")[1:3] == ["equal", "split"]
        for r in t.final_state["rounds"]
    ]
    expect = sum(sx.is_equal_split(r, {"r1": 10, "r2": 10, "r3": 6}) for r in recs) / len(recs)
    assert len(recs) == 12 and process["equal_split_half"]["equal-split"] == f"{100 * expect:.1f}"
    head = {r["games"]: r for r in rows(out / "headline.csv")}
    assert head["all"]["n"] == "8"


def test_figure7_reads_judge_labels(tmp_path: Path) -> None:
    run = tmp_path / "run"
    # Greedy dyads at M/C = 0.5 always overdraw; cooperative dyads never do.
    run_sync(
        [spec(f"{a}{s}", a, a, s, rounds=3) for a in ("greedy", "cooperative") for s in (1, 2)], run
    )
    labels = []
    for t in iter_traces(run / "traces"):
        for r in t.final_state["rounds"]:
            flag = bool(r["annulled"])  # the judge saw abandonment exactly in overdrawn rounds
            labels.append(
                {
                    "trace_id": t.trace_id,
                    "round": r["round"],
                    "agreement_abandonment": flag,
                    "misaligned_mental_models": False,
                }
            )
    (run / "judge").mkdir()
    (run / "judge" / "labels.jsonl").write_text("\n".join(json.dumps(x) for x in labels) + "\n")
    build_report([run], run / "report")
    out = run / "report" / "negotiation-v3"
    enrich = rows(out / "figure7_enrichment.csv")
    over = next(r for r in enrich if r["contrast"].startswith("overdrawn")
                and r["label"] == "agreement_abandonment")  # fmt: skip
    assert (over["focal rounds"], over["comparison rounds"]) == ("6", "6")
    assert float(over["difference (pp)"]) == pytest.approx(100.0)
    assert (out / "figure7.png").read_bytes().startswith(b"\x89PNG")


def test_table12_from_model_usage(tmp_path: Path) -> None:
    echo = AgentSpec(model="mock/schema")
    g = GameSpec(trace_id="m", game="negotiation", options={"ratio": 0.5, "rounds": 1}, seed=1,
                 agents=[echo, AgentSpec(agent="greedy")])  # fmt: skip
    run_sync([g], tmp_path / "run")
    build_report([tmp_path / "run"], tmp_path / "out")
    t12 = rows(tmp_path / "out" / "negotiation-v3" / "table12.csv")
    assert [r["model"] for r in t12] == ["mock/schema"] and int(t12[0]["Prompt"]) > 0


def test_early_decision_table_seat_rates_do_not_depend_on_seat_order(
    report: tuple[Path, Path],
) -> None:
    _, out = report
    early = {r["pair"]: r for r in rows(out / "early_decision.csv")}
    # Greedy decides at once from either seat: every round has an early decision, and both
    # seats decide early (the partner keeps its turns, App. D.1), whoever opens.
    greedy = early["greedy"]
    assert greedy[ACCORD_FIG5] == "100.0"
    # Both decide in their first message: the talk also stops long before its 10 messages.
    assert greedy[COMPANION_FIG5] == "100.0"
    assert greedy["Seat A"] == greedy["Seat B"] == greedy["Seat-rounds"] == "100.0"


def test_per_model_anchoring_interventions_transparency_and_figure4(tmp_path: Path) -> None:
    specs = [
        spec(f"{p}-{a}-{s}", a, "equal-split", s, partner=p, rounds=3)
        for p in ("stable", "shifting")
        for a in ("greedy", "equal-split")
        for s in (1, 2)
    ]
    specs += [
        spec(f"iv-{iv}-{s}", "greedy", "equal-split", s, rounds=3, intervention=iv)
        for iv in ("share_projects", "theory_of_mind")
        for s in (1, 2)
    ]
    specs += [
        spec(f"tr-{s}", "greedy", "equal-split", s, rounds=3, transparency="full") for s in (1, 2)
    ]
    run_sync(specs, tmp_path / "run")
    build_report([tmp_path / "run"], tmp_path / "out")
    out = tmp_path / "out" / "negotiation-v3"
    per_model = {r["model"]: r for r in rows(out / "per_model.csv")}
    assert set(per_model) == {"equal-split", "greedy"}
    assert per_model["equal-split"]["games"] == "8"  # self-play games count once
    anchoring = {r["group"] for r in rows(out / "anchoring.csv")}
    assert {"all", "stable partner", "shifting partner", "M/C = 0.5"} <= anchoring
    interventions = rows(out / "interventions.csv")
    assert [r["condition"] for r in interventions] == ["none", "share_projects", "theory_of_mind"]
    assert {r["pair"] for r in interventions} == {"equal-split × greedy"}
    transparency = rows(out / "transparency_process.csv")
    assert [r["condition"] for r in transparency] == ["none", "full"]
    fig4 = rows(out / "figure4.csv")
    assert {r["model"] for r in fig4} == {"equal-split", "greedy"}
    for r in fig4:
        assert float(r["ci_low_pp"]) <= float(r["gap_pp"]) <= float(r["ci_high_pp"])
    skipped = (out / "skipped.txt").read_text()
    assert "Table F.1" not in skipped and "§5.7" not in skipped


def test_missing_interventions_are_skipped_with_a_reason(report: tuple[Path, Path]) -> None:
    _, out = report
    skipped = (out / "skipped.txt").read_text()
    assert "Table F.1: needs talk games with intervention" in skipped


def test_v2_traces_still_load_and_report(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run_sync([spec(f"g{s}", "greedy", "equal-split", s) for s in (1, 2)], run)
    for path in (run / "traces").glob("*.json"):  # rewrite as negotiation-v2 wrote them
        data = json.loads(path.read_text())
        data["game_id"] = "negotiation-v2"
        data["config"].pop("after_early_decision", None)
        for rnd in data["final_state"]["rounds"]:
            rnd["early_decision"] = [True, False]
            for m in rnd["messages"]:
                m.pop("delivered", None)
        path.write_text(json.dumps(data))
    build_report([run], tmp_path / "out")
    out = tmp_path / "out" / "negotiation-v2"
    early = {r["pair"]: r for r in rows(out / "early_decision.csv")}
    # v2's rule: only the opener could decide early.
    assert (early["all"]["Seat A"], early["all"]["Seat B"]) == ("100.0", "0.0")
    assert (out / "table3.csv").is_file()


def test_figure5_lines_stay_apart_when_they_coincide(
    report: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from accord.games.negotiation import report_more
    from accord.games.negotiation.report_tables import load

    run, _ = report
    seen: list[tuple[object, str]] = []
    monkeypatch.setattr(report_more, "_save", lambda plt, fig, path, note: seen.append((fig, note)))
    games = [g for g in load(iter_traces(run / "traces")) if g.talk and g.transparency == "none"]
    report_more.figure5(games, tmp_path / "figure5.png")
    ((fig, note),) = seen
    lines = [ln for ln in fig.get_axes()[0].get_lines() if ln.get_label().endswith(")")]
    assert len(lines) == 2  # cooperative and greedy
    styles = {(ln.get_marker(), ln.get_linestyle()) for ln in lines}
    assert len(styles) == 2  # each its own marker and dash
    firsts = {float(ln.get_xdata()[0]) for ln in lines}
    assert len(firsts) == 2  # and its own small offset, so equal rates do not overlap
    assert "bands: 95%" in note and "coinciding lines stay visible" in note
    assert fig.get_axes()[0].collections  # the CI bands the footnote promises are drawn
