"""`sorting-v1`: distributed sorting over a communication backend (MAS-Bench).

See `engine.py` for the rules and state machine and `docs/sorting.md` for every modelling
choice and metric.
"""

from accord.core.registry import register
from accord.games.sorting.config import SortingConfig
from accord.games.sorting.engine import SortingGame

register(SortingGame, "sorting", "sorting-v1")

__all__ = ["SortingConfig", "SortingGame"]


def _register_agents() -> None:
    from accord.agents.reference import register_reference
    from accord.games.sorting import protocols

    for name, factory in protocols.REFERENCE_AGENTS.items():
        register_reference(SortingGame.game_id, name, factory)


_register_agents()
