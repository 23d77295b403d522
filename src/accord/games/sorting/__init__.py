"""`sorting-v3`: distributed sorting over a communication backend (MAS-Bench).

See `engine.py` for the rules and state machine and `docs/sorting.md` for every modelling
choice and metric. The game, its reference agents (`protocols.REFERENCE_AGENTS`) and its
report (`report.build`) reach Accord through entry points declared in Accord's
``pyproject.toml``.
"""

from accord.core.controls import register_play_controls
from accord.games.sorting import controls
from accord.games.sorting.config import SortingConfig
from accord.games.sorting.engine import SortingGame

register_play_controls(SortingGame.game_id, controls.CONTROLS)

__all__ = ["SortingConfig", "SortingGame"]
