"""OpenSkill leaderboards of every game (CalBench App. E, extended to team games)."""

from accord.ratings.leaderboard import Leaderboard, Standing, leaderboard, leaderboards, player
from accord.ratings.scores import BOARDS, Board, Dimension

__all__ = [
    "BOARDS",
    "Board",
    "Dimension",
    "Leaderboard",
    "Standing",
    "leaderboard",
    "leaderboards",
    "player",
]
