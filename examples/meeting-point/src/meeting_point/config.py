"""Options of meeting-point-v1. Each has a default, so `accord run meeting-point` needs none."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

PLACES = (
    "the bakery", "the library", "the station", "the park", "the museum", "the harbour",
    "the market", "the cinema", "the school", "the bridge", "the cafe", "the gallery",
)  # fmt: skip
"""Place names, in order; a game uses the first `places` of them."""


class MeetingPointConfig(BaseModel):
    """Options of `meeting-point-v1`. Unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    places: int = Field(6, ge=2, le=len(PLACES), description="Places in town.")
    max_cost: int = Field(9, ge=1, le=99, description="Highest private cost of a place.")
    talk_turns: int = Field(
        2, ge=0, le=6, description="Messages each seat may send before deciding (A first)."
    )
    message_chars: int = Field(300, ge=20, le=2000, description="Longest message, in characters.")
    prompts: str | None = Field(
        None,
        description="A folder of prompt templates laid over the defaults, file by file "
        "(`accord prompts meeting-point --dump DIR` writes the defaults to start from).",
    )

    @field_validator("prompts")
    @classmethod
    def _prompts_load(cls, value: str | None) -> str | None:
        """A bad override stops the run before any game starts."""
        if value is not None:
            from meeting_point.prompts import templates

            templates(value)
        return value
