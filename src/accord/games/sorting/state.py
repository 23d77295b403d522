"""The state of one sorting game between requests (MAS-Bench App. F.3, F.5).

`SortingGame` (engine.py) changes these attributes as phases and rounds are played; the
request builders (requests.py) read them. Declared here once, with what each holds; `reset`
and `_start_phase` set them.
"""

from __future__ import annotations

from accord.core.prompts import PromptSet
from accord.core.spec import Action
from accord.games.sorting.commands import Dispatcher, Outcome
from accord.games.sorting.config import SortingConfig
from accord.games.sorting.metrics import SeatTally
from accord.games.sorting.task import Task


class SortingState:
    """Every attribute of a game in play (seat-indexed lists have one entry per agent)."""

    config: SortingConfig
    _templates: PromptSet
    _dispatcher: Dispatcher
    """The backend and its command surface (`commands.py`)."""
    _task: Task | None
    _seed: int
    _done: bool
    _phase: int
    """1, or 2 in the rerun of a two-phase game."""
    _tallies: list[SeatTally]
    """Per-agent counts behind the metrics."""
    _phase_subs: list[list[list[int] | None]]
    """Every finished phase's submissions."""
    _prev: list[list[int] | None]
    """Each agent's first-phase submission (the rerun addendum), or None."""
    _subs: list[list[int] | None]
    """This phase's submissions so far."""
    _answers: dict[int, Action]
    """This round's replies, applied once every active agent has answered (STEPBENCH)."""
    _round: int
    _inbox: list[str]
    """Each agent's next observation."""
    _inbox_comm: list[int]
    """Estimated tokens of message/file replies in each inbox (communication, App. C)."""
    _last: list[list[Outcome]]
    _fresh: list[bool]
    """The agent's next request starts a fresh conversation."""
    _system: list[str]
    _context: list[int]
    """Token estimate of the conversation each agent's next call re-sends."""

    @property
    def task(self) -> Task:
        """The instance being played (after `reset`)."""
        if self._task is None:
            raise RuntimeError("call reset(seed) first")
        return self._task

    def _active(self) -> list[int]:
        return [i for i, s in enumerate(self._subs) if s is None]
