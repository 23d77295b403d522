"""`accord scenario`: print scenarios with their oracle."""

from __future__ import annotations

import enum
import json
from typing import Annotated, Any

import typer

from accord.cli.main import _fail, app, console
from accord.cli.options import parse_options
from accord.core.errors import AccordError, ConfigError
from accord.core.registry import make, resolve


class Format(enum.StrEnum):
    """Output formats of `accord scenario` (as of `accord query`, `leaderboard`, `value`)."""

    table = "table"
    json = "json"


@app.command("scenario")
def scenario(
    game: Annotated[str, typer.Argument(help="Game name, e.g. negotiation.")],
    pool: Annotated[str, typer.Option(help="Built-in pool to print.")] = "paper",
    scenario_id: Annotated[str | None, typer.Option("--id", help="One pool scenario.")] = None,
    generate: Annotated[bool, typer.Option(help="Generate a new scenario instead.")] = False,
    ratio: Annotated[float, typer.Option(help="Target M/C for --generate.")] = 0.8,
    seed: Annotated[int, typer.Option(help="Seed for --generate.")] = 0,
    filter_model: Annotated[
        list[str] | None,
        typer.Option(
            help="Negotiation --generate: keep only a scenario this model solves alone with full "
            "information in one attempt (§3.1 pass@1); repeat for several models. Candidates "
            "come from seeds --seed, --seed+1, ... up to --filter-tries; the checks are "
            "recorded in the scenario."
        ),
    ] = None,
    filter_tries: Annotated[int, typer.Option(help="Candidates tried by --filter-model.")] = 5,
    agents: Annotated[int | None, typer.Option(help="Calendar: number of agents.")] = None,
    slots: Annotated[int | None, typer.Option(help="Calendar: slots per calendar.")] = None,
    meetings: Annotated[int | None, typer.Option(help="Calendar: incoming meetings.")] = None,
    participants: Annotated[
        int | None, typer.Option(help="Calendar: participants per meeting.")
    ] = None,
    density: Annotated[float | None, typer.Option(help="Calendar: errand density.")] = None,
    blocked: Annotated[int | None, typer.Option(help="Calendar: blocked errands.")] = None,
    costs: Annotated[str | None, typer.Option(help="Calendar: uniform or varied.")] = None,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="Game option key=value.")
    ] = None,
    fmt: Annotated[
        Format, typer.Option("--format", "-f", help="Output format (table or json).")
    ] = Format.table,
    as_json: Annotated[
        bool, typer.Option("--json", help="Same as --format json (the older spelling).")
    ] = False,
) -> None:
    """Print scenarios with their exact oracle.

    For negotiation: the built-in pool, one pool scenario, or a generated one. For the other
    games: the scenario the game builds from its options and --seed.

    Examples:

      accord scenario negotiation --pool paper --format json

      accord scenario negotiation --generate --ratio 0.8 --seed 7 --format json

      accord scenario negotiation --generate --ratio 0.5 --filter-model openai/gpt-5-mini -f json

      accord scenario calendar --seed 3 --agents 5 --slots 16 --meetings 5 --costs varied -f json

      accord scenario calendar --seed 3 -o suite=canonical --format json

    The other games print JSON whatever the format; --json is kept as --format json.
    """
    calendar_flags = {
        "num_agents": agents,
        "num_slots": slots,
        "num_meetings": meetings,
        "participants_per_meeting": participants,
        "density": density,
        "num_blocked": blocked,
        "cost_setting": costs,
    }
    given = {k: v for k, v in calendar_flags.items() if v is not None}
    try:
        gid = resolve(game)
        if given and gid != "calendar-v2":
            raise ConfigError(
                "--agents/--slots/--meetings/--participants/--density/--blocked/--costs "
                "describe calendar scenarios; use -o key=value for other games"
            )
        if not gid.startswith("negotiation-"):
            game_obj = make(gid, {**parse_options(option), **given})
            game_obj.reset(seed)
            typer.echo(json.dumps(game_obj.scenario(), indent=1))
            return
        if filter_model and not generate:
            raise ConfigError("--filter-model filters generated scenarios; add --generate")
        if filter_tries < 1:
            raise ConfigError("--filter-tries must be at least 1")
        data = _negotiation(pool, scenario_id, generate, ratio, seed, filter_model, filter_tries)
    except AccordError as exc:
        raise _fail(exc) from exc
    if as_json or fmt is Format.json:
        typer.echo(json.dumps(data, indent=1))
        return
    items = [data] if isinstance(data, dict) else data
    for item in items:
        o = item["oracle"]
        console.print(
            f"[bold]{item['id']}[/bold]  V1={o['V1']} V2={o['V2']} M={o['M']} "
            f"M/C={o['ratio']:.2f}  joint optima: {len(o['joint_optima'])}"
        )


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
