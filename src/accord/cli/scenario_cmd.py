"""`accord scenario`: print scenarios with their oracle (a game's own scenario tool when its
`GameInfo` declares one, else the scenario the game builds from its options and seed)."""

from __future__ import annotations

import enum
import json
from typing import Annotated

import typer

from accord.cli.main import _fail, app, console
from accord.cli.options import parse_options
from accord.core.errors import AccordError, ConfigError
from accord.core.gameinfo import ScenarioQuery, all_infos, info_for, resolve_ref
from accord.core.registry import make


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
    flags = {
        "agents": agents,
        "slots": slots,
        "meetings": meetings,
        "participants": participants,
        "density": density,
        "blocked": blocked,
        "costs": costs,
    }
    given = {k: v for k, v in flags.items() if v is not None}
    try:
        info = info_for(game)
        unknown = sorted(set(given) - set(info.scenario_flags))
        if unknown:
            owners = [i.alias for i in all_infos() if set(unknown) <= set(i.scenario_flags)]
            raise ConfigError(
                f"{'/'.join('--' + f for f in unknown)} describe "
                f"{' or '.join(owners) or 'other games'} scenarios, not {info.alias} ones; "
                "use -o key=value for its options"
            )
        options = {**parse_options(option)}
        options |= {info.scenario_flags[k]: v for k, v in given.items()}
        if info.scenario is None:
            game_obj = make(info.game_id, options)
            game_obj.reset(seed)
            typer.echo(json.dumps(game_obj.scenario(), indent=1))
            return
        query = ScenarioQuery(
            options=options,
            seed=seed,
            pool=pool,
            scenario_id=scenario_id,
            generate=generate,
            ratio=ratio,
            filter_models=filter_model,
            filter_tries=filter_tries,
        )
        result = resolve_ref(info.scenario)(query)
    except AccordError as exc:
        raise _fail(exc) from exc
    if as_json or fmt is Format.json:
        typer.echo(json.dumps(result.data, indent=1))
        return
    for line in result.lines:
        console.print(line)
