"""Accord games as Inspect AI tasks: one sample per game, one model role per seat.

`accord_task("negotiation-v3", games=10)` (or ``inspect eval accord/accord_game -T
game=negotiation-v3``) plays each game through Accord's own runner while every model seat
asks an Inspect model: the one bound to the model role named after the seat (``A``/``B`` in
negotiation, ``agent0``... in calendar, ``Agent-0``... in sorting), or the eval's model when
that role is not bound. Inspect's providers, retries, limits and cache answer the calls, and
each call is a model event of the sample. The game's Accord metrics are the sample's score
(one value per summary metric, with mean and standard error over samples); the seats'
conversations are the sample's messages and the whole Accord trace is kept in the sample's
store (``accord_trace``), so ``accord`` tools can read it back. A game that failed (a model
that could not be reached) is the sample's error, with the trace's reason, and is left out of
every mean, as Accord keeps failed games out; the eval's status is ``error`` when every game
failed (`ALL_FAILED`), ``success`` otherwise, with the failed games listed as errors.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from accord.core.errors import ConfigError
from accord.core.registry import make, resolve
from accord.inspectai.convert import (
    SCORER,
    headline_keys,
    score_value,
    scrubbed,
    transcript_messages,
)

if TYPE_CHECKING:
    from inspect_ai import Task
    from inspect_ai.scorer import Scorer
    from inspect_ai.solver import Solver

    from accord.agents.base import Agent
    from accord.runner.specs import AgentSpec

MODEL_SEAT = "model"
"""The `agents` entry for a seat played by its Inspect model role."""

TRACE_KEY = "accord_trace"
"""Key of the Accord trace in an Inspect sample's store."""


def parse_options(options: Mapping[str, Any] | str | None) -> dict[str, Any]:
    """Game options given as a mapping or as JSON text (``-T options='{"rounds": 2}'``)."""
    if options is None or options == "":
        return {}
    if isinstance(options, str):
        try:
            loaded = json.loads(options)
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"options must be a JSON object of game options, e.g. '{{\"rounds\": 2}}' ({exc})"
            ) from exc
        options = loaded
    if not isinstance(options, Mapping):
        raise ConfigError("options must be a JSON object of game options, e.g. '{\"rounds\": 2}'")
    return dict(options)


def parse_agents(agents: str | list[str] | None, game_id: str, seats: int) -> list[str | None]:
    """One entry per seat: None for a model seat, else a reference agent name (checked)."""
    from accord.agents.reference import make_reference

    if agents is None or agents == "":
        return [None] * seats
    names = agents.split(",") if isinstance(agents, str) else list(agents)
    names = [n.strip() for n in names]
    if len(names) != seats:
        raise ConfigError(
            f"{game_id} has {seats} seats but agents names {len(names)}: give one entry per "
            f"seat, '{MODEL_SEAT}' for a seat played by its Inspect model role"
        )
    out: list[str | None] = []
    for name in names:
        if name in ("", MODEL_SEAT):
            out.append(None)
        elif name == "human" or "/" in name:
            raise ConfigError(
                f"agent {name!r}: in an Inspect task a seat is '{MODEL_SEAT}' (bind its model "
                "with --model-role SEAT=provider/model) or a reference agent name"
            )
        else:
            make_reference(game_id, name)  # names the reference agents when it is unknown
            out.append(name)
    return out


def accord_task(
    game: str,
    games: int = 10,
    seed: int = 0,
    agents: str | list[str] | None = None,
    options: Mapping[str, Any] | str | None = None,
) -> Task:
    """An Inspect task playing `games` games of `game`.

    Args:
        game: Accord game id or alias (``accord games`` lists them).
        games: how many games (samples); game ``i`` is played on seed ``seed + i``.
        seed: seed of the first game.
        agents: one entry per seat, comma-separated: ``model`` (the seat's Inspect model role)
            or a reference agent name; default: every seat is a model.
        options: game options, a mapping or JSON text.

    Raises:
        ConfigError: an unknown game, bad options, or a wrong agent list.
    """
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset, Sample

    if games < 1:
        raise ConfigError(f"games must be at least 1 (got {games})")
    game_id = resolve(game)
    opts = parse_options(options)
    probe = make(game_id, opts)
    seat_agents = parse_agents(agents, game_id, probe.num_seats)
    labels = [probe.seat_label(i) for i in range(probe.num_seats)]
    samples = [
        Sample(
            id=f"{game_id}-s{seed + i}",
            input=f"Play {game_id} on seed {seed + i}; seats: {', '.join(labels)}.",
            metadata={"seed": seed + i},
        )
        for i in range(games)
    ]
    return Task(
        dataset=MemoryDataset(samples, name=game_id),
        solver=play_accord(game_id, opts, seat_agents),
        scorer=accord_metrics(game_id),
        name=f"accord_{game_id.replace('-', '_')}",
        metadata={"accord_game": game_id, "seats": labels, "agents": seat_agents},
        fail_on_error=ALL_FAILED,
    )


