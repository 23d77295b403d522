"""Calendar scenarios: agents' private calendars and the stream of incoming meetings.

CalBench §3 and App. A.1 ("Calendar data model", Table 3). A scenario holds, for each of N
agents, a calendar of S slots; each slot is free or holds one errand. Errands carry a
displacement cost and may be blocked (immovable). M incoming meetings arrive in order, each with
a participant set; a meeting must land on the same slot of every participant's calendar.

Costs (§3 "Costs"): in the ``uniform`` setting every errand costs 1. In the ``varied`` setting
errands cost 1, 2 or 3 internally (oracles and leaderboards use these) and agents are shown
1, 10 or 100 (`display_cost`). Scenarios imported from the published CalBench files keep the
files' own cost values (1, 100, 1000 in the varied file) so the published optima reproduce; their
`cost_display` is ``linear``.

Scenarios are built by `accord.games.calendar.generator.generate_scenario` (App. A.1) or imported
by `accord.games.calendar.calbench.load_suite`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from accord.games.calendar.labels import PrivateLabel

SCENARIO_VERSION = 1
"""Schema version of `Scenario`; bump when a field changes meaning."""

CostSetting = Literal["uniform", "varied"]
CostDisplay = Literal["linear", "log10"]


def display_cost(cost: int) -> int:
    """The cost an agent is shown for internal cost `cost` on the log scale (§3 "Costs").

    Internal 1, 2, 3 become 1, 10, 100: the paper found small linear differences were not
    salient to models, so the shown scale makes the preference order unmistakable.
    """
    if cost < 1:
        raise ValueError(f"cost must be a positive integer, got {cost}")
    return int(10 ** (cost - 1))


def describe_validation_error(exc: ValidationError, *, whole: str) -> str:
    """The first problem in `exc` as "field 'a.b': message", or "<whole>: message" when a check
    on the whole model failed."""
    first = exc.errors()[0]
    message = str(first["msg"]).removeprefix("Value error, ")
    if not first["loc"]:
        return f"{whole}: {message}"
    return f"field '{'.'.join(str(p) for p in first['loc'])}': {message}"


class Errand(BaseModel):
    """An agent's own commitment occupying one slot."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: int = Field(ge=0, description="Unique within the scenario, across all agents.")
    cost: int = Field(ge=0, description="Internal displacement cost if the errand is moved.")
    blocked: bool = Field(False, description="Immovable: no meeting may take this slot.")
    label: PrivateLabel = Field(description="Private context, visible to the owner only.")


