"""The reply cap of a model on a server someone runs (`accord.core.game.Game.reply_tokens`).

`with_reply_budget` fills a served seat's ``max_tokens`` with the game's default when neither
the seat nor its options set one, so the trace's ``agents_config`` states the cap each call
used and a replay uses it again.
"""

from __future__ import annotations

from accord.core.registry import game_class
from accord.models.server import is_server_model
from accord.runner.specs import AgentSpec, GameSpec


def reply_cap(agent: AgentSpec) -> int | None:
    """The ``max_tokens`` a seat asks for: its own, else its model options'."""
    if agent.max_tokens is not None:
        return agent.max_tokens
    value = agent.options.get("max_tokens")
    return int(value) if isinstance(value, int) else None


def with_reply_budget(spec: GameSpec) -> GameSpec:
    """`spec` with the game's ``reply_tokens`` as ``max_tokens`` of each served seat that sets
    no cap (Game.reply_tokens); other seats are unchanged."""
    agents = [budgeted(a, spec.game) for a in spec.agents]
    if all(new is old for new, old in zip(agents, spec.agents, strict=True)):
        return spec
    return spec.model_copy(update={"agents": agents})


def budgeted(agent: AgentSpec, game: str) -> AgentSpec:
    """`agent` with `game`'s ``reply_tokens`` as its ``max_tokens`` if it is a served model
    that sets no cap; otherwise `agent` itself."""
    if agent.model is None or reply_cap(agent) is not None:
        return agent
    if not is_server_model(agent.model, agent.options):
        return agent
    return agent.model_copy(update={"max_tokens": game_class(game).reply_tokens})
