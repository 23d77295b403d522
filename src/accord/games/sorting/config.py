"""Options of the sorting game (MAS-Bench §3.1-§3.3, App. F.1, F.5, G.3).

A run is ``(N, K, backend, mode)`` plus the two RUNBENCH knobs of App. F.5: the behaviour list
(``short`` or ``camoc``) and ``two_phase`` (the single-commit verification cycle). The four
conditions of Table 1 name the four combinations:

==============  =========  =========
condition       behaviour  two_phase
==============  =========  =========
``base``        short      False
``abl-message`` short      True
``abl-submit``  camoc      False
``camoc``       camoc      True
==============  =========  =========

``behaviour`` / ``two_phase`` may be given instead of (or agreeing with) ``condition``.
Defaults are small (N = 3, K = 3) so a game is quick; the paper's grid is N in {1, 3, 5, 10,
20} and K in {1, 5, 10} with R_max = 100 per phase.
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

from accord.games.sorting.commands import BackendKind
from accord.games.sorting.metrics import PhaseScope
from accord.games.sorting.task import Mode, TaskKind

Condition = Literal["base", "abl-message", "abl-submit", "camoc"]
Behaviour = Literal["short", "camoc"]

CONDITIONS: dict[Condition, tuple[Behaviour, bool]] = {
    "base": ("short", False),
    "abl-message": ("short", True),
    "abl-submit": ("camoc", False),
    "camoc": ("camoc", True),
}
"""App. F.5 table: condition -> (behaviour list, two_phase)."""


ADDED_OPTIONS: dict[str, Any] = {"multi_command_block": "refuse", "cr_tokens": "visible"}
"""Options added to `sorting-v3` after its release, with the default that leaves them out of
a trace's config (the default game is unchanged)."""


class SortingConfig(BaseModel):
    """Options of `sorting-v3`. Unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    n: int = Field(3, ge=1, le=100, description="Number of agents N (paper: 1, 3, 5, 10, 20).")
    k: int = Field(3, ge=1, le=100, description="Integers per agent K (paper: 1, 5, 10).")
    mode: Mode = Field(
        "random", description="Input family: asc, near_asc, random, near_desc or desc (§3.3)."
    )
    task: TaskKind = Field(
        "sort", description="sort (the benchmark), max or prefix_sum (App. G.3 extensions)."
    )
    backend: BackendKind = Field(
        "broadcast", description="Communication backend: broadcast, p2p or kv (§3.2, App. E)."
    )
    condition: Condition = Field(
        "base", description="base, abl-message, abl-submit or camoc (App. F.5 table)."
    )
    behaviour: Behaviour | None = Field(
        None, description="Behaviour list; overrides the condition's (short or camoc)."
    )
    two_phase: bool | None = Field(
        None, description="Run the verification phase; overrides the condition's."
    )
    max_rounds: int = Field(100, ge=1, le=10_000, description="Round budget R_max per phase.")
    metrics_phase: PhaseScope = Field(
        "final",
        description="Phase the headline R, TE and CR describe when two phases run: final "
        "(the scored phase, default), phase1 or combined; all three are always reported.",
    )
    multi_command_block: Literal["refuse", "whole"] = Field(
        "refuse",
        description="A block whose later line is itself a command: 'refuse' (Accord) runs "
        "nothing and asks for one block per command; 'whole' (the paper's Algorithm 2) "
        "dispatches the block as one command, so a message or file swallows the later lines "
        "as text and a verb without arguments fails on them.",
    )
    cr_tokens: Literal["visible", "total"] = Field(
        "visible",
        description="CR's denominator (§3.4) for model-reported tokens: 'visible' (Accord) "
        "input plus visible output; 'total' (eq. 7 read with eq. 6's T_total) also counts "
        "hidden reasoning. Both are reported when a model reasons.",
    )
    prompts: str | None = Field(
        None,
        description="A folder of prompt templates laid over the defaults, file by file "
        "(`accord prompts sorting --dump DIR` writes the defaults to start from).",
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

        return check_override("sorting", value)

    @model_validator(mode="after")
    def _consistent(self) -> SortingConfig:
        if "condition" in self.model_fields_set:
            beh, two = CONDITIONS[self.condition]
            if (self.behaviour not in (None, beh)) or (self.two_phase not in (None, two)):
                raise ValueError(
                    f"condition {self.condition!r} means behaviour={beh!r}, two_phase={two}; "
                    "give either the condition or behaviour/two_phase, not conflicting values"
                )
        return self

    @property
    def effective_behaviour(self) -> Behaviour:
        """The behaviour list actually used."""
        return self.behaviour or CONDITIONS[self.condition][0]

    @property
    def effective_two_phase(self) -> bool:
        """Whether the verification phase runs."""
        return CONDITIONS[self.condition][1] if self.two_phase is None else self.two_phase

    @property
    def effective_condition(self) -> Condition:
        """The Table 1 condition of the effective (behaviour, two_phase) pair."""
        pair = (self.effective_behaviour, self.effective_two_phase)
        return next(c for c, p in CONDITIONS.items() if p == pair)
