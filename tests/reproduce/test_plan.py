"""Each paper's grid: the games, repeats and sampling the paper used, through `expand`."""

from __future__ import annotations

from collections import Counter

import pytest

from accord.core.errors import ConfigError
from accord.reproduce.plan import make_plan


def test_calbench_without_a_model_plays_the_protocol_rows_on_every_task() -> None:
    plan = make_plan("calbench")
    assert plan.tables == ["2"] and any("Table 1, 11 needs --model" in n for n in plan.notes)
    # 4 protocols x (90 canonical + 2 x 108 published tasks), every task once.
    assert len(plan.specs) == 4 * (90 + 216)
    suites = Counter((s.agents[0].agent, s.options["suite"]) for s in plan.specs)
    assert suites[("imap", "canonical")] == 90
    assert suites[("dsm-private", "calbench-varied")] == 108
    assert not any(a.model for s in plan.specs for a in s.agents)


def test_calbench_table1_is_a_homogeneous_team_per_model_with_reflections() -> None:
    plan = make_plan("calbench", tables=["1"], models=["openai/gpt-5.4-mini"])
    assert len(plan.specs) == 90 and plan.figures == ["4"]
    spec = plan.specs[0]
    assert {a.model for a in spec.agents} == {"openai/gpt-5.4-mini"} and len(spec.agents) == 5
    assert spec.options["max_turns_per_round"] == 15 and spec.options["reflection"] is True


def test_calbench_smoke_keeps_one_task_per_bucket_and_setting() -> None:
    plan = make_plan("calbench", models=["mock/schema"], smoke=True)
    canonical = {s.options["task"] for s in plan.specs if s.options["suite"] == "canonical"}
    assert canonical == {0, 15, 30, 45, 60, 75}
    assert len(plan.specs) == 4 * (6 + 2) + 6


def test_mas_bench_samples_the_papers_1050_games_per_model_over_every_cell() -> None:
    plan = make_plan("mas-bench", models=["mock/schema"])
    model_games = [s for s in plan.specs if s.agents[0].model]
    assert len(model_games) == 1050
    cells = {
        tuple(s.options[k] for k in ("n", "k", "backend", "mode", "condition")) for s in model_games
    }
    assert len(cells) == 900
    floors = Counter(s.agents[0].agent for s in plan.specs if not s.agents[0].model)
    assert floors == {"share-all": 900, "local-sort": 900}
    assert {s.options["max_rounds"] for s in plan.specs} == {100}
    again = make_plan("mas-bench", models=["mock/schema"])
    assert [s.trace_id for s in again.specs] == [s.trace_id for s in plan.specs]


def test_grounding_crossplays_the_main_grid_and_adds_the_no_talk_baseline() -> None:
    models = ["mock/schema", "anthropic/claude-sonnet-4-5-20250929"]
    plan = make_plan("grounding", models=models)
    plain = [s for s in plan.specs if s.options.get("transparency", "none") == "none"]
    talk = [s for s in plain if s.options.get("cheap_talk", True)]
    notalk = [s for s in plan.specs if not s.options.get("cheap_talk", True)]
    assert len(talk) == 3 * 12 * 10  # 3 pairings x 12 cells x 5 games x first speaker swapped
    assert len(notalk) == 2 * 6 * 4  # self-play, N = 4 per model x partner x ratio cell
    transparent = [s for s in plan.specs if s not in plain]  # Table 9: the cross-play pair
    assert len(transparent) == 12 * 10 and all(
        len({a.model for a in s.agents}) == 2 for s in transparent
    )
    sonnet = next(a for s in plan.specs for a in s.agents if a.model == models[1])
    assert sonnet.temperature == 0.7 and sonnet.max_tokens == 8192  # App. B, Table 6
    only10 = make_plan("grounding", models=models, tables=["10"])
    assert all(len({a.model for a in s.agents}) == 1 for s in only10.specs)
    assert len(only10.specs) == 2 * 12 * 10 + len(notalk)


def test_a_figure_plays_the_table_behind_it() -> None:
    plan = make_plan("grounding", models=["mock/schema"], figures=["3"], smoke=True)
    assert plan.tables == ["10"] and plan.figures == ["3"]
    assert make_plan("calbench", figures=["4"], models=["mock/schema"]).tables == ["1"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"paper": "nope"}, "unknown paper"),
        ({"paper": "calbench", "tables": ["1"]}, "needs a model"),
        ({"paper": "grounding"}, "needs a model"),
        ({"paper": "calbench", "tables": ["14"]}, "has no table"),
        ({"paper": "calbench", "tables": ["12"]}, "not reproduced by this kit"),
        ({"paper": "calbench", "figures": ["9"]}, "no reproducible figure"),
        ({"paper": "calbench", "models": ["gpt4"]}, "provider/model"),
        ({"paper": "calbench", "models": ["nowhere/x"]}, "unknown provider"),
        ({"paper": "calbench", "models": ["mock/schema", "mock/schema"]}, "once"),
    ],
)
def test_bad_requests_are_one_clear_error(kwargs: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        make_plan(**kwargs)


def test_with_the_papers_models_only_its_pair_plays_the_transparency_arm() -> None:
    models = [
        "anthropic/claude-sonnet-4-5-20250929",
        "openai/gpt-5-mini-2025-08-07",
        "openrouter/qwen/qwen3.5-flash",
    ]
    plan = make_plan("grounding", models=models, tables=["9"])
    arm = [s for s in plan.specs if s.options.get("transparency") == "full"]
    assert len(arm) == 120  # App. F.1: N = 120 for Qwen 3.5 Flash x GPT-5 Mini
    assert {tuple(sorted(a.model or "" for a in s.agents)) for s in arm} == {
        ("openai/gpt-5-mini-2025-08-07", "openrouter/qwen/qwen3.5-flash")
    }
