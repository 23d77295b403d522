"""What the engine records about each round: the input of every negotiation metric.

`final_state["rounds"]` in a negotiation trace is a list of `RoundRecord.model_dump()`.
Quantities use abstract resource ids (``r1..r3``); `names` maps them to what agents saw.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Utterance(BaseModel):
    """One cheap-talk message."""

    model_config = ConfigDict(extra="forbid")

    seat: int = Field(description="Speaker seat (0 or 1).")
    turn: int = Field(description="1-based turn index inside the round, both speakers counted.")
    speech: str = Field(description="Public text (what the partner read when `delivered`).")
    thinking: str = Field("", description="Private scratchpad (never shown to the partner).")
    decided: bool = Field(False, description="True when this message came with a final decision.")
    delivered: bool = Field(
        True,
        description="The partner read it. False for speech sent with a forced decision and for "
        "messages sent after the partner had already decided (it gets no further prompt).",
    )


class RoundRecord(BaseModel):
    """One resolved round (seed 004 §3; inputs of §4.2 and App. E)."""

    model_config = ConfigDict(extra="forbid")

    round: int = Field(description="1-based round index.")
    scenario_id: str = Field(description="Scenario played this round (rotating games change it).")
    names: dict[str, str] = Field(description="Themed name of each resource id this round.")
    first_speaker: int = Field(description="Seat that spoke first this round.")
    purchases: list[dict[str, int]] = Field(
        description="Each seat's purchase (resource id -> units)."
    )
    runs: list[dict[str, int]] = Field(description="Each seat's project runs.")
    rewards: list[int] = Field(description="Each seat's reward (0 for both when annulled).")
    annulled: bool = Field(description="Total demand exceeded supply for some resource.")
    joint_reward: int = Field(description="Sum of rewards.")
    oracle_max: int = Field(description="The scenario's joint maximum M.")
    optimal: bool = Field(description="joint_reward == M (and not annulled).")
    efficiency: float = Field(description="joint_reward / M.")
    early_decision: list[bool] = Field(description="Seat decided during cheap talk.")
    fallback: list[bool] = Field(
        description="Seat's decision came from the heuristic fallback (round left out of analyses)."
    )
    stated_runs: list[bool] = Field(
        description="Seat named its project runs (False: the engine assigned them in order)."
    )
    messages: list[Utterance] = Field(default_factory=list, description="Cheap talk, in order.")
