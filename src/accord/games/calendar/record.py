"""What the calendar engine records: the input of every metric (CalBench App. A.6, §4.2).

`final_state` of a calendar trace holds ``rounds`` (`RoundRecord`), ``messages``
(`MessageRecord`) and ``moves`` (`MoveRecord`) as JSON lists, plus the final schedule. Costs
are internal (the scenario's own units); metrics map them to the 1/2/3 scale.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Channel = Literal["dm", "participant_groupchat", "all_groupchat"]


class MessageRecord(BaseModel):
    """One cheap-talk message (App. A.4 "Message routing")."""

    model_config = ConfigDict(extra="forbid")

    round: int = Field(description="1-based round (one per meeting).")
    turn: int = Field(description="0-based CHEAP_TALK sweep.")
    sender: int = Field(description="Sending agent.")
    channel: Channel = Field(description="dm, participant_groupchat or all_groupchat.")
    to: int | None = Field(None, description="Recipient of a dm.")
    recipients: list[int] = Field(description="Agents whose inbox received it.")
    meeting_id: int = Field(description="The meeting being scheduled this round.")
    content: str = Field(description="Text as delivered.")
    delivered: bool = Field(True, description="False when the sender's dm_cap was used up.")


class MoveRecord(BaseModel):
    """One item moved on one calendar."""

    model_config = ConfigDict(extra="forbid")

    round: int = Field(description="1-based round.")
    phase: Literal["VOLUNTARY", "DECISION"] = Field(description="Phase the batch came from.")
    agent: int = Field(description="Calendar owner.")
    kind: Literal["errand", "meeting"] = Field(description="What was moved.")
    item_id: int = Field(description="Errand id or meeting id.")
    from_slot: int = Field(description="Slot before the move.")
    to_slot: int = Field(description="Slot after the move.")
    cost: int = Field(description="Internal cost charged to `agent` for this move.")
    justification: str = Field("", description="The agent's stated reason.")


class RoundRecord(BaseModel):
    """One round: cheap talk, voluntary moves, decisions and the resolution."""

    model_config = ConfigDict(extra="forbid")

    round: int = Field(description="1-based round.")
    meeting_id: int = Field(description="Meeting scheduled this round.")
    participants: list[int] = Field(description="Its participants.")
    speaker_order: list[int] = Field(description="CHEAP_TALK order of the participants.")
    sweeps: int = Field(description="CHEAP_TALK sweeps played.")
    activated: list[int] = Field(description="Non-participants activated by messages.")
    success: bool = Field(
        description="Every participant wrote it to one slot and every "
        "earlier meeting stayed consistent."
    )
    slot: int | None = Field(description="Its slot when successful.")
    chosen: list[int | None] = Field(
        description="Slot each participant scheduled, in `participants` order (None: no "
        "valid batch)."
    )
    reason: str = Field("", description="Why the round failed; empty on success.")
    auto_filled: list[int] = Field(
        default_factory=list, description="Seats whose DECISION came from a fallback."
    )
    rejected_batches: int = Field(0, description="Batches rejected by the App. A.5 rules.")
    inconsistent: list[int] = Field(
        default_factory=list, description="Earlier meetings found inconsistent at resolution."
    )
    cost: list[int] = Field(description="Internal cost each agent paid this round (all seats).")
