"""The trace file: one JSON document per game (DESIGN "Trace file"; CalBench App. A.6 is the model).

A trace holds everything needed to rebuild a run: the game id and options, the seed, the
scenario, who sat where, every event in order, the final state, metrics and usage. Secrets
(API keys) never appear: agent specs store the provider/model string and the *name* of the
environment variable at most.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidatorFunctionWrapHandler,
    create_model,
    field_serializer,
    field_validator,
    model_serializer,
    model_validator,
)

from accord.traces.events import Event, GameEvent, TraceEvent, event_union, with_written
from accord.traces.upgrade import upgrade

SCHEMA_VERSION = 3
"""Version 2 added per-seat transcripts and decision / fallback counts (all optional).
Version 3 typed the events (`accord.traces.events`) and took the in-band ``_fallback`` /
``_warnings`` keys out of recorded actions (provenance is explicit: `accord.core.provenance`)."""

READABLE_VERSIONS = (1, 2, 3)
"""Trace versions this Accord reads, each upgraded to `SCHEMA_VERSION` as it is read
(`accord.traces.upgrade`): version 1 traces simply have no transcripts."""


MAX_COUNT = 2**53 - 1
"""Largest token, call or decision count a trace may hold: far beyond any real game, and
exact as a double and as a 64-bit integer, so every table and viewer reads it unchanged (a
hand-edited ``1e30`` is refused when the trace is read, not half-way through a query)."""


def _count(description: str) -> Any:
    return Field(0, ge=0, le=MAX_COUNT, description=description)


class SeatUsage(BaseModel):
    """Model usage of one seat over one game."""

    model_config = ConfigDict(extra="forbid")

    input_tokens: int = _count("Prompt tokens sent, summed over calls.")
    output_tokens: int = _count("Completion tokens received.")
    reasoning_tokens: int = _count("Hidden reasoning tokens, where reported.")
    cached_input_tokens: int = _count(
        "Input tokens the provider read from its prompt cache (of input_tokens)."
    )
    cache_write_tokens: int = _count(
        "Input tokens the provider wrote to its prompt cache (of input_tokens)."
    )
    cost_usd: float = Field(0.0, ge=0, description="Summed cost of calls with known prices.")
    cost_known: bool = Field(True, description="False if any call had no known price.")
    calls: int = _count("Successful model calls (retries of one call count once).")
    attempts: int = _count("All attempts, including retried ones.")
    latency_s: float = Field(0.0, ge=0, description="Summed latency of successful calls.")
    decisions: int = _count("Requests this seat's model was asked to answer.")
    fallbacks: int = _count("Decisions answered by the request's fallback after bad output.")


class SeatTranscript(BaseModel):
    """What one seat's model was sent and returned (`accord.agents.transcript`)."""

    model_config = ConfigDict(extra="forbid")

    messages: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Distinct chat messages ({role, content}, plus truncated / reasoning / "
        "note where they apply) in the order they first appeared; model_call and model_error "
        "events name the ones they were sent ('sent': index ranges) and got ('reply').",
    )
    calls: int = Field(0, description="Model calls made by this seat, failed ones included.")


