"""The oracle filter of seed 004 §3.1: can one model, alone and with full information, find
the joint optimum of a scenario in a single attempt (pass@1)?

The model sees the market and both agents' projects and answers with both purchases (and
optionally runs). The answer passes when both purchases are legal, together they stay within
the supply, and the joint reward (runs as the engine resolves them, `rules.resolve_runs`)
reaches `M`. One call, no retries: a reply that does not parse fails.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from accord.core.errors import ActionError
from accord.core.json_reply import extract_json_object
from accord.games.negotiation import rules
from accord.games.negotiation.actions import purchase_schema
from accord.games.negotiation.oracle import solve
from accord.games.negotiation.prompts import project_lines
from accord.games.negotiation.scenario import RESOURCES, THEMES, Market, OracleCheck, Scenario
from accord.models.client import ModelClient

NAMES: dict[str, str] = dict(zip(RESOURCES, THEMES["medieval"], strict=True))
SEATS = ("A", "B")


def solo_prompt(scenario: Scenario, market: Market) -> str:
    """Everything about the scenario, for one solver (our wording of the §3.1 setting)."""
    supply = json.dumps({NAMES[r]: market.supply[r] for r in RESOURCES})
    costs = json.dumps({NAMES[r]: market.costs[r] for r in RESOURCES})
    parts = [
        "Two parties, A and B, each buy resources from one shared supply and run projects.",
        f"Supply (shared by both): {supply}. Price per unit: {costs}.",
        f"Each party has a budget of ${market.budget:g} and may buy at most "
        f"{market.max_types} kinds of resource.",
        "If together they ask for more of any resource than the supply, both earn 0.",
        "A party earns, for each of its projects, runs × reward per run, for the runs its own "
        "purchase fully supplies.",
    ]
    for seat, name in enumerate(SEATS):
        parts += [f"Projects of {name}:", project_lines(scenario.agents[seat], NAMES)]
    parts.append(
        "Choose both purchases so that the two parties together earn as much as possible. "
        'Reply with ONLY a JSON object: {"A": {"<resource>": units, ..., "projects": '
        '{"<project>": runs}}, "B": {...}}.'
    )
    return "\n".join(parts)


def solo_schema(scenario: Scenario, market: Market) -> dict[str, Any]:
    """JSON schema of an answer (for providers that constrain output)."""
    seat = purchase_schema(NAMES, scenario.agents[0], market)
    return {
        "type": "object",
        "properties": {"A": seat, "B": seat},
        "required": list(SEATS),
    }


def score(text: str, scenario: Scenario, market: Market) -> tuple[int, str]:
    """(joint reward, problem) of an answer; the problem is "" for a valid answer."""
    by_name = {v: k for k, v in NAMES.items()}
    try:
        obj, _ = extract_json_object(text)
        decisions = []
        for seat, name in enumerate(SEATS):
            part = obj.get(name)
            if not isinstance(part, dict):
                raise ActionError(f"no object for party {name}")
            runs = part.get("projects")
            purchase = {by_name.get(str(k).lower(), str(k)): v for k, v in part.items()}
            purchase.pop("projects", None)
            rules.check_purchase(market, purchase)
            if runs is not None:
                if not isinstance(runs, dict):
                    raise ActionError(f'{name}: "projects" must map project names to runs')
                rules.check_run_names(scenario.agents[seat], runs)
            decisions.append(rules.Decision(rules.normalize_purchase(purchase), runs))
    except ActionError as exc:
        return 0, str(exc)
    outcome = rules.resolve_round(market, scenario.agents, decisions)
    if outcome.annulled:
        return 0, "the two purchases exceed the supply"
    return outcome.joint_reward, ""


async def pass_at_1(
    client: ModelClient, scenario: Scenario, market: Market, *, seed: int = 0
) -> OracleCheck:
    """One attempt by `client` at the joint optimum of `scenario`."""
    best = solve(market, scenario).m
    reply = await client.complete(
        [{"role": "user", "content": solo_prompt(scenario, market)}],
        response_schema=solo_schema(scenario, market),
        temperature=0.0,
        seed=seed,
        session=f"oracle-filter/{scenario.id}",
    )
    joint, problem = score(reply.text, scenario, market)
    if not problem and joint < best:
        problem = f"joint reward {joint} is below the optimum {best}"
    return OracleCheck(
        model=client.spec,
        passed=not problem,
        joint_reward=joint,
        detail=problem,
    )


async def filter_scenario(
    clients: Sequence[ModelClient], scenario: Scenario, market: Market, *, seed: int = 0
) -> Scenario:
    """`scenario` with every model's pass@1 check recorded in `oracle_checks`."""
    checks = [await pass_at_1(c, scenario, market, seed=seed) for c in clients]
    return scenario.model_copy(update={"oracle_checks": tuple(checks)})
