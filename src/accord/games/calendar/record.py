"""What the calendar engine records: the input of every metric (CalBench App. A.6, §4.2).

`final_state` of a calendar trace holds ``rounds`` (`RoundRecord`), ``messages``
(`MessageRecord`) and ``moves`` (`MoveRecord`) as JSON lists, plus the final schedule. Costs
are internal (the scenario's own units); metrics map them to the 1/2/3 scale.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from accord.games.calendar.rules import Batch, Calendar, Move, render_fields

Channel = Literal["dm", "participant_groupchat", "all_groupchat"]
BatchPhase = Literal["VOLUNTARY", "DECISION"]


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
    phase: BatchPhase = Field(description="Phase the batch came from.")
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


def move_records(
    round_no: int, phase: BatchPhase, agent: int, before: Calendar, batch: Batch
) -> list[MoveRecord]:
    """One record per reschedule of a batch that `validate_batch` accepted on `before`."""
    out: list[MoveRecord] = []
    for move in batch:
        if not isinstance(move, Move):
            continue
        # A validated batch has integer slots and an item at every from_slot.
        assert isinstance(move.from_slot, int) and isinstance(move.to_slot, int)
        item = before[move.from_slot]
        assert item is not None
        out.append(
            MoveRecord(
                round=round_no,
                phase=phase,
                agent=agent,
                kind=item.kind,
                item_id=item.id,
                from_slot=move.from_slot,
                to_slot=move.to_slot,
                cost=item.cost,
                justification=move.justification,
            )
        )
    return out


def summarize_state(
    task_id: str,
    schedule: Mapping[int, int],
    rounds: Sequence[RoundRecord],
    messages: Sequence[MessageRecord],
    moves: Sequence[MoveRecord],
    calendars: Sequence[Calendar],
) -> dict[str, Any]:
    """`final_state` of a calendar trace (App. A.6): records, final calendars and totals."""
    return {
        "task_id": task_id,
        "schedule": [{"meeting_id": m, "slot": s} for m, s in sorted(schedule.items())],
        "rounds": [r.model_dump() for r in rounds],
        "messages": [m.model_dump() for m in messages],
        "moves": [m.model_dump() for m in moves],
        "calendars": [[render_fields(i) for i in cal] for cal in calendars],
        "total_cost": sum(m.cost for m in moves),
        "rounds_succeeded": sum(r.success for r in rounds),
        "rounds_failed": sum(not r.success for r in rounds),
        "messages_sent": sum(m.delivered for m in messages),
        "consistency_violations": sum(len(r.inconsistent) for r in rounds),
    }
