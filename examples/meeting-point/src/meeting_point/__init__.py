"""Meeting point (`meeting-point-v1`): two people agree where to meet, each with private costs.

Each seat privately knows how costly each place in town is for it to reach. They may talk for a
few turns, then both name a place at the same time. If they name the same place they meet, and
the team pays both costs of it; otherwise they miss each other. The oracle is the place with
the lowest summed cost, found exactly by trying every place. See docs/meeting-point.md.

This is Accord's example of a game from another package. Everything Accord knows about it is
declared once, in `INFO`, which the one entry point in its pyproject.toml names, exactly like
Accord's own games: its reference agents and report, its leaderboard board, its value of
communication (the no-talk baseline), the messages `accord query` shows, and how a person plays
it at the terminal.
"""

from accord.core.gameinfo import GameInfo, HumanSeat, Lazy

from meeting_point import outcomes
from meeting_point.config import MeetingPointConfig
from meeting_point.game import MeetingPointGame

INFO = GameInfo(
    game=MeetingPointGame,
    alias="meeting-point",
    agents=Lazy("meeting_point.agents:AGENTS"),
    report=Lazy("meeting_point.report:build"),
    board=outcomes.BOARD,
    value=outcomes.VALUE,
    messages=outcomes.messages,
    human=HumanSeat(
        adapter=Lazy("meeting_point.human:adapter"), help=Lazy("meeting_point.human:help_line")
    ),
)

__all__ = ["INFO", "MeetingPointConfig", "MeetingPointGame"]
