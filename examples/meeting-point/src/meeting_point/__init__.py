"""Meeting point (`meeting-point-v1`): two people agree where to meet, each with private costs.

Each seat privately knows how costly each place in town is for it to reach. They may talk for a
few turns, then both name a place at the same time. If they name the same place they meet, and
the team pays both costs of it; otherwise they miss each other. The oracle is the place with
the lowest summed cost, found exactly by trying every place. See docs/meeting-point.md.

This is Accord's example of a game from another package: it is found through the entry points
in its pyproject.toml, exactly like Accord's own games.
"""

from meeting_point.config import MeetingPointConfig
from meeting_point.game import MeetingPointGame

__all__ = ["MeetingPointConfig", "MeetingPointGame"]
