"""Options of the negotiation game (seed 004 §3, §4.1, §5.1, §5.7, App. D.1.5, D.7, F.1).

Every condition of the paper is an option here; defaults are the paper's main setting.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from accord.core.errors import ConfigError
from accord.games.negotiation.scenario import THEMES, Market

RATIOS = (0.5, 0.8, 1.0)
"""Compatibility levels M/C of the paper's scenario pool (seed 004 §3.1)."""

TRACE_GAME_IDS = ("negotiation-v1", "negotiation-v2", "negotiation-v3")
"""Game ids whose traces the analyses read: v3 is played; v1 and v2 traces (older runs) still
load and report."""


ADDED_OPTIONS: dict[str, Any] = {"invalid_talk_decision": "reask"}
"""Options added to `negotiation-v3` after its release, with the default that leaves them out
of a trace's config (the default game is unchanged)."""


class NegotiationConfig(BaseModel):
    """Options of `negotiation-v3`. Unknown keys are errors."""

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
    after_early_decision: Literal["talk_on", "decide_now"] = Field(
        "talk_on",
        description="When one agent decides during cheap talk: 'talk_on' (companion code, App. "
        "D.1) lets the partner keep its remaining messages, each prompt carrying the "
        "'already made its final decision' notice, and a decision it sends then is early too; "
        "'decide_now' (negotiation-v2) sends the partner straight to the decision prompt.",
    )
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
        description="'full': each system prompt holds the partner's complete projects, "
        "requirements and rewards per run (§5.7); 'joint': also how each party's reward is "
        "computed, and by default the joint-goal instruction (the N=12 variant of §5.7).",
    )
    joint_goal: bool | None = Field(
        None,
        description="Tell both agents their goal is the joint reward of both parties. Unset: "
        "on exactly under 'joint' transparency (as the companion code ran that cohort).",
    )
    runs: Literal["cap", "strict"] = Field(
        "cap",
        description="'cap' (companion code): stated runs the purchase cannot supply are cut to "
        "what it supplies and leftover resources fill further runs in project order; "
        "'strict': such a decision is a validation error the model must fix.",
    )
    rotating_system_prompt: Literal["current", "first"] = Field(
        "current",
        description="Rotating projects: 'current' rebuilds each seat's system prompt with the "
        "round's projects (own and, under transparency, the partner's); 'first' keeps round "
        "1's system prompt as the companion code does (the round notice still lists the new "
        "projects).",
    )
    json_reminder: Literal["auto", "always", "never"] = Field(
        "auto",
        description="The extra 'reply with only the JSON object' line in the system prompt "
        "(App. D.1.4): 'auto' adds it for seats whose model's provider is listed in "
        "`json_reminder_providers`.",
    )
    json_reminder_providers: tuple[str, ...] = Field(
        ("anthropic",),
        description="Providers (the part before '/' of a model id) that get the JSON reminder "
        "under json_reminder='auto'.",
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
    invalid_talk_decision: Literal["reask", "speech"] = Field(
        "reask",
        description="A decision sent during cheap talk that the rules refuse (e.g. over "
        "budget): 'reask' (Accord) asks again within the turn with the error, up to the "
        "retries; 'speech' (companion code) uses up the turn, delivers the reply's public "
        "part (speech and refused decision, never the scratchpad) as the seat's message and "
        "tells the seat at its next prompt why the decision was refused.",
    )
    market: Market = Field(default_factory=Market, description="Supply, costs, budget, types.")
    prompts: str | None = Field(
        None,
        description="A folder of prompt templates laid over the defaults, file by file "
        "(`accord prompts negotiation --dump DIR` writes the defaults to start from).",
    )

    @model_serializer(mode="wrap")
    def _omit_added_defaults(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Options added after v3 shipped stay out of a trace's config while at their default,
        # so traces of the default game are byte-identical to those written before them.
        data: dict[str, Any] = handler(self)
        for key, default in ADDED_OPTIONS.items():
            if data.get(key) == default:
                data.pop(key, None)
        return data

    @field_validator("prompts")
    @classmethod
    def _prompts_load(cls, value: str | None) -> str | None:
        """A bad override stops the run before it starts (`accord.core.prompts`)."""
        from accord.core.prompts import check_override

        return check_override("negotiation", value)

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
        if self.scenario is not None:
            level = _scenario_ratio(self.scenario, self.pool)
            if self.ratio is not None and self.ratio != level:
                raise ValueError(
                    f"scenario {self.scenario!r} is a ratio-{level} scenario but ratio is "
                    f"{self.ratio}; drop 'ratio' (the scenario sets it) or pick a ratio-"
                    f"{self.ratio} scenario"
                )
            object.__setattr__(self, "ratio", level)  # the label follows the scenario
        return self

    @property
    def goal_is_joint(self) -> bool:
        """Whether the joint-goal instruction is shown (see `joint_goal`)."""
        return self.transparency == "joint" if self.joint_goal is None else self.joint_goal


def _scenario_ratio(scenario_id: str, pool: str) -> float:
    """The M/C level of a pool scenario; a ValueError naming valid ids for an unknown one."""
    from accord.games.negotiation.pool import get_scenario, pool_ids

    try:
        level = get_scenario(scenario_id, pool).target_ratio
    except ConfigError:
        ids = pool_ids(pool)
        raise ValueError(
            f"unknown scenario {scenario_id!r}; the {pool!r} pool has {', '.join(ids)}"
        ) from None
    if level is None:
        raise ValueError(f"scenario {scenario_id!r} has no target ratio; give 'ratio' instead")
    return level