class Meeting(BaseModel):
    """An incoming meeting; one per round, in arrival order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: int = Field(ge=0, description="Unique meeting id; rounds follow `Scenario.meetings`.")
    participants: tuple[int, ...] = Field(
        min_length=1, description="Agent indices, ascending and distinct."
    )
    cost: int = Field(
        1, ge=0, description="Cost per participant calendar of moving it once it is scheduled."
    )
    duration: int = Field(1, ge=1, le=1, description="Slots taken; always 1 in CalBench.")
    label: PrivateLabel = Field(description="Private context, visible to participants only.")

    @model_validator(mode="after")
    def _participants_sorted(self) -> Meeting:
        if list(self.participants) != sorted(set(self.participants)):
            raise ValueError(f"meeting {self.id}: participants must be ascending and distinct")
        return self


class ScenarioParams(BaseModel):
    """Generation parameters (App. A.1, Table 3), as used; `generate_scenario` documents each."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    num_agents: int = Field(5, ge=1, description="Number of agents N.")
    num_slots: int = Field(16, ge=1, description="Calendar length S.")
    density: float | tuple[float, ...] = Field(
        0.6, description="Fraction of slots pre-filled with errands; shared or one per agent."
    )
    num_meetings: int = Field(5, ge=0, description="Number of incoming meetings (rounds) M.")
    participants_per_meeting: int | None = Field(
        3, ge=1, description="Size of each rotating participant set; None with participant_lists."
    )
    participant_lists: tuple[tuple[int, ...], ...] | None = Field(
        None, description="Fixed participant set per meeting, overriding the rotation."
    )
    pref_level: int = Field(1, ge=1, description="Errand cost ceiling: costs lie in 1..level.")
    errand_cost_level: int | None = Field(
        None, ge=1, description="Override of the errand cost ceiling; defaults to pref_level."
    )
    errand_cost_values: tuple[int, ...] | None = Field(
        None, description="Value of each cost level 1..L; None means the level itself."
    )
    meeting_cost_level: int = Field(1, ge=1, description="Meeting costs lie in 1..this.")
    num_blocked: int | tuple[int, ...] = Field(
        0, description="Blocked errands per agent; shared or one per agent."
    )
    force_witness_errand: bool = Field(
        True, description="Seed every witness slot with an errand to create displacement."
    )
    cost_setting: CostSetting = Field("uniform", description="'uniform' or 'varied' (§3 Costs).")
    balanced_costs: bool = Field(
        True, description="Varied costs: each agent gets each level equally often (±1)."
    )

    @model_validator(mode="after")
    def _valid(self) -> ScenarioParams:
        n = self.num_agents
        densities = (self.density,) if isinstance(self.density, float) else self.density
        if isinstance(self.density, tuple) and len(self.density) != n:
            raise ValueError(f"density lists {len(self.density)} values; give one per agent ({n})")
        if any(not 0.0 <= d <= 1.0 for d in densities):
            raise ValueError(f"density values must lie in [0, 1], got {list(densities)}")
        blocked = (self.num_blocked,) if isinstance(self.num_blocked, int) else self.num_blocked
        if isinstance(self.num_blocked, tuple) and len(self.num_blocked) != n:
            raise ValueError(
                f"num_blocked lists {len(self.num_blocked)} values; give one per agent"
            )
        if any(b < 0 for b in blocked):
            raise ValueError("num_blocked must be >= 0")
        if self.num_meetings > self.num_slots:
            raise ValueError(
                f"{self.num_meetings} meetings cannot take distinct slots of a "
                f"{self.num_slots}-slot "
                "calendar; lower num_meetings or raise num_slots"
            )
        if self.participant_lists is not None:
            if len(self.participant_lists) != self.num_meetings:
                raise ValueError(
                    f"participant_lists has {len(self.participant_lists)} sets for "
                    f"{self.num_meetings} meetings; give one per meeting"
                )
            for group in self.participant_lists:
                if not group or len(set(group)) != len(group) or not all(0 <= a < n for a in group):
                    raise ValueError(
                        f"participant set {list(group)} must be distinct agents 0..{n - 1}"
                    )
        elif self.participants_per_meeting is None or self.participants_per_meeting > n:
            raise ValueError(
                f"participants_per_meeting must be 1..{n} (or give participant_lists), "
                f"got {self.participants_per_meeting}"
            )
        if self.cost_setting == "uniform" and self.cost_level != 1:
            raise ValueError(
                "the uniform setting gives every errand cost 1; use cost_setting='varied' for a "
                f"cost level of {self.cost_level}"
            )
        values = self.errand_cost_values
        if values is not None and len(values) != self.cost_level:
            raise ValueError(
                f"errand_cost_values needs {self.cost_level} values, got {len(values)}"
            )
        return self

    @property
    def cost_level(self) -> int:
        """The errand cost ceiling actually used."""
        return self.errand_cost_level or self.pref_level

    def density_of(self, agent: int) -> float:
        """Density of one agent's calendar."""
        return self.density if isinstance(self.density, float) else self.density[agent]

    def blocked_of(self, agent: int) -> int:
        """Number of blocked errands on one agent's calendar."""
        return self.num_blocked if isinstance(self.num_blocked, int) else self.num_blocked[agent]


