"""`negotiation-v3`: iterated two-agent resource negotiation with private projects (seed 004).

See `engine.py` for the rules and state machine, `docs/negotiation.md` for every modelling
choice and metric. The game, its reference agents (`protocols.REFERENCE_AGENTS`) and its
report (`report_build.build`) reach Accord through entry points declared in Accord's
``pyproject.toml``.
"""

from accord.agents.human import register_human_adapter
from accord.core.controls import register_play_controls
from accord.games.negotiation import controls, protocols
from accord.games.negotiation.config import NegotiationConfig
from accord.games.negotiation.engine import NegotiationGame

register_human_adapter(NegotiationGame.game_id, protocols.human_adapter, protocols.human_help)
register_play_controls(NegotiationGame.game_id, controls.CONTROLS)

__all__ = ["NegotiationConfig", "NegotiationGame"]
