"""The state of one negotiation game between requests, and the questions asked of it.

`NegotiationGame` (engine.py) changes these attributes as the rounds are played; the request
builders (requests.py) read them. Declared here once, with what each holds; `reset` and
`_start_round` set them.
"""

from __future__ import annotations

from typing import Any

from accord.core.prompts import PromptSet
from accord.core.spec import ActionSpec
from accord.games.negotiation.config import NegotiationConfig
from accord.games.negotiation.record import RoundRecord, Utterance
from accord.games.negotiation.scenario import Project, Scenario


class NegotiationState:
    """Every attribute of a game in play (seat-indexed lists have one entry per seat)."""

    config: NegotiationConfig
    _templates: PromptSet
    _models: list[str | None]
    """Each seat's model id (for the provider-keyed JSON reminder, App. D.1.4)."""
    _seed: int
    _phase: str
    """``talk``, ``decide``, ``reflect`` or ``done``."""
    _ratio: float
    """The supply/demand ratio of the game (seed 004 §3)."""
    _round_scenarios: list[Scenario]
    _round_names: list[dict[str, str]]
    _records: list[RoundRecord]
    """Every resolved round."""
    _totals: list[int]
    _reflections: list[str | None]
    _inbox: list[list[str]]
    """Notices put before a seat's next observation (outcomes, renamed resources, projects)."""
    _system: list[str]
    _needs_reset: list[bool]
    """The seat's next request starts a fresh context (first request, shifting seat)."""
    _round: int
    _names: dict[str, str]
    """This round's resource names."""
    _oracle_max: int
    _turn: int
    """Messages sent this round."""
    _talk_count: list[int]
    _opened: list[bool]
    """The seat has had its round-opening talk prompt."""
    _undelivered: list[str | None]
    """The partner's last speech, not yet shown to the seat."""
    _decisions: list[dict[str, Any] | None]
    _early: list[bool]
    _fallback: list[bool]
    _messages: list[Utterance]
    _speaker: int
    _specs: dict[tuple[int, int, bool], ActionSpec]
    """The action specs built this round, by round, seat and whether a decision is due."""

    def _projects(self, seat: int, round_no: int | None = None) -> tuple[Project, ...]:
        r = self._round if round_no is None else round_no
        return self._round_scenarios[r - 1].agents[seat]

    def _standalone(self, seat: int) -> bool:
        """The seat whose context resets every round (shifting partner, App. D.8)."""
        return self.config.partner == "shifting" and seat == self.config.shifting_seat

    def _first_prompt_kept(self) -> bool:
        """Rotating projects with round 1's system prompt kept for the whole game."""
        cfg = self.config
        return cfg.projects == "rotating" and cfg.rotating_system_prompt == "first"

    def _partner_decided(self, seat: int) -> bool:
        """The partner locked in its decision during this round's cheap talk (App. D.1)."""
        return self._phase != "reflect" and self._early[1 - seat]

    def _clear_inbox(self, seat: int) -> None:
        self._inbox[seat] = []
        self._needs_reset[seat] = False
