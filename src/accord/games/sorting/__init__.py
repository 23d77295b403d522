"""`sorting-v2`: distributed sorting over a communication backend (MAS-Bench).

See `engine.py` for the rules and state machine and `docs/sorting.md` for every modelling
choice and metric.
"""

from accord.analysis.report import register_report
from accord.core.registry import register
from accord.games.sorting.config import SortingConfig
from accord.games.sorting.engine import SortingGame
from accord.games.sorting.report import build as build_report

register(SortingGame, "sorting", "sorting-v2")
register_report(SortingGame.game_id, build_report)

__all__ = ["SortingConfig", "SortingGame"]


def _register_agents() -> None:
    from accord.agents.reference import register_reference
    from accord.games.sorting import protocols

    for name, factory in protocols.REFERENCE_AGENTS.items():
        register_reference(SortingGame.game_id, name, factory)


_register_agents()
