"""Which seats of a run play through provider batches, and whether the run can.

``--batch`` on ``accord run`` and ``batch: true`` at the top of an experiment file put every
model seat in batch mode (a seat's own ``batch: false`` keeps it live); ``batch: true`` on one
seat puts that seat alone. Reference agents and remote seats always answer live. A run that
cannot play its batch seats is refused before anything is written: a seat whose provider has
no batch API, a person at the table (a batch holds every game for minutes to hours), or an
executor other than this process (the step scheduler gathers the calls of the games it plays).
"""

from __future__ import annotations

from collections.abc import Sequence

from accord.core.errors import ConfigError
from accord.runner.specs import AgentSpec, GameSpec


def with_batch(specs: Sequence[GameSpec]) -> list[GameSpec]:
    """`specs` with every model seat that does not say otherwise in batch mode."""
    out = []
    for spec in specs:
        agents = [
            a.model_copy(update={"batch": True}) if a.model is not None and a.batch is None else a
            for a in spec.agents
        ]
        out.append(spec.model_copy(update={"agents": agents}))
    return out


def uses_batch(specs: Sequence[GameSpec]) -> bool:
    """Whether any seat of the run plays through a provider batch."""
    return any(a.batch for s in specs for a in s.agents)


def check_batch(specs: Sequence[GameSpec], executor: str = "local") -> None:
    """One `ConfigError` (exit code 2 on the command line) for a batch run that cannot be
    played, before any game or file."""
    if not uses_batch(specs):
        return
    from accord.models.batched import batch_api_for

    if executor != "local":
        raise ConfigError(
            f"batch mode plays its games in this process, not on the {executor} executor: "
            "drop --executor or --batch.",
        )
    seen: set[str] = set()
    for spec in specs:
        for agent in spec.agents:
            if agent.is_human:
                raise ConfigError(
                    "a person cannot sit at a batch-mode table (each step waits for the "
                    "provider's batch, minutes to hours): play people without --batch."
                )
            if not agent.batch:
                continue
            key = _key(agent)
            if key not in seen:
                seen.add(key)
                batch_api_for(str(agent.model), agent.options)


def _key(agent: AgentSpec) -> str:
    return agent.model_dump_json()