class SeatInfo(BaseModel):
    """Who played a seat."""

    model_config = ConfigDict(extra="forbid")

    seat: int = Field(description="0-based seat index.")
    name: str = Field(description="Seat label used in prompts and reports (e.g. 'A').")
    agent: str = Field(description="Agent spec: a model string or a reference agent name.")
    model: str | None = Field(None, description="provider/model for LLM seats, else null.")
    action_mode: Literal["json", "tools"] | None = Field(
        None,
        description="How the model seat acted, resolved ('auto' records what it became): "
        "'json' or 'tools'; absent for seats that call no model and in older traces.",
    )

    @model_serializer(mode="wrap")
    def _without_unset_mode(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Seats without a mode serialize as before the field existed (traces of scripted
        agents stay byte-identical)."""
        data: dict[str, Any] = handler(self)
        if self.action_mode is None:
            data.pop("action_mode", None)
        return data

    @property
    def identity(self) -> str:
        """The seat's player identity in every table, board, comparison and export
        (`player_identity`)."""
        return player_identity(self.model, self.agent, self.action_mode)


_LEGACY_MODES = (" [tools]", " [auto]")


def player_identity(model: str | None, agent: str, action_mode: str | None = None) -> str:
    """Who played a seat, as every table, board, report, comparison and export names it.

    A model seat is its ``provider/model`` (App. E: players are named by model), with its
    resolved action mode when that is not json (``openai/gpt-5 [tools]``): the same model in
    json and tools mode is two players, never pooled. Any other seat is its agent name. A
    trace written before the mode was recorded is read from its agent label's ``[tools]`` /
    ``[auto]`` mark (an old ``auto`` seat stays ``[auto]``: what it resolved to is unknown).
    """
    if model is None:
        return agent
    if action_mode is None:
        for mark in _LEGACY_MODES:
            if agent.endswith(mark):
                return f"{model}{mark}"
        return model
    return model if action_mode == "json" else f"{model} [{action_mode}]"


class Trace(BaseModel):
    """One game, start to finish."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = Field(
        SCHEMA_VERSION,
        description="Bumped on incompatible changes. Older readable versions are upgraded as "
        "they are read (accord.traces.upgrade); this schema describes the current one.",
        json_schema_extra={"const": SCHEMA_VERSION},
    )
    trace_id: str = Field(description="Unique within a run directory; the trace's file stem.")
    game_id: str = Field(description="Versioned game id, e.g. 'negotiation-v1'.")
    game: str = Field(description="Short game name, e.g. 'negotiation'.")
    seed: int = Field(description="The seed every random choice of this game derives from.")
    config: dict[str, Any] = Field(description="The game options after validation.")
    run: dict[str, Any] = Field(
        default_factory=dict,
        description="Experiment context: experiment name, batch, repeat, condition labels.",
    )
    agents_config: list[dict[str, Any]] = Field(
        default_factory=list, description="Per-seat agent specs (models, options; no secrets)."
    )
    scenario: dict[str, Any] = Field(default_factory=dict, description="Scenario played.")
    prompt_templates: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="The prompt templates the game rendered: {name: {sha256, source}}, source "
        "'default' or 'override' (accord.core.prompts).",
    )
    seats: list[SeatInfo] = Field(default_factory=list, description="Who sat where.")
    events: list[Event] = Field(
        default_factory=list,
        description="Events in order; each has 'type' and step 't'. Harness events are typed "
        "by their type (accord.traces.events); every other type is a game event.",
    )
    final_state: dict[str, Any] = Field(default_factory=dict, description="Outcome state.")
    metrics: dict[str, Any] = Field(default_factory=dict, description="Game-level metrics.")
    seat_rows: list[dict[str, Any]] = Field(
        default_factory=list, description="Per-seat result rows (also in results.jsonl)."
    )
    usage: dict[str, SeatUsage] = Field(
        default_factory=dict, description="Usage per seat name, plus 'total'."
    )
    transcripts: dict[str, SeatTranscript] = Field(
        default_factory=dict,
        description="Per seat name: the chat messages its model was sent and returned.",
    )
    status: Literal["complete", "failed"] = Field(
        "complete",
        description="'complete': every decision came from the seat's agent or a documented "
        "fallback for bad output. 'failed': the game could not be played to the end (a model "
        "that could not be reached, an error); failed games are kept out of every mean.",
    )
    error: str | None = Field(None, description="Why the game failed, when it did.")
    accord_version: str = Field("", description="Package version that wrote the trace.")
    started_at: str = Field("", description="UTC ISO time the game started.")
    ended_at: str = Field("", description="UTC ISO time the game ended.")

    @model_validator(mode="before")
    @classmethod
    def _upgrade(cls, data: Any) -> Any:
        """A trace of an older readable version, as this version writes it."""
        return upgrade(data)

    @field_validator("schema_version")
    @classmethod
    def _current(cls, version: int) -> int:
        """After `_upgrade` every readable trace is the current version; anything else is not
        one this Accord reads."""
        if version != SCHEMA_VERSION:
            readable = ", ".join(map(str, READABLE_VERSIONS))
            raise ValueError(
                f"schema_version {version} is not one this Accord reads ({readable}): a newer "
                "Accord wrote it, or it was edited"
            )
        return version

    @field_validator("events", mode="wrap")
    @classmethod
    def _events_as_written(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        """Each event keeps the fields it was written with (`accord.traces.events`)."""
        return with_written(handler, value) if isinstance(value, list) else handler(value)

    @field_serializer("events")
    def _write_events(self, events: list[TraceEvent]) -> list[Any]:
        """The events as written: one pass over the list rather than a call per event."""
        return [e.as_written() if isinstance(e, TraceEvent) else e for e in events]


def trace_json_schema(event_types: Sequence[type[GameEvent]] = ()) -> dict[str, Any]:
    """The JSON schema of a trace file (what ``accord trace-schema`` prints).

    With `event_types` (a game's ``event_types``) its events are described by those models;
    without, every game event is a generic `GameEvent`.
    """
    model: type[Trace] = Trace
    if event_types:
        item: Any = event_union(event_types)
        model = create_model(
            "Trace",
            __base__=Trace,
            __doc__=Trace.__doc__,
            events=(
                list[item],
                Field(default_factory=list, description=Trace.model_fields["events"].description),
            ),
        )
    schema = model.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema
