"""`sorting-v3`: distributed sorting over a communication backend (MAS-Bench).

See `engine.py` for the rules and state machine and `docs/sorting.md` for every modelling
choice and metric. Everything Accord knows about the game is declared once, in `INFO`, which
Accord's ``pyproject.toml`` names in the ``accord.games`` entry point group.
"""

from accord.core.gameinfo import AgentCheckGame, GameInfo, GameType, HumanSeat, Judge, Lazy
from accord.games.sorting import outcomes
from accord.games.sorting.blame import BLAME
from accord.games.sorting.config import SortingConfig
from accord.games.sorting.engine import SortingGame

INFO = GameInfo(
    game=SortingGame,
    alias="sorting",
    kind=GameType(seats=(1, 100), moves="simultaneous", utility="identical"),
    opponent="share-all",
    agents=Lazy("accord.games.sorting.protocols:REFERENCE_AGENTS"),
    report=Lazy("accord.games.sorting.report:build"),
    # sorting-v2 traces (older runs) still get the sorting report, with their CR definition.
    report_ids=("sorting-v2",),
    score_ids=("sorting-v2",),
    board=outcomes.BOARD,
    value=outcomes.VALUE,
    messages=outcomes.messages,
    score=outcomes.score,
    judges=(
        Judge(
            "sorting",
            select=outcomes.judged,
            run=Lazy("accord.games.sorting.judge:command"),
            what="failed sorting games",
        ),
    ),
    human=HumanSeat(
        adapter=Lazy("accord.games.sorting.human:human_adapter"),
        help=Lazy("accord.games.sorting.human:human_help"),
        controls=Lazy("accord.games.sorting.controls:CONTROLS"),
    ),
    golden=Lazy("accord.games.sorting.cases:GOLDEN"),
    prompt_cases=Lazy("accord.games.sorting.cases:PROMPTS"),
    kits={"mas-bench": Lazy("accord.games.sorting.paper:MasBenchKit")},
    agent_check=AgentCheckGame(others="share-all", options={"max_rounds": 3}),
    blame=BLAME,
)

__all__ = ["INFO", "SortingConfig", "SortingGame"]