def _seat(
    game_id: str, label: str, name: str | None, seed: int, session: str
) -> tuple[Agent, AgentSpec]:
    from inspect_ai.model import get_model

    from accord.agents.llm import LLMAgent
    from accord.agents.reference import make_reference
    from accord.inspectai.model import InspectModel
    from accord.runner.specs import AgentSpec

    if name is not None:
        return make_reference(game_id, name), AgentSpec(agent=name)
    # An unbound role falls back to the eval's model, still tagged with the seat's role.
    client = InspectModel(get_model(role=label, default=get_model()))
    agent = LLMAgent(client, seed=seed, session=session)
    return agent, AgentSpec(model=client.spec)


class GameFailed(RuntimeError):
    """A game ended `failed` (a model that never answered, a seat that left): the sample's
    error, with the trace's reason."""


ALL_FAILED = 1 - 1e-9
"""The task's ``fail_on_error``: a share of errored samples so close to 1 that the eval fails
only when every game failed (``--fail-on-error`` on Inspect's command line overrides it)."""


def play_accord(game_id: str, options: dict[str, Any], agents: list[str | None]) -> Solver:
    """The solver playing one Accord game per sample (its seed in the sample's metadata)."""
    from inspect_ai.model import ModelOutput
    from inspect_ai.solver import Generate, TaskState, solver

    from accord.runner.play import play_game
    from accord.runner.specs import GameSpec

    @solver(name="play_accord")
    def build() -> Solver:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            del generate  # the seats ask their own models
            seed = int(state.metadata["seed"])
            game = make(game_id, options)
            trace_id = f"{game_id}-s{seed}"
            built = [
                _seat(game_id, game.seat_label(i), name, seed, trace_id)
                for i, name in enumerate(agents)
            ]
            spec = GameSpec(
                trace_id=trace_id,
                game=game_id,
                options=options,
                seed=seed,
                agents=[s for _a, s in built],
            )
            trace = scrubbed(await play_game(spec, [a for a, _s in built]))
            state.store.set(TRACE_KEY, trace.model_dump(mode="json"))
            state.messages = transcript_messages(trace)
            summary = (
                f"{trace.status}: " + json.dumps(score_value(headline_keys(game_id), trace.metrics))
                if trace.status == "complete"
                else f"failed: {trace.error}"
            )
            state.output = ModelOutput.from_content(model="accord", content=summary)
            if trace.status != "complete":
                # The sample errors with the reason (shown in Inspect's summary and viewer);
                # its store keeps the trace. The task's threshold fails the eval only when
                # every game failed, as a run of Accord's own would say.
                hint = (
                    " (Inspect's mockllm counts tokens with a tokenizer it downloads; "
                    "offline, use --model accord/mock/schema)"
                    if "mockllm/" in (trace.error or "")
                    else ""
                )
                raise GameFailed(f"the Accord game {trace_id} failed: {trace.error}{hint}")
            return state

        return solve

    return build()


def accord_metrics(game_id: str) -> Scorer:
    """The scorer reading a played game's Accord metrics from the sample's store."""
    from inspect_ai.scorer import Score, Target, mean, scorer, stderr
    from inspect_ai.solver import TaskState

    keys = headline_keys(game_id)

    @scorer(name=SCORER, metrics={key: [mean(), stderr()] for key in keys})
    def build() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            del target
            trace = state.store.get(TRACE_KEY)
            if not isinstance(trace, dict) or trace.get("status") != "complete":
                why = trace.get("error") if isinstance(trace, dict) else "no game was played"
                # NaN at the root: Inspect counts the sample as unscored (kept out of means).
                return Score(value=math.nan, explanation=f"game failed: {why}")
            return Score(
                value=score_value(keys, trace.get("metrics") or {}),
                explanation=f"Accord metrics of {trace.get('trace_id')}",
                metadata={"metrics": trace.get("metrics") or {}},
            )

        return score

    return build()
