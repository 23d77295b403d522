"""Options of `calendar-v2` (CalBench §3 "Communication protocols", §4.1, App. A.2-A.5, App. B).

A game plays one task. Either it comes from a suite (``suite`` = ``calbench-uniform``,
``calbench-varied``, ``canonical`` or a path to a JSONL suite file; ``task`` picks an index or
a task id, and without ``task`` the game seed picks task ``seed mod len(suite)``), or it is
generated from the game seed with the generation parameters below (App. A.1, Table 3).

The defaults of the generation parameters give a small, fast game (3 agents, 8 slots, 3
meetings of 2); the paper's setting is the canonical suite or the CalBench files, with
``max_turns_per_round`` 15 and no DM cap (App. B).
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import suppress
from functools import lru_cache
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
from accord.games.calendar.calbench import load_suite
from accord.games.calendar.generator import generate_scenario
from accord.games.calendar.scenario import Scenario

Channels = Literal["dm", "participant_groupchat", "all_groupchat", "all"]
SpeakerOrder = Literal["rotate", "ascending", "random"]
FailedRound = Literal["keep", "rollback"]

CHANNEL_TYPES: dict[str, tuple[str, ...]] = {
    "dm": ("dm",),
    "participant_groupchat": ("participant_groupchat",),
    "all_groupchat": ("all_groupchat",),
    "all": ("dm", "participant_groupchat", "all_groupchat"),
}
"""Message action types each communication condition allows (§3, App. A.3)."""

BUILTIN_VARIANTS: tuple[str, ...] = ("standard", "nosy-highpressure", "redteam")
"""Prompt variants shipped with the game (App. A.2); other names are files in a directory."""

_GENERATION_KEYS = (
    "num_agents",
    "num_slots",
    "num_meetings",
    "participants_per_meeting",
    "density",
    "num_blocked",
    "cost_setting",
    "meeting_cost_level",
)


class CalendarConfig(BaseModel):
    """Options of `calendar-v2`. Unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    suite: str | None = Field(
        None,
        description="Task suite: 'calbench-uniform', 'calbench-varied', 'canonical' or a path "
        "to a JSONL suite file. None generates a task from the game seed.",
    )
    task: int | str | None = Field(
        None, description="Task index (0-based) or task id in `suite`; None = seed mod size."
    )
    num_agents: int = Field(
        3,
        ge=2,
        le=12,
        description="Generated tasks: agents N. With a suite: keep only tasks "
        "with this many agents.",
    )
    # Caps by measured solver cost (docs/calendar.md "Stream length"): at 24 meetings and 128
    # slots the CP-SAT optimum and worst schedule take about 2 and 3 s; at 32 meetings on 64
    # slots the optimum did not finish in 100 s.
    num_slots: int = Field(8, ge=2, le=128, description="Generated tasks: calendar slots S.")
    num_meetings: int = Field(3, ge=1, le=24, description="Generated tasks: meetings (rounds).")
    participants_per_meeting: int = Field(
        2, ge=1, description="Generated tasks: size of each rotating participant set."
    )
    density: float | list[float] = Field(
        0.5, description="Generated tasks: errand density, shared or one per agent."
    )
    num_blocked: int | list[int] = Field(
        1, description="Generated tasks: blocked errands per agent, shared or one per agent."
    )
    cost_setting: Literal["uniform", "varied"] = Field(
        "uniform",
        description="Generated tasks: 'uniform' (all 1) or 'varied' (1/2/3, shown 1/10/100).",
    )
    meeting_cost_level: int = Field(
        1, ge=1, description="Generated tasks: cost of moving a scheduled meeting lies in 1..this."
    )
    channels: Channels = Field(
        "dm",
        description="Communication condition: 'dm', 'participant_groupchat', "
        "'all_groupchat' or 'all' (every channel).",
    )
    max_turns_per_round: int | None = Field(
        15,
        ge=1,
        le=200,
        description="CHEAP_TALK sweeps per round (paper: 15). None = until a sweep sends no "
        "message (bounded by 200 sweeps).",
    )
    decision_retries: int = Field(
        3, ge=0, le=10, description="Retries after a rejected VOLUNTARY or DECISION batch."
    )
    dm_cap: int | None = Field(
        None,
        ge=0,
        description="Messages each agent may send in the whole game (any channel); "
        "None = no cap (paper's main setting).",
    )
    failed_round: FailedRound = Field(
        "keep",
        description="What a failed round leaves behind: 'keep' (CalBench release and paper: "
        "when every participant submitted a valid DECISION batch, all are committed and "
        "charged even if the slots differ) or 'rollback' (every DECISION move of the round is "
        "undone, so an unscheduled meeting costs nothing).",
    )
    speaker_order: SpeakerOrder = Field(
        "rotate",
        description="CHEAP_TALK order of participants: 'rotate' (the first speaker "
        "moves one place each round), 'ascending', or 'random' (from the game seed).",
    )
    prompt_variant: str = Field(
        "standard",
        description="'standard', 'nosy-highpressure', 'redteam', or the name of a "
        "Markdown file (without .md) in `prompt_variant_dir`.",
    )
    variant_seats: list[int] = Field(
        default_factory=lambda: [0], description="Seats that receive `prompt_variant` (paper: 0)."
    )
    prompt_variant_dir: str | None = Field(
        None, description="Directory holding prompt-variant files (App. A.2 'DSPy variants')."
    )
    prompts: str | None = Field(
        None,
        description="A folder of prompt templates laid over the defaults, file by file "
        "(`accord prompts calendar --dump DIR` writes the defaults to start from).",
    )

    @field_validator("prompts")
    @classmethod
    def _prompts_load(cls, value: str | None) -> str | None:
        """A bad override stops the run before it starts (`accord.core.prompts`)."""
        from accord.core.prompts import check_override

        return check_override("calendar", value)

    reflection: bool = Field(
        False,
        description="After each round, ask every seat the measurement-only reflection prompt "
        "of reflection-calibrated VPS (App. F.3); never added to an LLM seat's history.",
    )

    @model_validator(mode="after")
    def _consistent(self) -> CalendarConfig:
        if self.suite is not None:
            # num_agents stays allowed: with a suite it keeps only tasks of that size. With a
            # fixed task, values equal to the task's own are allowed too (a trace's config
            # records them, see `_describe_task`).
            given = sorted((set(_GENERATION_KEYS) - {"num_agents"}) & self.model_fields_set)
            if given and self.task is not None:
                try:
                    actual = self.task_values()
                except ConfigError:
                    actual = {}
                given = [k for k in given if _plain(getattr(self, k)) != actual.get(k)]
            if given:
                raise ValueError(
                    f"generation parameters {given} only apply without 'suite'; drop them or "
                    "drop 'suite'"
                )
        elif self.task is not None:
            raise ValueError("'task' picks a task of a 'suite'; give 'suite' too")
        if self.participants_per_meeting > self.num_agents:
            raise ValueError(
                f"participants_per_meeting ({self.participants_per_meeting}) exceeds num_agents "
                f"({self.num_agents})"
            )
        if self.prompt_variant not in BUILTIN_VARIANTS and self.prompt_variant_dir is None:
            raise ValueError(
                f"prompt_variant {self.prompt_variant!r} is not one of {list(BUILTIN_VARIANTS)}; "
                "for a variant file also give 'prompt_variant_dir'"
            )
        return self

    @model_serializer(mode="wrap")
    def _describe_task(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A trace's config must describe the task played: with a suite the generation
        # parameters do not apply, and their defaults (3 agents, 8 slots, ...) would contradict
        # a 5-agent, 16-slot task, so they are left out (num_agents only when it was given, as
        # it filters the suite). The dump also validates again as the same config (replay).
        data: dict[str, Any] = handler(self)
        if self.suite is not None:
            for key in _GENERATION_KEYS:
                if key != "num_agents" or key not in self.model_fields_set:
                    data.pop(key, None)
            if self.task is not None:
                # A task that does not exist is reported when a game is made.
                with suppress(ConfigError):
                    data |= self.task_values()
        return data

    def task_values(self) -> dict[str, Any]:
        """The generation parameters of the fixed `task` of `suite` (the published files record
        theirs; the canonical suite's come from its generator)."""
        p = self.scenario_for(0).params
        values = {key: _plain(getattr(p, key)) for key in _GENERATION_KEYS}
        return {k: v for k, v in values.items() if v is not None}

    def scenario_for(self, seed: int) -> Scenario:
        """The task this config plays under game seed `seed`."""
        if self.suite is None:
            return generate_scenario(
                seed,
                num_agents=self.num_agents,
                num_slots=self.num_slots,
                density=self.density,
                num_meetings=self.num_meetings,
                participants_per_meeting=self.participants_per_meeting,
                num_blocked=self.num_blocked,
                cost_setting=self.cost_setting,
                meeting_cost_level=self.meeting_cost_level,
            )
        tasks = _suite(self.suite)
        if self.task is None:
            pool = self._pool(tasks)
            return pool[seed % len(pool)]
        if isinstance(self.task, int):
            if not 0 <= self.task < len(tasks):
                raise ConfigError(
                    f"task {self.task} is out of range; suite {self.suite!r} has tasks "
                    f"0..{len(tasks) - 1}"
                )
            return tasks[self.task]
        for scenario in tasks:
            if scenario.task_id == self.task:
                return scenario
        raise ConfigError(
            f"no task {self.task!r} in suite {self.suite!r}; use an index or one of its task "
            f"ids, e.g. {tasks[0].task_id!r}"
        )

    def _pool(self, tasks: tuple[Scenario, ...]) -> tuple[Scenario, ...]:
        """The tasks a seed chooses from: all, or those with `num_agents` agents if given."""
        if "num_agents" not in self.model_fields_set:
            return tasks
        pool = tuple(t for t in tasks if t.num_agents == self.num_agents)
        if not pool:
            sizes = sorted({t.num_agents for t in tasks})
            raise ConfigError(
                f"suite {self.suite!r} has no {self.num_agents}-agent task; sizes are {sizes}"
            )
        return pool

    def seats(self) -> int:
        """Seats of every game under this config (known before any seed is drawn)."""
        if self.suite is None:
            return self.num_agents
        tasks = _suite(self.suite)
        if self.task is not None:
            return self.scenario_for(0).num_agents
        sizes = sorted({t.num_agents for t in self._pool(tasks)})
        if len(sizes) > 1:
            raise ConfigError(
                f"suite {self.suite!r} mixes tasks of {sizes} agents, so the seats depend on "
                "the seed; give 'num_agents' to keep one size, or pick a 'task'"
            )
        return sizes[0]


def _plain(value: Any) -> Any:
    """Tuples as lists, so parameters compare equal however they were given."""
    return list(value) if isinstance(value, tuple) else value


def suite_task_options(suite: str, options: Mapping[str, Any]) -> list[dict[str, Any]]:
    """``{"suite", "task"}`` for every task of `suite` (only `num_agents`-agent tasks when
    that option is given), so a run can play each task exactly once; with a ``task`` option
    (an index or a task id, as in ``accord run calendar --suite canonical --task 3``) only
    that task."""
    tasks = _suite(suite)
    if options.get("task") is not None:
        picked_one = CalendarConfig(suite=suite, task=options["task"]).scenario_for(0)
        return [{"suite": suite, "task": tasks.index(picked_one)}]
    size = options.get("num_agents")
    picked = [i for i, t in enumerate(tasks) if size is None or t.num_agents == size]
    if not picked:
        sizes = sorted({t.num_agents for t in tasks})
        raise ConfigError(f"suite {suite!r} has no {size}-agent task; sizes are {sizes}")
    return [{"suite": suite, "task": i} for i in picked]


@lru_cache(maxsize=8)
def _suite(name: str) -> tuple[Scenario, ...]:
    # Suites are immutable data and loading one (or building the canonical one) is the slowest
    # part of a reset, so every game of a run shares one copy.
    return tuple(load_suite(name))
