"""``accord scenario negotiation``: the built-in pool (seed 004's scenarios), one pool scenario,
or a generated one, optionally filtered by models that must solve it alone (§3.1 pass@1), each
with its exact oracle. Declared in this package's `INFO` (``scenario``)."""

from __future__ import annotations

from typing import Any

from rich.markup import escape

from accord.core.errors import ConfigError
from accord.core.gameinfo import ScenarioOutput, ScenarioQuery


def scenarios(query: ScenarioQuery) -> ScenarioOutput:
    """The scenarios `query` asks for, and one line per scenario for the table format."""
    if query.filter_models and not query.generate:
        raise ConfigError("--filter-model filters generated scenarios; add --generate")
    if query.filter_tries < 1:
        raise ConfigError("--filter-tries must be at least 1")
    data = _negotiation(
        query.pool,
        query.scenario_id,
        query.generate,
        query.ratio,
        query.seed,
        query.filter_models,
        query.filter_tries,
    )
    items = [data] if isinstance(data, dict) else data
    lines = []
    for item in items:
        o = item["oracle"]
        lines.append(
            f"[bold]{escape(str(item['id']))}[/bold]  V1={o['V1']} V2={o['V2']} M={o['M']} "
            f"M/C={o['ratio']:.2f}  joint optima: {len(o['joint_optima'])}"
        )
    return ScenarioOutput(data, lines)


def _negotiation(
    pool: str,
    scenario_id: str | None,
    generate: bool,
    ratio: float,
    seed: int,
    filter_models: list[str] | None = None,
    tries: int = 5,
) -> dict[str, Any] | list[dict[str, Any]]:
    from accord.games.negotiation.pool import get_scenario, load_pool, scenario_json
    from accord.games.negotiation.scenario import Market

    market = Market()
    if generate:
        from accord.games.negotiation.generate import generate_scenario

        if ratio not in (0.5, 0.8, 1.0):
            raise ConfigError(f"--ratio must be 0.5, 0.8 or 1.0, got {ratio}")
        if filter_models:
            return scenario_json(_filtered(ratio, seed, market, filter_models, tries), market)
        return scenario_json(generate_scenario(ratio, seed, market), market)
    if scenario_id is not None:
        return scenario_json(get_scenario(scenario_id), market)
    if pool != "paper":
        raise ConfigError(f"unknown pool {pool!r}; the built-in pool is 'paper'")
    return [scenario_json(s, market) for s in load_pool(pool)]


def _filtered(ratio: float, seed: int, market: Any, models: list[str], tries: int) -> Any:
    """The first generated scenario (seeds seed, seed+1, ...) every model solves pass@1."""
    import asyncio

    from accord.games.negotiation.generate import generate_scenario
    from accord.games.negotiation.solo import filter_scenario
    from accord.models import get_model

    clients = [get_model(m) for m in models]
    failures = []
    for s in range(seed, seed + tries):
        checked = asyncio.run(filter_scenario(clients, generate_scenario(ratio, s, market), market))
        if all(c.passed for c in checked.oracle_checks):
            return checked
        failures += [
            f"seed {s}, {c.model}: {c.detail}" for c in checked.oracle_checks if not c.passed
        ]
    raise ConfigError(
        f"no generated scenario passed the oracle filter in {tries} tries ("
        + "; ".join(failures[:3])
        + "); raise --filter-tries or try another --seed"
    )
