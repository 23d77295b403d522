"""The built-in ``paper`` pool (seed 004 App. C.2) and the scenario JSON shape."""

from __future__ import annotations

import json
import re

import pytest

from accord.core.errors import ConfigError
from accord.games.negotiation.pool import (
    get_scenario,
    load_pool,
    paper_ratio,
    pool_ids,
    pool_market,
    scenario_json,
    scenarios_for_ratio,
)
from accord.games.negotiation.scenario import Market

EXPECTED_IDS = [
    "0.5/gen_012",
    "0.5/gen_053",
    "0.5/gen_062",
    "0.5/gen_104",
    "0.8/gen_001",
    "0.8/gen_006",
    "0.8/gen_017",
    "0.8/gen_021",
    "0.8/gen_022",
    "1.0/gen_000",
    "1.0/gen_001",
    "1.0/gen_002",
    "1.0/gen_006",
    "1.0/gen_010",
    "1.0/gen_014",
]


def test_ids_are_the_fifteen_paper_scenarios_in_order() -> None:
    assert pool_ids() == EXPECTED_IDS
    assert [s.id for s in load_pool("paper")] == EXPECTED_IDS


def test_target_ratio_matches_id_prefix() -> None:
    for s in load_pool():
        assert s.target_ratio == float(s.id.split("/")[0])
        assert [p.name for p in s.agents[0]] == ["project_a", "project_b", "project_c"]
        assert [p.name for p in s.agents[1]] == ["project_a", "project_b", "project_c"]


def test_reused_paper_ids_are_distinct_scenarios() -> None:
    # gen_001 and gen_006 appear at two ratios in App. C with different projects.
    for gen in ("gen_001", "gen_006"):
        assert get_scenario(f"0.8/{gen}").agents != get_scenario(f"1.0/{gen}").agents


def test_transcription_spot_checks() -> None:
    s = get_scenario("0.5/gen_012")
    assert s.agents[0][1].requirements == {"r2": 3, "r3": 2}
    assert s.agents[0][1].reward == 4
    s = get_scenario("1.0/gen_014")
    assert s.agents[1][0].requirements == {"r2": 2, "r3": 1}
    assert s.agents[1][0].reward == 10
    assert paper_ratio("0.8/gen_006") == 0.80
    assert paper_ratio("0.5/gen_012") == 0.54


def test_market_is_the_paper_market() -> None:
    assert pool_market() == Market()


def test_scenarios_for_ratio() -> None:
    assert [len(scenarios_for_ratio(r)) for r in (0.5, 0.8, 1.0)] == [4, 5, 6]
    assert all(s.target_ratio == 0.8 for s in scenarios_for_ratio(0.8))
    with pytest.raises(ConfigError, match=re.escape("available ratios: 0.5, 0.8, 1")):
        scenarios_for_ratio(0.3)


def test_unknown_ids_and_pools_name_the_valid_ones() -> None:
    with pytest.raises(ConfigError) as info:
        get_scenario("gen_012")
    assert "0.5/gen_012" in str(info.value) and "1.0/gen_014" in str(info.value)
    with pytest.raises(ConfigError, match="paper"):
        load_pool("nope")
    with pytest.raises(ConfigError, match="valid ids"):
        paper_ratio("0.5/gen_999")


def test_scenario_json_shape_and_values() -> None:
    doc = scenario_json(get_scenario("0.8/gen_001"), Market())
    assert json.loads(json.dumps(doc)) == doc
    assert set(doc) == {"id", "agents", "target_ratio", "oracle"}
    assert doc["id"] == "0.8/gen_001" and doc["target_ratio"] == 0.8
    assert doc["agents"][1][2] == {"name": "project_c", "requirements": {"r1": 6}, "reward": 10}
    orc = doc["oracle"]
    assert set(orc) == {"V1", "V2", "M", "ratio", "joint_optima"}
    assert (orc["V1"], orc["V2"], orc["M"]) == (15, 15, 25)
    assert round(orc["ratio"], 2) == 0.83
    assert orc["joint_optima"] == [
        {
            "runs": [{"project_c": 3}, {"project_c": 1}],
            "purchases": [{"r2": 6, "r3": 3}, {"r1": 6}],
            "rewards": [15, 10],
        },
        {
            "runs": [{"project_c": 2}, {"project_b": 1, "project_c": 1}],
            "purchases": [{"r2": 4, "r3": 2}, {"r1": 6, "r3": 4}],
            "rewards": [10, 15],
        },
    ]
