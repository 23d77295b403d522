"""One declaration per game: `GameInfo` (DESIGN principle 6).

A game package declares everything Accord needs to know about it once, in its ``__init__``::

    INFO = GameInfo(
        game=MeetingGame,
        alias="meeting",
        agents=Lazy("meeting_point.agents:AGENTS"),
        report=Lazy("meeting_point.report:build"),
        board=Board("seats", (Dimension("met", "met", True, 0.2, seat_score=met),)),
        human=HumanSeat(Lazy("meeting_point.human:adapter"), Lazy("meeting_point.human:help")),
    )

and names that object in one entry point (group ``accord.games``: ``meeting =
"meeting_point:INFO"``). Every consumer (registry, reference agents, reports, leaderboard,
value of communication, ``accord query``, PettingZoo, judges, human seats, the browser's play
controls) looks the game up here (`info_for`, `all_infos`) instead of keeping a table of its
own, so a game from another package gets every feature without a change to Accord, and no
module outside ``accord.games`` names a game.

Parts that import heavy code (a report builder, a judge, a human adapter) are given as `Lazy`
references, resolved on first use, so importing a game package stays cheap.

A bare `Game` subclass in the entry point group is still accepted (the older way): it gets a
minimal `GameInfo` (`GameInfo.of`), and the older ``accord.agents`` / ``accord.reports`` groups
still supply its reference agents and report.
"""

from __future__ import annotations

from accord.core import registry
from accord.core.blame import Blame
from accord.core.declaration import (
    AgentCheckGame,
    Board,
    Dimension,
    GameInfo,
    GameScore,
    GameType,
    HumanAdapter,
    HumanHelp,
    HumanSeat,
    Judge,
    JudgeResult,
    JudgeRun,
    Lazy,
    MessageExtractor,
    MessageRow,
    Outcome,
    PromptCases,
    ScenarioOutput,
    ScenarioQuery,
    ScenarioTool,
    ScoreFn,
    SeatScore,
    SuiteTool,
    TalkValue,
    TraceValue,
    metric,
    players,
    resolve_ref,
    same_task,
    same_task_except,
    seat_column,
    seat_field,
)

__all__ = [
    "AgentCheckGame",
    "Blame",
    "Board",
    "Dimension",
    "GameInfo",
    "GameScore",
    "GameType",
    "HumanAdapter",
    "HumanHelp",
    "HumanSeat",
    "Judge",
    "JudgeResult",
    "JudgeRun",
    "Lazy",
    "MessageExtractor",
    "MessageRow",
    "Outcome",
    "PromptCases",
    "ScenarioOutput",
    "ScenarioQuery",
    "ScenarioTool",
    "ScoreFn",
    "SeatScore",
    "SuiteTool",
    "TalkValue",
    "TraceValue",
    "all_infos",
    "info_for",
    "info_for_trace",
    "info_or_none",
    "metric",
    "players",
    "resolve_ref",
    "same_task",
    "same_task_except",
    "seat_column",
    "seat_field",
]


# -- lookup ------------------------------------------------------------------------------------


def info_for(name: str) -> GameInfo:
    """The declaration of a game id or alias (an older id its report or score names included).

    Raises:
        UnknownGameError: no installed game has that name (the message suggests the closest).
    """
    found = info_for_trace(name)
    if found is not None:
        return found
    return registry.info_or_none(registry.resolve(name))  # type: ignore[return-value]


def info_or_none(name: str) -> GameInfo | None:
    """`info_for`, but None for an unknown name (traces of games not installed here)."""
    from accord.core.errors import UnknownGameError

    try:
        return info_for(name)
    except UnknownGameError:
        return None


def all_infos() -> list[GameInfo]:
    """Every installed game's declaration, in game-id order."""
    return [i for i in (registry.info_or_none(g) for g in registry.game_ids()) if i is not None]


def info_for_trace(game_id: str, game: str = "") -> GameInfo | None:
    """The declaration a trace belongs to: by its game id (older ids a report still reads
    included), else by its short game name; None for a game not installed here."""
    found = registry.info_or_none(game_id)
    if found is not None:
        return found
    for info in all_infos():
        if game_id in info.report_ids or game_id in info.score_ids:
            return info
    return registry.info_or_none(game) if game else None
