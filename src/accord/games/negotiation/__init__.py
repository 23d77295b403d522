"""`negotiation-v2`: iterated two-agent resource negotiation with private projects (seed 004).

See `engine.py` for the rules and state machine, `docs/negotiation.md` for every modelling
choice and metric.
"""

from accord.agents.reference import register_reference
from accord.core.registry import register
from accord.games.negotiation import report_build  # noqa: F401  (registers the report)
from accord.games.negotiation.config import NegotiationConfig
from accord.games.negotiation.engine import NegotiationGame

register(NegotiationGame, "negotiation", "negotiation-v2")

__all__ = ["NegotiationConfig", "NegotiationGame"]


def _register_agents() -> None:
    from accord.agents.human import register_human_adapter
    from accord.games.negotiation import protocols

    for name, factory in protocols.REFERENCE_AGENTS.items():
        register_reference(NegotiationGame.game_id, name, factory)
    register_human_adapter(NegotiationGame.game_id, protocols.human_adapter, protocols.human_help)


_register_agents()
