"""Condition fidelity of `negotiation-v3` (issue 10): what each seat is told, and run semantics.

Each test here failed on `negotiation-v1`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from accord.core.errors import ConfigError
from accord.core.registry import make, make_config
from accord.games.negotiation import rules
from accord.games.negotiation.engine import NegotiationGame
from accord.games.negotiation.prompts import project_lines
from accord.games.negotiation.scenario import Project

BASE = {"theme": "medieval", "reflection": False}


def game(seed: int = 1, models: list[str | None] | None = None, **opts: Any) -> NegotiationGame:
    g = make("negotiation", {**BASE, **opts})
    assert isinstance(g, NegotiationGame)
    if models is not None:
        g.bind_models(models)
    g.reset(seed)
    return g


def env(speech: str = "hi", action: Any = None) -> str:
    return json.dumps({"thinking": "t", "speech": speech, "action": action})


def answer(g: NegotiationGame, seat: int, text: str) -> None:
    req = next(r for r in g.pending() if r.seat == seat)
    g.submit(seat, req.spec.parse(text))


def play_round(g: NegotiationGame) -> None:
    """Both seats decide at once (early), buying one wood each."""
    answer(g, 0, env("a", {"wood": 1}))
    answer(g, 1, env("b", {"wood": 1}))


def partner_block(text: str, names: dict[str, str], partner: tuple[Project, ...]) -> bool:
    return project_lines(partner, names) in text


@pytest.mark.parametrize("mode", ["full", "joint"])
@pytest.mark.parametrize("system_prompt", ["current", "first"])
def test_rotating_transparency_shows_the_current_partner_projects(
    mode: str, system_prompt: str
) -> None:
    g = game(
        ratio=0.8,
        projects="rotating",
        rounds=3,
        transparency=mode,
        rotating_system_prompt=system_prompt,
    )
    scenarios = g._round_scenarios
    names = g._round_names[0]
    play_round(g)
    play_round(g)
    for seat in (0, 1):
        req = next(r for r in g.pending() if r.seat == seat) if seat == 0 else None
        if req is None:
            answer(g, 0, env("a"))
            req = g.pending()[0]
        now, first = scenarios[2].agents[1 - seat], scenarios[0].agents[1 - seat]
        assert now != first
        assert partner_block(req.observation, names, now), "round-3 notice lacks partner projects"
        system = req.system or ""
        if system_prompt == "current":
            assert partner_block(system, names, now)
            assert not partner_block(system, names, first)


def test_joint_goal_is_its_own_option() -> None:
    assert "JOINT reward" in (game(joint_goal=True).pending()[0].system or "")
    plain = game(transparency="joint", joint_goal=False).pending()[0].system or ""
    assert "JOINT reward" not in plain and "How each party is paid" in plain


def test_shifting_seat_sees_no_multi_round_context() -> None:
    g = game(scenario="0.5/gen_012", partner="shifting", rounds=3)
    first = g.pending()[0]
    assert "round 1 of 3" in first.observation and "DIFFERENT opponent" in (first.system or "")
    play_round(g)
    answer(g, 0, env("x"))
    (req,) = g.pending()
    assert req.seat == 1 and req.reset_context
    text = (req.system or "") + req.observation
    for leak in ("round 2", "of 3", "all rounds", "every round", "Round result"):
        assert leak not in text, leak
    assert "stand-alone" in text


def test_shifting_seat_reflection_covers_its_one_round() -> None:
    g = game(scenario="0.5/gen_012", partner="shifting", rounds=2, reflection=True)
    play_round(g)
    play_round(g)
    reqs = {r.seat: r for r in g.pending()}
    assert "GAME OVER (2 rounds)" in reqs[0].observation
    assert "GAME OVER ---" in reqs[1].observation and "rounds" not in reqs[1].observation


def test_partner_decided_notice() -> None:
    for rule, kind in (("talk_on", "talk"), ("decide_now", "decide")):
        g = game(scenario="0.5/gen_012", after_early_decision=rule)
        answer(g, 0, env("I am done", {"stone": 6}))
        (req,) = g.pending()
        assert req.seat == 1 and req.spec.kind == kind
        assert "already made its final decision" in req.observation
    g2 = game(scenario="0.5/gen_012", talk_turns=1)
    answer(g2, 0, env("hello"))
    answer(g2, 1, env("hello"))
    assert all("already made" not in r.observation for r in g2.pending())


def test_stated_runs_beyond_the_purchase_are_capped_and_leftovers_fill() -> None:
    # seat 0 of 0.5/gen_012: project_a stone×3 (9), project_b gold×2 stone×3 (4),
    # project_c gold×2 wood×1 (1).
    g = game(scenario="0.5/gen_012")
    answer(g, 0, env("a", {"stone": 6, "gold": 2, "projects": {"project_a": 5}}))
    answer(g, 1, env("b", {"wood": 1}))
    (rec,) = g._records
    # project_a capped at 2 (6 stone); the 2 gold cannot run project_b (no stone left) nor
    # project_c (no wood): leftovers stay unused.
    assert rec.runs[0] == {"project_a": 2} and rec.rewards[0] == 18
    projects = g._round_scenarios[0].agents[0]
    # Requests are honoured in the order shown: project_a takes all the stone first.
    both = {"project_b": 1, "project_a": 9}
    assert rules.resolve_runs(projects, {"r2": 9, "r3": 2}, both) == {"project_a": 3}
    # A covered request is kept; leftover stone then fills project_a.
    assert rules.resolve_runs(projects, {"r2": 9, "r3": 2}, {"project_b": 1}) == {
        "project_a": 2,
        "project_b": 1,
    }
    assert rules.resolve_runs(projects, {"r2": 9}, {"project_c": 3}) == {"project_a": 3}


def test_scenario_sets_the_ratio_and_conflicts_are_errors() -> None:
    assert make_config("negotiation", {"scenario": "0.8/gen_006"}).ratio == 0.8  # type: ignore[attr-defined]
    g = game(scenario="1.0/gen_010")
    assert g.result().final_state["ratio"] == 1.0
    with pytest.raises(ConfigError, match=r"ratio-0\.5 scenario but ratio is 0\.8"):
        make_config("negotiation", {"scenario": "0.5/gen_012", "ratio": 0.8})
    with pytest.raises(ConfigError, match=r"unknown scenario '0\.5/gen_999'"):
        make_config("negotiation", {"scenario": "0.5/gen_999"})


def test_a_market_with_no_joint_optimum_has_no_optimum_rate() -> None:
    g = game(scenario="0.5/gen_012", rounds=1, market={"budget": 0.5})
    play = g.pending()[0]
    g.submit(0, play.spec.parse(env("a", {})))
    g.submit(1, g.pending()[0].spec.parse(env("b", {})))
    res = g.result()
    assert res.metrics["oracle_total"] == 0
    assert res.metrics["optimum_rate"] is None and res.metrics["efficiency"] is None


@pytest.mark.parametrize(
    ("models", "option", "expected"),
    [
        (["anthropic/claude-x", "openai/gpt-x"], "auto", (True, False)),
        ([None, None], "auto", (False, False)),
        ([None, "openai/gpt-x"], "always", (True, True)),
        (["anthropic/claude-x", None], "never", (False, False)),
    ],
)
def test_json_reminder_keyed_on_the_provider(
    models: list[str | None], option: str, expected: tuple[bool, bool]
) -> None:
    g = game(scenario="0.5/gen_012", models=models, json_reminder=option)
    answer(g, 0, env("a"))
    systems = {0: g._system[0], 1: g.pending()[0].system or ""}
    assert tuple("answer with one valid JSON object" in systems[s] for s in (0, 1)) == expected


def test_unknown_scenario_fails_before_any_game(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from accord.cli.main import app

    out = tmp_path / "run"
    args = ["run", "negotiation", "--agents", "cooperative,greedy", "--out", str(out)]
    result = CliRunner().invoke(app, [*args, "-o", "scenario=0.5/gen_999"])
    assert result.exit_code == 2 and "unknown scenario '0.5/gen_999'" in result.output
    assert not (out / "traces").exists()


def test_process_metrics_reach_summary_json_with_cis(tmp_path: Path) -> None:
    from accord.runner.run import run_sync
    from accord.runner.specs import AgentSpec, GameSpec

    specs = [
        GameSpec(trace_id=f"g{s}", game="negotiation", options={"ratio": 0.5, "rounds": 3},
                 seed=s, agents=[AgentSpec(agent="greedy"), AgentSpec(agent="equal-split")])
        for s in range(3)
    ]  # fmt: skip
    run_sync(specs, tmp_path)
    (group,) = json.loads((tmp_path / "summary.json").read_text())["groups"]
    details = group["details"]
    for key in ("payoff_alternation", "perfunctory_fairness", "stubborn_anchoring", "deference",
                "coherence", "bucket_failed_improvement", "any_optimum"):  # fmt: skip
        assert {"num", "den", "mean", "ci_low", "ci_high", "games"} <= set(details[key]), key
    # Each pooled value is the sum of the per-trace counts.
    traces = [json.loads(p.read_text()) for p in (tmp_path / "traces").glob("*.json")]
    num = sum(t["metrics"]["detail"]["equal_split"]["num"] for t in traces)
    den = sum(t["metrics"]["detail"]["equal_split"]["den"] for t in traces)
    assert (details["equal_split"]["num"], details["equal_split"]["den"]) == (num, den) and den == 9


def test_theme_per_round_renames_the_rules_and_requirements_with_a_mapping() -> None:
    g = game(ratio=0.5, rounds=3, theme="random", theme_per="round", transparency="full")
    names = g._round_names
    first_round = next(i for i in (1, 2) if names[i] != names[0])  # a round that renames
    for r in range(first_round):
        wood = names[r]["r1"]
        answer(g, 0, env("a", {wood: 1}))
        answer(g, 1, env("b", {wood: 1}))
    req = g.pending()[0]
    old, new = names[first_round - 1], names[first_round]
    for res in ("r1", "r2", "r3"):
        assert f"{old[res]} is now {new[res]}" in req.observation
    system = req.system or ""
    assert all(new[res] in system for res in ("r1", "r2", "r3"))
    stale = [old[r] for r in ("r1", "r2", "r3") if old[r] != new[r]]
    assert not any(re.search(rf"\b{name}\b", system) for name in stale)
    projects = g._round_scenarios[first_round].agents[0]
    assert project_lines(projects, new) in system  # requirements in the new names


def test_kept_round_one_prompt_labels_partner_projects_as_round_one() -> None:
    kept = game(ratio=0.8, projects="rotating", rounds=2, transparency="full",
                rotating_system_prompt="first")  # fmt: skip
    system = kept.pending()[0].system or ""
    assert "projects in round 1" in system and "projects this round" not in system
    play_round(kept)
    assert "projects in round 1" in (kept.pending()[0].system or "")
    current = game(ratio=0.8, projects="rotating", rounds=2, transparency="full")
    assert "projects this round" in (current.pending()[0].system or "")
