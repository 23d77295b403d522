"""`negotiation-v3`: iterated two-agent resource negotiation with private projects (seed 004).

See `engine.py` for the rules and state machine, `docs/negotiation.md` for every modelling
choice and metric. Everything Accord knows about the game is declared once, in `INFO`, which
Accord's ``pyproject.toml`` names in the ``accord.games`` entry point group.
"""

from accord.core.gameinfo import AgentCheckGame, GameInfo, GameType, HumanSeat, Judge, Lazy
from accord.games.negotiation import outcomes
from accord.games.negotiation.blame import BLAME
from accord.games.negotiation.config import TRACE_GAME_IDS, NegotiationConfig
from accord.games.negotiation.engine import NegotiationGame

INFO = GameInfo(
    game=NegotiationGame,
    alias="negotiation",
    kind=GameType(seats=(2, 2), moves="mixed"),
    opponent="cooperative",
    agents=Lazy("accord.games.negotiation.protocols:REFERENCE_AGENTS"),
    report=Lazy("accord.games.negotiation.report:build"),
    # negotiation-v1 and -v2 traces (older runs) still get the negotiation report.
    report_ids=TRACE_GAME_IDS,
    board=outcomes.BOARD,
    value=outcomes.VALUE,
    messages=outcomes.messages,
    score=outcomes.score,
    judges=(
        Judge(
            "negotiation",
            select=outcomes.judged,
            run=Lazy("accord.games.negotiation.judge.command:run"),
            what="complete negotiation traces",
        ),
    ),
    human=HumanSeat(
        adapter=Lazy("accord.games.negotiation.human:human_adapter"),
        help=Lazy("accord.games.negotiation.human:human_help"),
        controls=Lazy("accord.games.negotiation.controls:CONTROLS"),
    ),
    golden=Lazy("accord.games.negotiation.cases:GOLDEN"),
    prompt_cases=Lazy("accord.games.negotiation.cases:PROMPTS"),
    kits={"grounding": Lazy("accord.games.negotiation.paper:GroundingKit")},
    scenario=Lazy("accord.games.negotiation.scenario_tool:scenarios"),
    agent_check=AgentCheckGame(others="greedy"),
    blame=BLAME,
)

__all__ = ["INFO", "NegotiationConfig", "NegotiationGame"]
