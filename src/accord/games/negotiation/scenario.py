"""Negotiation scenarios: the market, private projects, and themed resource names.

Seed 004 §3 and App. C. Resources are abstract ids ``r1, r2, r3`` everywhere inside Accord;
agents see themed names (Table 7) chosen per game from the seed.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

RESOURCES: tuple[str, ...] = ("r1", "r2", "r3")
"""Abstract resource ids, ordered by unit cost (cheap to dear)."""

THEMES: dict[str, tuple[str, str, str]] = {
    # Seed 004 App. C, Table 7: names for r1 (cost 1.0), r2 (cost 1.5), r3 (cost 3.0).
    "medieval": ("wood", "stone", "gold"),
    "space": ("titanium", "crystal", "plasma"),
    "undersea": ("coral", "pearl", "trident"),
    "steampunk": ("copper", "brass", "aether"),
    "jungle": ("bamboo", "vine", "amber"),
    "desert": ("sandstone", "glass", "ruby"),
    "arctic": ("ice", "fur", "diamond"),
    "volcanic": ("obsidian", "basalt", "magma"),
    "cyberpunk": ("silicon", "fiber", "quantum"),
    "fairy_tale": ("pixie_dust", "moonstone", "starlight"),
}


class Market(BaseModel):
    """The shared pool and each agent's purchasing limits (seed 004 §3, App. D.1.1).

    Defaults are the paper's: supply 10/10/6, unit costs 1/1.5/3, budget 18 per agent per
    round, at most 2 resource types per purchase.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    supply: dict[str, int] = Field(
        default_factory=lambda: {"r1": 10, "r2": 10, "r3": 6},
        description="Units of each resource available per round to both agents together.",
    )
    costs: dict[str, float] = Field(
        default_factory=lambda: {"r1": 1.0, "r2": 1.5, "r3": 3.0},
        description="Unit cost of each resource.",
    )
    budget: float = Field(18.0, gt=0, description="Each agent's budget per round.")
    max_types: int = Field(2, ge=1, description="Most distinct resource types in one purchase.")

    @field_validator("supply", "costs")
    @classmethod
    def _all_resources(cls, v: dict[str, float]) -> dict[str, float]:
        if set(v) != set(RESOURCES):
            raise ValueError(f"must give exactly the resources {list(RESOURCES)}, got {sorted(v)}")
        return v

    @property
    def resources(self) -> tuple[str, ...]:
        """Resource ids in canonical order."""
        return RESOURCES


class Project(BaseModel):
    """A private project: resources needed per run and reward per run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(description="Shown to agents as is, e.g. 'project_a'.")
    requirements: dict[str, int] = Field(description="Units of each resource id per run.")
    reward: int = Field(ge=0, description="Reward per completed run.")

    @field_validator("requirements")
    @classmethod
    def _valid_requirements(cls, v: dict[str, int]) -> dict[str, int]:
        bad = [r for r in v if r not in RESOURCES]
        if bad:
            raise ValueError(f"unknown resource ids {bad}; use {list(RESOURCES)}")
        if not v or any(q <= 0 for q in v.values()):
            raise ValueError("every requirement must be a positive integer, and at least one")
        return {r: v[r] for r in RESOURCES if r in v}


class OracleCheck(BaseModel):
    """One model's pass@1 attempt to solve a scenario alone with full information (§3.1)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = Field(description="The model that tried, provider/model.")
    passed: bool = Field(description="Its one answer reached the joint optimum M.")
    joint_reward: int = Field(description="Joint reward of its answer (0 if invalid).")
    detail: str = Field("", description="Why it failed, when it did.")


class Scenario(BaseModel):
    """Two agents' private projects (seed 004 App. C). `agents[i]` is seat i's portfolio."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(description="Pool id such as '0.5/gen_012', or 'generated/<ratio>/<seed>'.")
    agents: tuple[tuple[Project, ...], tuple[Project, ...]] = Field(
        description="Projects of seat 0 and seat 1, in the order shown to each agent."
    )
    target_ratio: float | None = Field(
        None, description="The M/C level the scenario was generated for (0.5, 0.8 or 1.0)."
    )
    oracle_checks: tuple[OracleCheck, ...] = Field(
        (),
        description="The §3.1 pass@1 filter: each model's single attempt at the joint optimum "
        "under full information (empty when the scenario was not filtered).",
    )


def parse_requirements(text: str) -> dict[str, int]:
    """Parse the paper's notation ``"r3x2, r1x1"`` into ``{"r3": 2, "r1": 1}``."""
    out: dict[str, int] = {}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        res, _, qty = part.partition("x")
        out[res.strip()] = int(qty)
    return out


def format_requirements(req: dict[str, int], names: dict[str, str] | None = None) -> str:
    """``{"r1": 2}`` as ``"wood×2"`` (or ``"r1×2"`` without names), in resource order."""
    names = names or {r: r for r in RESOURCES}
    return ", ".join(f"{names[r]}×{req[r]}" for r in RESOURCES if r in req)
