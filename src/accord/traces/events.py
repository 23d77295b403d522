"""Typed trace events (DESIGN principle 8): the harness's own events and a base for games'.

A trace's ``events`` list holds two families, told apart by their ``type`` field:

- **Harness events**, written by the runner and the agents whatever the game: one pydantic
  model each (`ModelCall`, `ModelErrorEvent`, `ValidationErrorEvent`, `OutputFormatWarning`,
  `HeuristicFallback`, `ResponseFormatFallback`, `InvalidAction`, `HumanAction`,
  `HumanTimeout`, `GameFailed`, `Fork`), a discriminated union on ``type``.
- **Game events**, written by `Game.emit`: every other ``type``. They load as `GameEvent`, which
  keeps every field; a game declares its own models (subclasses of `GameEvent` with a
  ``Literal`` type) as ``event_types`` on its `Game` class, and `as_game_events` reads a trace's
  game events as those models. An event of a plugin that declares none still loads.

Every event keeps the fields it was written with, in the order they were written, and nothing
else: a field a model declares but the event did not carry is not added when the trace is
written again, so a trace reads and writes back byte for byte. Events also answer the read-only
mapping calls (``event["seat"]``, ``event.get("round")``, ``"kind" in event``) that readers
written before events were typed use; a field named like a mapping method (``keys``,
``items``, ``values``, ``get``) is read that way only (``event["values"]``), never declared.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Annotated, Any, Literal, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
    create_model,
    field_validator,
    model_serializer,
)

from accord.traces.upgrade import IN_BAND_KEYS

Number = int | float
"""A number kept as written (an int stays an int), so a trace writes back byte for byte."""


class TraceEvent(BaseModel, Mapping[str, Any]):
    """One event of a trace: its ``type``, its step ``t`` and the fields it was written with.

    Also a read-only `Mapping` of those fields (``event["seat"]``, ``event.get("round")``).
    Events are frozen: an event is a record of what happened (build a new one rather than
    ``model_copy(update=...)``, which would leave the fields as written behind).
    """

    model_config = ConfigDict(extra="allow", frozen=True)

    type: str = Field(description="What happened; names the event's model.")
    t: int = Field(description="Step number, monotone within a game.")

    def __init__(self, **data: Any) -> None:
        """An event built in code (``ModelCall(t=3, seat=0)``) keeps the fields it was given."""
        super().__init__(**data)
        keep_written(self, data)

    # Validation (reading a trace) must not call this ``__init__`` once per event: pydantic
    # would otherwise validate every event twice, through Python, which was most of the cost
    # of reading a trace. Readers keep the fields as written in one pass (`with_written`);
    # only events built in code come through here. The flag is how pydantic tells its own
    # ``__init__`` from an override.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    @model_serializer(mode="plain")
    def _written_fields(self) -> dict[str, Any]:
        return self._fields()

    def _fields(self) -> dict[str, Any]:
        written: dict[str, Any] | None = self.__dict__.get(_WRITTEN)
        if written is None:  # built without validation (model_construct): set fields only
            fields = self.model_fields_set
            written = {k: v for k, v in self.__dict__.items() if k in fields}
            written.update(self.__pydantic_extra__ or {})
        return written

    # -- read-only mapping access ------------------------------------------------------------
    def __getitem__(self, key: str) -> Any:
        return self._fields()[key]

    def __iter__(self) -> Iterator[str]:  # type: ignore[override]
        """The event's fields, in the order they were written (as a dict's keys)."""
        return iter(self._fields())

    def __len__(self) -> int:
        return len(self._fields())

    def __contains__(self, key: object) -> bool:
        return key in self._fields()

    def get(self, key: str, default: Any = None) -> Any:
        """The field's value as written, or `default` when the event does not carry it."""
        return self._fields().get(key, default)

    def as_written(self) -> dict[str, Any]:
        """The event's fields as written (the event's own record: do not change it)."""
        return self._fields()

    def as_dict(self) -> dict[str, Any]:
        """The event as the JSON object a trace file holds (a shallow copy)."""
        return dict(self._fields())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TraceEvent):
            return self._fields() == other._fields()
        if isinstance(other, Mapping):
            return self._fields() == dict(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


_WRITTEN = "_written"
"""Where an event keeps its fields as written (in its ``__dict__``, beside pydantic's)."""


def keep_written(event: TraceEvent, data: Mapping[str, Any]) -> None:
    """Make `event` keep `data`, the fields it was validated from, as written: their order,
    ints as ints, no defaults added. What the event writes back and what its mapping reads."""
    written = dict(data)
    if "type" not in written:  # built in code with the model's default type
        written = {"type": event.type, **written}
    object.__setattr__(event, _WRITTEN, written)


HARNESS_TYPES = (
    "model_call",
    "model_error",
    "validation_error",
    "output_format_warning",
    "heuristic_fallback",
    "response_format_fallback",
    "invalid_action",
    "human_action",
    "human_timeout",
    "game_failed",
    "fork",
    "remote_join",
    "remote_request",
    "remote_call",
    "remote_action",
    "remote_failed",
    "remote_unauthenticated",
    "remote_identity",
)
"""The ``type`` of every harness event; a game may not use them for its own events."""


class GameEvent(TraceEvent):
    """An event a game recorded (`Game.emit`). Games subclass it, one model per ``type``:

    ``class Message(GameEvent): type: Literal["message"] = "message"; text: str``

    and list the models as ``event_types`` on their `Game` class. Without declarations every
    game event loads as this class, all fields kept.
    """

    type: str = Field(
        description="What happened: a type of the game's own.",
        json_schema_extra={"not": {"enum": list(HARNESS_TYPES)}},
    )


class HarnessEvent(TraceEvent):
    """An event the harness writes for a seat's request, whatever the game."""

    seat: int | None = Field(None, description="Seat the event is about (0-based).")
    round: int | None = Field(None, description="Round of the request it belongs to.")


class ModelCall(HarnessEvent):
    """One successful model call (`accord.agents.llm`)."""

    type: Literal["model_call"] = "model_call"
    seat: int = Field(description="Seat whose model was called (0-based): whose transcript.")
    kind: str | None = Field(None, description="The request's decision kind.")
    call: int | None = Field(None, description="Call number within the seat's transcript.")
    sent: list[Any] | None = Field(None, description="Transcript message ranges sent.")
    reply: int | None = Field(None, description="Transcript index of the reply.")
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0
    latency_s: Number = 0
    cost_usd: Number | None = Field(None, description="None when the price is unknown.")
    attempts: int = Field(1, description="Attempts the client made, retried ones included.")
    retries: list[dict[str, Any]] | None = Field(None, description="The client's retries.")
    tools: list[str] | None = Field(
        None, description="Tools mode: the names of the tools offered with this call."
    )
    tool_calls: list[dict[str, Any]] | None = Field(
        None, description="Tools mode: the tool calls returned (id, name, arguments)."
    )
    batch: dict[str, Any] | None = Field(
        None,
        description="Batch mode: the batch that answered (Accord's id for it, as in "
        "DIR/batches), the seconds it spent at the provider (queue_s) and what the call "
        "would have cost live (live_cost_usd).",
    )
    served_model: str | None = Field(
        None, description="The model id the provider's reply named (what it says it served)."
    )
    fingerprint: str | None = Field(
        None, description="The provider's system_fingerprint of the reply, where it sends one."
    )
    versions: dict[str, str] | None = Field(
        None,
        description="The version headers of the provider's reply (openai-version, "
        "x-model-version, ...: accord.models.versions), where it sends any.",
    )


class ModelErrorEvent(HarnessEvent):
    """The model could not be reached for good; the game ends ``failed``."""

    type: Literal["model_error"] = "model_error"
    seat: int = Field(description="Seat whose model could not be reached (0-based).")
    kind: str | None = None
    call: int | None = None
    sent: list[Any] | None = None
    error: str = ""
    status: int | None = Field(None, description="HTTP status, where there was one.")
    attempts: int = 1
    retries: list[dict[str, Any]] | None = None


class ValidationErrorEvent(HarnessEvent):
    """A reply that did not parse or broke a rule; the seat is asked again."""

    type: Literal["validation_error"] = "validation_error"
    attempt: int | None = None
    kind: str | None = None
    error_kind: str | None = None
    error: str = ""
    raw: str | None = Field(None, description="The start of the rejected reply.")


class OutputFormatWarning(HarnessEvent):
    """A usable reply not in the exact format; the action was taken as parsed."""

    type: Literal["output_format_warning"] = "output_format_warning"
    kind: str | None = None
    warning: str = ""


class HeuristicFallback(HarnessEvent):
    """The request's documented fallback answered the decision (`accord.core.provenance`)."""

    type: Literal["heuristic_fallback"] = "heuristic_fallback"
    kind: str | None = None
    error: str = Field("", description="Why the fallback was used.")
    action: dict[str, Any] = Field(
        default_factory=dict,
        description="The fallback action (never the in-band provenance keys of version 2 "
        "traces: the event itself says the decision was a fallback).",
        json_schema_extra={"propertyNames": {"not": {"enum": list(IN_BAND_KEYS)}}},
    )

    @field_validator("action")
    @classmethod
    def _no_in_band_provenance(cls, action: dict[str, Any]) -> dict[str, Any]:
        found = sorted(k for k in IN_BAND_KEYS if k in action)
        if found:
            raise ValueError(
                f"a version 3 trace keeps no {', '.join(found)} in a fallback's action (the "
                "event says it was a fallback); mark the trace schema_version 2 if an older "
                "Accord wrote it"
            )
        return action


class ResponseFormatFallback(HarnessEvent):
    """The server refused a structured-output form; the client used a looser one."""

    type: Literal["response_format_fallback"] = "response_format_fallback"
    call: int | None = None


class InvalidAction(HarnessEvent):
    """The game rejected a built action (a reference agent's, a person's)."""

    type: Literal["invalid_action"] = "invalid_action"
    error: str = ""


class HumanAction(HarnessEvent):
    """A person answered a request."""

    type: Literal["human_action"] = "human_action"
    kind: str | None = None
    response_s: Number = 0


class HumanTimeout(HarnessEvent):
    """A person did not answer in time; a fallback follows."""

    type: Literal["human_timeout"] = "human_timeout"
    kind: str | None = None
    waited_s: Number = 0
    error: str = ""


class GameFailed(HarnessEvent):
    """The game could not be played to the end."""

    type: Literal["game_failed"] = "game_failed"
    error: str = ""


class Fork(HarnessEvent):
    """A forked game switched a seat's agent here (`accord.runner.fork`)."""

    type: Literal["fork"] = "fork"
    parent: str | None = None
    turn: int | None = None
    replaced: str | None = None
    by: str | None = None


# -- remote agent seats (`accord.agents.remote`, docs/agents.md) -------------------------------


class RemoteJoin(HarnessEvent):
    """A remote seat was opened for its agent (never the seat's token)."""

    type: Literal["remote_join"] = "remote_join"
    via: str = Field("", description="mcp, http, or command (an agent process Accord started).")
    url: str = Field("", description="The seat server's base URL.")


class RemoteRequest(HarnessEvent):
    """A request was opened for the remote agent."""

    type: Literal["remote_request"] = "remote_request"
    request_id: int | None = None
    kind: str | None = None
    deadline_s: Number | None = None
    reply_schema: bool | None = Field(None, description="Whether a reply schema was sent.")


class RemoteCall(HarnessEvent):
    """One call the remote agent made (its reply text goes to the transcript)."""

    type: Literal["remote_call"] = "remote_call"
    tool: str = ""
    via: str = Field("", description="mcp or http.")
    at_s: Number | None = Field(None, description="Seconds since the seat opened.")
    ok: bool | None = None
    error: str | None = None
    request_id: int | None = None


class RemoteAction(HarnessEvent):
    """The remote agent's reply was accepted as the seat's action."""

    type: Literal["remote_action"] = "remote_action"
    request_id: int | None = None
    kind: str | None = None
    response_s: Number = 0
    self_reported_usage: dict[str, Number] | None = Field(
        None, description="Usage the agent reported; self-reported, never counted as Accord's."
    )


class RemoteFailed(HarnessEvent):
    """The remote agent did not answer a request (no-show, deadline, protocol violation)."""

    type: Literal["remote_failed"] = "remote_failed"
    request_id: int | None = None
    kind: str | None = None
    error: str = ""


class RemoteIdentity(HarnessEvent):
    """What a remote agent said it is (name, version, framework): its own word, unchecked."""

    type: Literal["remote_identity"] = "remote_identity"
    self_reported: bool = Field(True, description="Always true: the agent's own word.")
    name: str = ""
    version: str | None = None
    framework: str | None = None


class RemoteUnauthenticated(HarnessEvent):
    """Calls without a valid token reached the seat server while this seat was open."""

    type: Literal["remote_unauthenticated"] = "remote_unauthenticated"
    calls: int = 0
    note: str = ""


HARNESS_EVENTS: dict[str, type[HarnessEvent]] = {
    cls.model_fields["type"].default: cls
    for cls in (
        ModelCall,
        ModelErrorEvent,
        ValidationErrorEvent,
        OutputFormatWarning,
        HeuristicFallback,
        ResponseFormatFallback,
        InvalidAction,
        HumanAction,
        HumanTimeout,
        GameFailed,
        Fork,
        RemoteJoin,
        RemoteRequest,
        RemoteCall,
        RemoteAction,
        RemoteFailed,
        RemoteUnauthenticated,
        RemoteIdentity,
    )
}
"""Every harness event model by its ``type``."""
assert tuple(HARNESS_EVENTS) == HARNESS_TYPES

_GAME = "game"


def _generic_game_event(excluded: Sequence[str]) -> type[GameEvent]:
    """`GameEvent` whose schema says its ``type`` is none of `excluded` (the types that have
    a model of their own), so a JSON schema validator picks exactly one model per event."""
    return create_model(
        "GameEvent",
        __base__=GameEvent,
        __doc__=GameEvent.__doc__,
        type=(
            str,
            Field(
                description="What happened: any type without a model of its own.",
                json_schema_extra={"not": {"enum": list(sorted(excluded))}},
            ),
        ),
    )


def event_union(event_types: Sequence[type[GameEvent]] = ()) -> Any:
    """The type of one trace event: a harness event by its ``type``, a game event of
    `event_types` by its declared ``type``, anything else a generic `GameEvent`."""
    games = game_event_models(event_types)
    clash = sorted(set(games) & set(HARNESS_EVENTS))
    if clash:
        raise TypeError(f"game event types {clash} are harness event types; rename them")
    known = {**HARNESS_EVENTS, **games}
    choices = [Annotated[model, Tag(kind)] for kind, model in known.items()]
    generic = _generic_game_event(list(known)) if games else GameEvent
    choices.append(Annotated[generic, Tag(_GAME)])
    return Annotated[Union[tuple(choices)], Discriminator(_tagger(known))]  # noqa: UP007


def _tagger(known: Mapping[str, type[TraceEvent]]) -> Callable[[Any], str]:
    """The discriminator: an event's ``type`` when it has a model, else the generic tag."""

    def tag(value: Any) -> str:
        # ``type(...) is dict`` first: events read from a file skip the slower ABC check.
        if type(value) is dict or isinstance(value, Mapping):
            kind = value.get("type")
        else:
            kind = getattr(value, "type", None)
        return kind if isinstance(kind, str) and kind in known else _GAME

    return tag


Event = Annotated[
    Annotated[ModelCall, Tag("model_call")]
    | Annotated[ModelErrorEvent, Tag("model_error")]
    | Annotated[ValidationErrorEvent, Tag("validation_error")]
    | Annotated[OutputFormatWarning, Tag("output_format_warning")]
    | Annotated[HeuristicFallback, Tag("heuristic_fallback")]
    | Annotated[ResponseFormatFallback, Tag("response_format_fallback")]
    | Annotated[InvalidAction, Tag("invalid_action")]
    | Annotated[HumanAction, Tag("human_action")]
    | Annotated[HumanTimeout, Tag("human_timeout")]
    | Annotated[GameFailed, Tag("game_failed")]
    | Annotated[Fork, Tag("fork")]
    | Annotated[RemoteJoin, Tag("remote_join")]
    | Annotated[RemoteRequest, Tag("remote_request")]
    | Annotated[RemoteCall, Tag("remote_call")]
    | Annotated[RemoteAction, Tag("remote_action")]
    | Annotated[RemoteFailed, Tag("remote_failed")]
    | Annotated[RemoteUnauthenticated, Tag("remote_unauthenticated")]
    | Annotated[RemoteIdentity, Tag("remote_identity")]
    | Annotated[GameEvent, Tag(_GAME)],
    Discriminator(_tagger(HARNESS_EVENTS)),
]
"""One trace event: a harness event by its ``type``, any other ``type`` a `GameEvent`."""

_EVENTS: TypeAdapter[list[Event]] = TypeAdapter(list[Event])


def to_events(items: Iterable[Mapping[str, Any] | TraceEvent]) -> list[Event]:
    """Typed events from event dicts (or events), each keeping its fields and their order."""
    return with_written(_EVENTS.validate_python, [_plain(e) for e in items])


def with_written(validate: Callable[[Any], list[Any]], items: list[Any]) -> list[Any]:
    """`validate(items)` (a list of event dicts to typed events), each event keeping the
    fields it was validated from as written (`keep_written`): one pass for the whole list,
    which is how a trace's events are read."""
    events = validate(items)
    for event, data in zip(events, items, strict=True):
        if type(data) is dict and "type" in data:  # as read from a file: the fast path
            event.__dict__[_WRITTEN] = dict(data)
        elif isinstance(data, Mapping) and isinstance(event, TraceEvent):
            keep_written(event, data)
    return events


def _plain(event: Mapping[str, Any] | TraceEvent) -> Mapping[str, Any]:
    return event.as_dict() if isinstance(event, TraceEvent) else event


def as_game_events(
    events: Sequence[TraceEvent], event_types: Sequence[type[GameEvent]]
) -> list[TraceEvent]:
    """`events` with each game event read as the model `event_types` declares for its type
    (checked against it: a field of the wrong type raises pydantic's ValidationError).

    Harness events and game events of a type not declared come back as they are.
    """
    item: Any = event_union(event_types)
    adapter: TypeAdapter[list[TraceEvent]] = TypeAdapter(list[item])
    return with_written(adapter.validate_python, [e.as_dict() for e in events])


def game_event_models(event_types: Sequence[type[GameEvent]]) -> dict[str, type[GameEvent]]:
    """A game's event models by the ``type`` each declares (a ``Literal`` default)."""
    out: dict[str, type[GameEvent]] = {}
    for model in event_types:
        kind = model.model_fields["type"].default
        if not isinstance(kind, str):
            raise TypeError(f"{model.__name__} must give `type` a Literal default")
        out[kind] = model
    return out
