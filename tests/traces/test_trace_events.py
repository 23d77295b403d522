"""Typed trace events: harness events by type, game events generic or as the game declares,
every field kept in the order it was written, and a trace that writes back byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import pytest
from pydantic import ValidationError

from accord.core.registry import game_class
from accord.testing.golden import GOLDEN, normalize
from accord.traces.events import (
    HARNESS_EVENTS,
    GameEvent,
    HeuristicFallback,
    ModelCall,
    ValidationErrorEvent,
    as_game_events,
    to_events,
)
from accord.traces.io import read_trace, write_trace
from accord.traces.schema import SCHEMA_VERSION, Trace

GOLDEN_DIR = Path(__file__).parents[1] / "golden"
DATA = Path(__file__).parent / "data"


def test_harness_events_load_as_their_models_and_game_events_as_generic_ones() -> None:
    events = to_events(
        [
            {"type": "model_call", "t": 1, "seat": 0, "round": 1, "kind": "talk", "call": 1},
            {"type": "validation_error", "t": 2, "seat": 1, "error": "not JSON", "raw": "x"},
            {"type": "heuristic_fallback", "t": 3, "seat": 1, "error": "e", "action": {"a": 1}},
            {"type": "my_plugin_event", "t": 4, "anything": [1, {"b": 2}], "nested": {"c": 3}},
        ]
    )
    assert [type(e) for e in events] == [
        ModelCall,
        ValidationErrorEvent,
        HeuristicFallback,
        GameEvent,
    ]
    call, error, fallback, plugin = events
    assert call.call == 1 and call.kind == "talk" and call.input_tokens == 0
    assert error.error == "not JSON" and fallback.action == {"a": 1}
    # An undeclared game event keeps every field, readable as attributes or as a mapping.
    assert plugin["anything"] == [1, {"b": 2}] and plugin.get("nested") == {"c": 3}
    assert plugin.as_dict() == {
        "type": "my_plugin_event",
        "t": 4,
        "anything": [1, {"b": 2}],
        "nested": {"c": 3},
    }


def test_an_event_writes_back_only_the_fields_it_had_in_their_order() -> None:
    written = {"type": "model_call", "t": 7, "latency_s": 0, "seat": 1, "zz": None, "kind": "x"}
    (event,) = to_events([written])
    assert list(event.as_dict()) == list(written)  # order kept, no defaults added
    assert event.as_dict() == written
    assert event.model_dump_json() == json.dumps(written, separators=(",", ":"))
    assert isinstance(event.as_dict()["latency_s"], int)  # 0 stays 0, not 0.0
    # Read like the dicts they replace.
    assert event["seat"] == 1 and "kind" in event and "retries" not in event
    assert event.get("retries", "none") == "none" and dict(event) == written
    with pytest.raises(KeyError):
        event["retries"]


def test_a_harness_event_with_a_field_of_the_wrong_type_is_refused() -> None:
    with pytest.raises(ValidationError):
        to_events([{"type": "model_call", "t": 1, "input_tokens": "many"}])
    with pytest.raises(ValidationError):
        to_events([{"type": "anything", "t": "soon"}])


def test_every_harness_event_type_has_a_model_named_by_its_type() -> None:
    for kind, model in HARNESS_EVENTS.items():
        (event,) = to_events([{"type": kind, "t": 1, "seat": 0}])
        assert type(event) is model and event.type == kind


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_golden_traces_write_back_byte_for_byte(case: str, tmp_path: Path) -> None:
    source = GOLDEN_DIR / f"{case}.json"
    trace = read_trace(source)
    assert trace.schema_version == SCHEMA_VERSION
    assert normalize(json.loads(trace.model_dump_json())) == json.loads(source.read_text())
    written = write_trace(tmp_path, trace).read_text()
    assert read_trace(tmp_path / f"{trace.trace_id}.json").model_dump_json(indent=1) + "\n" == (
        written
    )


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_game_events_of_built_in_games_read_as_their_declared_models(case: str) -> None:
    trace = read_trace(GOLDEN_DIR / f"{case}.json")
    declared = game_class(trace.game_id).event_types
    assert declared, f"{trace.game_id} declares no event models"
    typed = as_game_events(trace.events, declared)
    game_events = [e for e in typed if e.type not in HARNESS_EVENTS]
    assert game_events and all(type(e) in declared for e in game_events)
    assert [e.as_dict() for e in typed] == [e.as_dict() for e in trace.events]


class _Ping(GameEvent):
    type: Literal["ping"] = "ping"
    n: int


def test_declared_game_events_are_checked_and_others_stay_generic() -> None:
    events = to_events([{"type": "ping", "t": 1, "n": 3}, {"type": "pong", "t": 2}])
    ping, pong = as_game_events(events, [_Ping])
    assert isinstance(ping, _Ping) and ping.n == 3
    assert type(pong).__name__ == "GameEvent" and isinstance(pong, GameEvent)
    with pytest.raises(ValidationError):
        as_game_events(to_events([{"type": "ping", "t": 1, "n": "three"}]), [_Ping])


def test_a_game_may_not_reuse_a_harness_event_type() -> None:
    class Clash(GameEvent):
        type: Literal["model_call"] = "model_call"

    with pytest.raises(TypeError, match="harness event types"):
        as_game_events([], [Clash])


def test_a_trace_built_in_code_types_its_events() -> None:
    trace = Trace(
        trace_id="x",
        game_id="g-v1",
        game="g",
        seed=1,
        config={},
        events=[{"type": "game_failed", "t": 1, "error": "boom"}],
        status="failed",
    )
    assert trace.events[0].type == "game_failed" and trace.events[0]["error"] == "boom"
    assert json.loads(trace.model_dump_json())["events"] == [
        {"type": "game_failed", "t": 1, "error": "boom"}
    ]


def test_a_trace_survives_pickling_and_copies_with_its_events_as_written() -> None:
    import copy
    import pickle

    trace = read_trace(DATA / "v2-negotiation-fallbacks.json")
    text = trace.model_dump_json()
    for again in (pickle.loads(pickle.dumps(trace)), copy.deepcopy(trace), trace.model_copy()):
        assert again.model_dump_json() == text
        assert again.events == trace.events
