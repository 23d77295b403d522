"""Built-in scenario pools of the negotiation game (seed 004 §3.1, App. C.2).

The ``paper`` pool holds the 15 scenarios listed in App. C.2, copied as data into
``data/paper_pool.json``. Ids are ``<target ratio>/<paper id>`` (``0.5/gen_012``,
``1.0/gen_001``): the paper reuses ``gen_001`` and ``gen_006`` at two ratios, so the ratio
prefix keeps ids unique. The file also records the M/C printed under each table
(`paper_ratio`); the oracle reproduces every one of them to two decimals.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from accord.core.errors import ConfigError
from accord.games.negotiation import oracle
from accord.games.negotiation.scenario import Market, Project, Scenario

POOLS: tuple[str, ...] = ("paper",)
"""Names of the built-in pools."""


@cache
def _load(name: str) -> tuple[Market, tuple[Scenario, ...], dict[str, float]]:
    if name not in POOLS:
        raise ConfigError(f"unknown scenario pool {name!r}; built-in pools: {', '.join(POOLS)}")
    text = (
        resources.files("accord.games.negotiation")
        .joinpath("data", f"{name}_pool.json")
        .read_text(encoding="utf-8")
    )
    doc: dict[str, Any] = json.loads(text)
    market = Market.model_validate(doc["market"])
    scenarios: list[Scenario] = []
    printed: dict[str, float] = {}
    for entry in doc["scenarios"]:
        agents = tuple(tuple(Project.model_validate(p) for p in seat) for seat in entry["agents"])
        scenarios.append(
            Scenario(
                id=entry["id"],
                agents=(agents[0], agents[1]),
                target_ratio=entry["target_ratio"],
            )
        )
        printed[entry["id"]] = float(entry["paper_ratio"])
    return market, tuple(scenarios), printed


def load_pool(name: str = "paper") -> list[Scenario]:
    """All scenarios of a built-in pool, in the paper's order (ratio 0.5, 0.8, 1.0)."""
    return list(_load(name)[1])


def pool_market(name: str = "paper") -> Market:
    """The market every scenario of the pool was built for (App. C.2: 10/10/6, 1/1.5/3, 18)."""
    return _load(name)[0]


def pool_ids(name: str = "paper") -> list[str]:
    """Ids of a pool's scenarios, e.g. ``["0.5/gen_012", ...]``."""
    return [s.id for s in _load(name)[1]]


def get_scenario(scenario_id: str, name: str = "paper") -> Scenario:
    """The scenario with this id; `ConfigError` naming the valid ids otherwise."""
    for s in _load(name)[1]:
        if s.id == scenario_id:
            return s
    raise ConfigError(
        f"unknown scenario id {scenario_id!r} in pool {name!r}; "
        f"valid ids: {', '.join(pool_ids(name))}"
    )


def scenarios_for_ratio(ratio: float, name: str = "paper") -> list[Scenario]:
    """The scenarios generated for a target ratio (0.5, 0.8 or 1.0); `ConfigError` if none."""
    found = [
        s
        for s in _load(name)[1]
        if s.target_ratio is not None and abs(s.target_ratio - ratio) < 1e-9
    ]
    if not found:
        levels = sorted({s.target_ratio for s in _load(name)[1] if s.target_ratio is not None})
        raise ConfigError(
            f"no scenario in pool {name!r} targets ratio {ratio:g}; "
            f"available ratios: {', '.join(f'{r:g}' for r in levels)}"
        )
    return found


def paper_ratio(scenario_id: str, name: str = "paper") -> float:
    """The M/C printed in the paper for this scenario (two decimals)."""
    get_scenario(scenario_id, name)  # raises the guiding error for unknown ids
    return _load(name)[2][scenario_id]


def scenario_json(scenario: Scenario, market: Market) -> dict[str, Any]:
    """A scenario with its oracle, as printed by ``accord scenario negotiation --json``.

    Shape: ``{"id", "agents": [[{"name", "requirements", "reward"}, ...], [...]],
    "target_ratio", "oracle": {"V1", "V2", "M", "ratio", "joint_optima": [...]}}``, where each
    joint optimum is ``{"runs": [..], "purchases": [..], "rewards": [r0, r1]}``.
    """
    result = oracle.solve(market, scenario)
    return {
        "id": scenario.id,
        "agents": [
            [
                {"name": p.name, "requirements": dict(p.requirements), "reward": p.reward}
                for p in seat
            ]
            for seat in scenario.agents
        ],
        "target_ratio": scenario.target_ratio,
        "oracle": {
            "V1": result.v1,
            "V2": result.v2,
            "M": result.m,
            "ratio": result.ratio,
            "joint_optima": [o.as_dict() for o in result.joint_optima],
        },
        **(
            {"oracle_checks": [c.model_dump() for c in scenario.oracle_checks]}
            if scenario.oracle_checks
            else {}
        ),
    }
