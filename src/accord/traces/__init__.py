"""Versioned trace schema (typed events: `accord.traces.events`), atomic writer and reader."""

from accord.traces.events import Event, GameEvent, TraceEvent
from accord.traces.io import (
    atomic_write_json,
    atomic_write_text,
    iter_traces,
    read_trace,
    write_jsonl,
    write_trace,
)
from accord.traces.schema import SCHEMA_VERSION, SeatInfo, SeatUsage, Trace, trace_json_schema

__all__ = [
    "SCHEMA_VERSION",
    "Event",
    "GameEvent",
    "SeatInfo",
    "SeatUsage",
    "Trace",
    "TraceEvent",
    "atomic_write_json",
    "atomic_write_text",
    "iter_traces",
    "read_trace",
    "trace_json_schema",
    "write_jsonl",
    "write_trace",
]
