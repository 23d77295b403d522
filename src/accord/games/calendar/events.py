"""The calendar game's events (CalBench App. A.6 logs), as typed trace events.

Declared on `CalendarGame.event_types`; `accord.traces.events.as_game_events` reads a trace's
game events as these models and ``accord trace-schema --game calendar`` describes them. Every
model keeps fields it does not name. ``fallback`` on ``turn_end`` / ``decide_end`` and on
``reflection`` marks a decision that was the request's documented fallback.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from accord.traces.events import GameEvent


class GameStart(GameEvent):
    """The task: its size, costs, channels and the oracle's and greedy baseline's costs."""

    type: Literal["game_start"] = "game_start"
    seed: int
    task_id: str
    num_agents: int
    num_slots: int
    num_meetings: int


class AgentRegistered(GameEvent):
    """An agent's system prompt and starting calendar."""

    type: Literal["agent_registered"] = "agent_registered"
    agent: int
    system_prompt: str
    calendar: str


class RoundStart(GameEvent):
    """A meeting's round begins."""

    type: Literal["round_start"] = "round_start"
    round: int
    meeting: dict[str, Any]
    speaker_order: list[int] = Field(default_factory=list)


class _Request(GameEvent):
    round: int
    phase: str
    agent: int
    prompt: str


class TurnStart(_Request):
    """A talk turn is offered to an agent (CHEAP_TALK)."""

    type: Literal["turn_start"] = "turn_start"


class DecideStart(_Request):
    """A decision request is sent (VOLUNTARY or DECISION phase)."""

    type: Literal["decide_start"] = "decide_start"


class _Answer(GameEvent):
    round: int
    phase: str
    turn: int
    agent: int
    actions: list[Any]
    thinking: str = ""
    fallback: bool = False


class TurnEnd(_Answer):
    """An agent's talk turn: its tool calls and whether it was the fallback."""

    type: Literal["turn_end"] = "turn_end"


class DecideEnd(_Answer):
    """An agent's decision: its tool calls and whether it was the fallback."""

    type: Literal["decide_end"] = "decide_end"


class DmSent(GameEvent):
    """A message delivered on a channel."""

    type: Literal["dm_sent"] = "dm_sent"
    round: int
    sender: int
    channel: str
    content: str


class MessageDropped(GameEvent):
    """A message the rules did not deliver, and why."""

    type: Literal["message_dropped"] = "message_dropped"
    round: int
    agent: int
    reason: str


class BatchStaged(GameEvent):
    """A DECISION batch held until every participant decided."""

    type: Literal["batch_staged"] = "batch_staged"
    round: int
    agent: int
    actions: list[Any]


class BatchApplied(GameEvent):
    """A batch applied to the agent's calendar."""

    type: Literal["batch_applied"] = "batch_applied"
    round: int
    agent: int
    actions: list[Any]


class BatchRejected(GameEvent):
    """A batch that broke a rule (App. A.5); the agent is asked again."""

    type: Literal["batch_rejected"] = "batch_rejected"
    round: int
    agent: int
    attempt: int
    conflict: str


class BatchDiscarded(GameEvent):
    """A batch still invalid after every attempt."""

    type: Literal["batch_discarded"] = "batch_discarded"
    round: int
    agent: int
    attempts: int


class DecisionAutoFilled(GameEvent):
    """A participant that never decided was given the default batch."""

    type: Literal["decision_auto_filled"] = "decision_auto_filled"
    round: int
    agent: int
    actions: list[Any]


class ConsistencyViolation(GameEvent):
    """Participants hold a meeting in different slots."""

    type: Literal["consistency_violation"] = "consistency_violation"
    round: int
    meeting_id: int


class Resolution(GameEvent):
    """A meeting's outcome: scheduled in a slot, or failed and why."""

    type: Literal["resolution"] = "resolution"
    round: int
    meeting_id: int
    success: bool
    slot: int | None = None


class ReflectionStart(GameEvent):
    """A privacy reflection request (CalBench App. F.3)."""

    type: Literal["reflection_start"] = "reflection_start"
    round: int
    agent: int
    prompt: str


class Reflection(GameEvent):
    """An answered reflection: the belief deltas, or an abstention."""

    type: Literal["reflection"] = "reflection"
    round: int
    observer: int
    deltas: dict[str, Any]
    abstained: bool
    fallback: bool = False


class GameEnd(GameEvent):
    """The game's end: meetings scheduled and the total cost."""

    type: Literal["game_end"] = "game_end"
    scheduled: int
    total_cost: int | float


EVENT_TYPES: tuple[type[GameEvent], ...] = (
    GameStart,
    AgentRegistered,
    RoundStart,
    TurnStart,
    DecideStart,
    TurnEnd,
    DecideEnd,
    DmSent,
    MessageDropped,
    BatchStaged,
    BatchApplied,
    BatchRejected,
    BatchDiscarded,
    DecisionAutoFilled,
    ConsistencyViolation,
    Resolution,
    ReflectionStart,
    Reflection,
    GameEnd,
)
"""Every event the calendar game emits."""