class PublishedReference(BaseModel):
    """What a published CalBench record states about its task, kept for cross-checks."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str = Field(description="The record's task id, e.g. 'b001_easy_2a_2p_d0p6_c1_1'.")
    seed: int = Field(description="The record's generator seed.")
    optimal_cost: int = Field(description="Published minimum total displacement cost.")
    optimal_assignment: dict[int, int] = Field(description="Published optimal meeting -> slot.")
    optimal_evictions: int = Field(description="Published errand-move count (see docs).")
    greedy_cost: int = Field(description="Published greedy cost (see docs for its model).")
    witness_cost: int = Field(description="Published cost of the witness assignment.")
    feasible: bool = Field(description="Published feasibility flag.")
    difficulty: str = Field(description="Published bucket: easy, medium or hard.")
    difficulty_score: float = Field(
        description="Published score: optimal cost per participant slot."
    )


VIEW_FIELDS = frozenset({"num_agents", "num_meetings", "oracle"})
"""Top-level keys the JSON view adds to a scenario: derived, so reading ignores them."""


class Scenario(BaseModel):
    """One calendar task: private calendars, incoming meetings and how they were made."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int = Field(SCENARIO_VERSION, description="Schema version of this model.")
    task_id: str = Field(description="Stable task name, e.g. 'canonical-uniform-easy-03'.")
    seed: int = Field(description="Seed every random choice of this scenario derives from.")
    num_slots: int = Field(ge=1, description="Calendar length S.")
    calendars: tuple[tuple[Errand | None, ...], ...] = Field(
        min_length=1, description="Per agent, per slot: the errand there, or None when free."
    )
    meetings: tuple[Meeting, ...] = Field(description="Incoming meetings in arrival order.")
    cost_setting: CostSetting = Field(description="'uniform' or 'varied' (§3 Costs).")
    cost_display: CostDisplay = Field(
        description="How costs are shown: 'log10' maps 1/2/3 to 1/10/100, 'linear' shows as is."
    )
    params: ScenarioParams = Field(description="Generation parameters used.")
    witness: dict[int, int] = Field(
        description="Hidden feasible meeting -> slot assignment the calendars were built around."
    )
    absorbing: tuple[tuple[int, ...], ...] = Field(
        description="Per agent, free slots reserved as landing pads (App. A.1 step 3); may be "
        "empty for imported tasks."
    )
    source: str = Field("generated", description="'generated', or where an import came from.")
    published: PublishedReference | None = Field(
        None, description="The published record's own numbers, for imported CalBench tasks."
    )

    @model_validator(mode="before")
    @classmethod
    def _accept_view(cls, data: Any) -> Any:
        """Read the JSON view of `export.scenario_json` too (what `accord scenario` prints and
        traces store): its derived fields (sizes, oracle, errand cell kinds) are dropped, so any
        reader of a trace rebuilds the scenario with `Scenario.model_validate`."""
        if not isinstance(data, dict) or not VIEW_FIELDS & data.keys():
            return data
        data = {k: v for k, v in data.items() if k not in VIEW_FIELDS}
        cells: list[list[Any]] = []
        for agent, cal in enumerate(data.get("calendars") or []):
            row: list[Any] = []
            for slot, cell in enumerate(cal):
                if isinstance(cell, dict) and "kind" in cell:
                    if cell["kind"] != "errand":
                        raise ValueError(
                            f"calendar of agent {agent}, slot {slot}: initial calendars hold "
                            f"errands only, got kind {cell['kind']!r}"
                        )
                    cell = {k: v for k, v in cell.items() if k != "kind"}
                row.append(cell)
            cells.append(row)
        if "calendars" in data:
            data["calendars"] = cells
        return data

    @model_validator(mode="after")
    def _consistent(self) -> Scenario:
        n = len(self.calendars)
        errand_ids: set[int] = set()
        for agent, cal in enumerate(self.calendars):
            if len(cal) != self.num_slots:
                raise ValueError(
                    f"calendar of agent {agent} has {len(cal)} slots, not {self.num_slots}"
                )
            for item in cal:
                if item is not None:
                    if item.id in errand_ids:
                        raise ValueError(f"errand id {item.id} appears twice")
                    errand_ids.add(item.id)
        meeting_ids = [m.id for m in self.meetings]
        if len(set(meeting_ids)) != len(meeting_ids):
            raise ValueError(f"meeting ids must be unique, got {meeting_ids}")
        for m in self.meetings:
            if m.participants[-1] >= n:
                raise ValueError(f"meeting {m.id} names agent {m.participants[-1]}; there are {n}")
        if set(self.witness) != set(meeting_ids):
            raise ValueError("witness must give a slot for every meeting and nothing else")
        if any(not 0 <= s < self.num_slots for s in self.witness.values()):
            raise ValueError("witness slots must lie in 0..num_slots-1")
        if len(self.absorbing) != n:
            raise ValueError(f"absorbing must list slots for each of the {n} agents")
        return self

    @property
    def num_agents(self) -> int:
        """Number of agents N."""
        return len(self.calendars)

    @property
    def num_meetings(self) -> int:
        """Number of incoming meetings M."""
        return len(self.meetings)

    def meeting(self, meeting_id: int) -> Meeting:
        """The meeting with id `meeting_id`."""
        for m in self.meetings:
            if m.id == meeting_id:
                return m
        raise KeyError(f"no meeting {meeting_id}; ids are {[m.id for m in self.meetings]}")

    def shown_cost(self, cost: int) -> int:
        """The cost agents see for an internal `cost` in this scenario."""
        return display_cost(cost) if self.cost_display == "log10" else cost
