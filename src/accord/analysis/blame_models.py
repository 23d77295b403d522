"""What `accord blame` writes (``RUN/blame/blame.json``): per game its forks, blame step and
message values, and across games their distribution with CIs (`accord.analysis.blame`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

BLAME_VERSION = 1
"""Schema version of `BlameReport`."""


class Fork(BaseModel):
    """One fork of a game, played to the end."""

    model_config = ConfigDict(extra="forbid")

    decision: int = Field(description="Index of the decision point the fork starts at.")
    seat: int = Field(description="The seat that decided there.")
    round: int = Field(description="The request's round.")
    turn: int = Field(description="The request's turn within the round.")
    kind: str = Field(description="'seat' (counterfactual seat from here) or 'withhold'.")
    status: str = Field(description="The fork's status: complete or failed.")
    recovered: bool = Field(description="The fork reached the game's recovered outcome.")
    outcome: float | None = Field(description="The fork's outcome (None when it failed).")
    calls_asked: int = Field(0, description="Model calls the fork paid for (not from the trace).")


class MessageValue(BaseModel):
    """The value of one message: the outcome with it minus the outcome without it."""

    model_config = ConfigDict(extra="forbid")

    decision: int = Field(description="Index of the decision that sent the message.")
    seat: int = Field(description="The seat that sent it.")
    round: int = Field(description="Its round.")
    turn: int = Field(description="Its turn within the round.")
    value: float = Field(description="Outcome of the game minus outcome of the fork without it.")


class GameBlame(BaseModel):
    """The blame of one game."""

    model_config = ConfigDict(extra="forbid")

    trace_id: str = Field(description="The game's trace id.")
    game_id: str = Field(description="Versioned game id.")
    players: str = Field(description="Who sat where ('A vs B').")
    condition: str = Field(description="The run's batch or pairing label of the game.")
    outcome: float = Field(description="The game's own outcome (GameInfo.blame.outcome).")
    recovered: bool = Field(description="Whether the game itself reached the recovered outcome.")
    decisions: int = Field(description="Decision points found by re-playing the game.")
    blame_step: int | None = Field(
        description="The last decision from which a seat fork still recovers the game (the "
        "decision that lost it); None when no fork recovers it."
    )
    blame_seat: int | None = Field(None, description="The seat deciding at the blame step.")
    blame_round: int | None = Field(None, description="The blame step's round.")
    blame_turn: int | None = Field(None, description="The blame step's turn.")
    blame_event: int | None = Field(
        None, description="Index of the trace event where the blame step's step begins."
    )
    messages: list[MessageValue] = Field(
        default_factory=list, description="Each message's value, in game order."
    )
    forks: list[Fork] = Field(default_factory=list, description="Every fork played.")

    @property
    def frontier(self) -> float | None:
        """The blame step as a fraction of the game's decisions (1 = the last one)."""
        if self.blame_step is None or not self.decisions:
            return None
        return (self.blame_step + 1) / self.decisions


class GroupSummary(BaseModel):
    """Blame across the games of one model and condition."""

    model_config = ConfigDict(extra="forbid")

    game_id: str = Field(description="Versioned game id.")
    players: str = Field(description="Who sat where.")
    condition: str = Field(description="Batch or pairing label.")
    games: int = Field(description="Games blamed.")
    unrecoverable: int = Field(description="Games no seat fork recovers.")
    frontier: list[float | None] = Field(
        description="Mean blame step as a fraction of the decisions, with its 95% bootstrap "
        "CI: [mean, low, high] (None without a recoverable game)."
    )
    message_value: list[float | None] = Field(
        description="Mean value of a message, [mean, low, high] over every message."
    )
    decisive_share: list[float | None] = Field(
        description="Share of messages whose value is not 0, [mean, low, high]."
    )


class BlameReport(BaseModel):
    """`accord blame` of one run."""

    model_config = ConfigDict(extra="forbid")

    version: int = Field(BLAME_VERSION, description="Schema version of this report.")
    run: str = Field(description="The run directory's name.")
    counterfactual: str = Field(description="Who took the seat at seat forks ('' = declared).")
    cost_estimate: float = Field(description="Estimated model cost of the sweep, in USD.")
    games: list[GameBlame] = Field(default_factory=list, description="Per game blamed.")
    groups: list[GroupSummary] = Field(
        default_factory=list, description="Across games, by game, players and condition."
    )


def frontier_mark(run: Path, trace_id: str) -> dict[str, Any] | None:
    """What the replay page marks on a game's scrubber from ``RUN/blame/blame.json``:
    ``{"event", "seat", "round", "turn"}`` of its blame step, or None (not blamed, or no
    fork recovers it, or no readable report)."""
    path = run / "blame" / "blame.json"
    try:
        if not path.is_file() or path.stat().st_size > 64 * 1024 * 1024:
            return None
        report = BlameReport.model_validate_json(path.read_bytes())
    except (OSError, ValueError):
        return None
    game = next((g for g in report.games if g.trace_id == trace_id), None)
    if game is None or game.blame_event is None:
        return None
    return {
        "event": game.blame_event,
        "seat": game.blame_seat,
        "round": game.blame_round,
        "turn": game.blame_turn,
    }
