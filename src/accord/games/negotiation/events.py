"""The negotiation game's events (seed 004 §3, App. B), as typed trace events.

Declared on `NegotiationGame.event_types`; `accord.traces.events.as_game_events` reads a
trace's game events as these models and ``accord trace-schema --game negotiation`` describes
them. Every model keeps fields it does not name (older traces may carry more).
"""

from __future__ import annotations

from typing import Any, Literal

from accord.traces.events import GameEvent


class RoundStart(GameEvent):
    """A round begins: the scenario drawn, the resource names shown, the oracle's maximum."""

    type: Literal["round_start"] = "round_start"
    round: int
    scenario_id: str
    names: dict[str, str]
    oracle_max: int | float
    first_speaker: int


class Message(GameEvent):
    """One talk turn. ``fallback``: the seat's reply was the documented fallback."""

    type: Literal["message"] = "message"
    round: int
    seat: int
    turn: int
    speech: str
    thinking: str = ""
    delivered: bool = True
    fallback: bool = False


class Decision(GameEvent):
    """A seat's purchase decision. ``fallback`` rounds are left out of every metric (App. B)."""

    type: Literal["decision"] = "decision"
    round: int
    seat: int
    purchase: dict[str, Any]
    runs: dict[str, Any] | None = None
    early: bool = False
    fallback: bool = False


class DecisionRefused(GameEvent):
    """A decision sent during talk that the rules refused, under ``invalid_talk_decision:
    speech``: the turn was spent and the raw reply became the seat's message."""

    type: Literal["decision_refused"] = "decision_refused"
    round: int
    seat: int
    error: str


class DecisionAutoFilled(GameEvent):
    """A seat that never decided was given the zero purchase."""

    type: Literal["decision_auto_filled"] = "decision_auto_filled"
    round: int
    seat: int
    purchase: dict[str, Any]


class RoundResult(GameEvent):
    """The round's outcome: purchases, project runs, rewards and efficiency."""

    type: Literal["round_result"] = "round_result"
    round: int
    annulled: bool
    purchases: list[Any]
    runs: list[Any]
    rewards: list[int | float]
    joint_reward: int | float
    oracle_max: int | float
    optimal: bool
    efficiency: int | float


class Reflection(GameEvent):
    """A seat's reflection between rounds."""

    type: Literal["reflection"] = "reflection"
    seat: int
    text: str


class GameEnd(GameEvent):
    """The game's end: each seat's total reward."""

    type: Literal["game_end"] = "game_end"
    totals: list[int | float]


EVENT_TYPES: tuple[type[GameEvent], ...] = (
    RoundStart,
    Message,
    Decision,
    DecisionAutoFilled,
    DecisionRefused,
    RoundResult,
    Reflection,
    GameEnd,
)
"""Every event the negotiation game emits."""
