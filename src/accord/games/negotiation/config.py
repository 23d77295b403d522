"""Options of the negotiation game (seed 004 §3, §4.1, §5.1, §5.7, App. D.1.5, D.7, F.1).

Every condition of the paper is an option here; defaults are the paper's main setting.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from accord.games.negotiation.scenario import THEMES, Market

RATIOS = (0.5, 0.8, 1.0)
"""Compatibility levels M/C of the paper's scenario pool (seed 004 §3.1)."""


class NegotiationConfig(BaseModel):
    """Options of `negotiation-v1`. Unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rounds: int = Field(4, ge=1, le=50, description="Rounds per game (paper: 4).")
    talk_turns: int = Field(
        5,
        ge=0,
        le=50,
        description="Cheap-talk messages per agent per round (paper: 5). 0 = as many as "
        "needed, until an agent decides (bounded by max_talk_messages).",
    )
    max_talk_messages: int = Field(
        40, ge=2, description="Safety bound on messages per round when talk_turns is 0."
    )
    cheap_talk: bool = Field(True, description="False = the no-talk baseline (App. D.7).")
    ratio: float | None = Field(
        None,
        description="Compatibility level M/C. With no `scenario`, a pool scenario of this ratio "
        "is drawn from the seed; with neither, the ratio is drawn too.",
    )
    scenario: str | None = Field(None, description="A pool scenario id such as '0.5/gen_012'.")
    pool: Literal["paper"] = Field("paper", description="Scenario pool to draw from.")
    generate: bool = Field(
        False, description="Draw scenarios from the simulated-annealing generator, not the pool."
    )
    partner: Literal["stable", "shifting"] = Field(
        "stable", description="'shifting': one seat's context resets every round (§4.1)."
    )
    shifting_seat: int = Field(1, ge=0, le=1, description="The seat that resets when shifting.")
    projects: Literal["fixed", "rotating"] = Field(
        "fixed", description="'rotating': new scenario (same ratio) every round (§4.1)."
    )
    transparency: Literal["none", "full", "joint"] = Field(
        "none",
        description="'full': both see both project lists (requirements); 'joint': rewards too "
        "(§5.7).",
    )
    intervention: Literal["none", "share_projects", "theory_of_mind"] = Field(
        "none", description="System-prompt interventions of App. D.1.5 / F.1."
    )
    thinking: bool = Field(
        True, description="Private scratchpad envelope (D.1.4); False = plain text (D.6)."
    )
    first_speaker: int = Field(0, ge=0, le=1, description="Seat that speaks first each round.")
    reflection: bool = Field(True, description="Ask for the post-game reflection (D.5).")
    theme: str = Field(
        "random", description="Resource names (Table 7); 'random' draws one from the seed."
    )
    theme_per: Literal["game", "round"] = Field(
        "game",
        description="Draw the theme once per game (D.8) or anew each round (names restated at "
        "the start of each round).",
    )
    market: Market = Field(default_factory=Market, description="Supply, costs, budget, types.")

    @field_validator("ratio")
    @classmethod
    def _known_ratio(cls, v: float | None) -> float | None:
        if v is not None and v not in RATIOS:
            raise ValueError(f"must be one of {list(RATIOS)} (the pool's compatibility levels)")
        return v

    @field_validator("theme")
    @classmethod
    def _known_theme(cls, v: str) -> str:
        if v != "random" and v not in THEMES:
            raise ValueError(f"must be 'random' or one of {sorted(THEMES)}")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> NegotiationConfig:
        if self.scenario is not None and self.projects == "rotating":
            raise ValueError(
                "'scenario' fixes one scenario; it cannot be used with rotating projects"
            )
        if self.scenario is not None and self.generate:
            raise ValueError("give either 'scenario' (a pool id) or 'generate: true', not both")
        return self
