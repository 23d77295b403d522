"""OpenSkill leaderboards of every game (CalBench App. E, extended to team games)."""

from accord.ratings.leaderboard import Leaderboard, Standing, leaderboard, leaderboards, player
from accord.ratings.scores import Board, Dimension, board_for, boards

__all__ = [
    "Board",
    "Dimension",
    "Leaderboard",
    "Standing",
    "board_for",
    "boards",
    "leaderboard",
    "leaderboards",
    "player",
]
