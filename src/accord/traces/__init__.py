"""Versioned trace schema, atomic writer and reader."""

from accord.traces.io import (
    atomic_write_json,
    atomic_write_text,
    iter_traces,
    read_trace,
    write_jsonl,
    write_trace,
)
from accord.traces.schema import SCHEMA_VERSION, SeatInfo, SeatUsage, Trace

__all__ = [
    "SCHEMA_VERSION",
    "SeatInfo",
    "SeatUsage",
    "Trace",
    "atomic_write_json",
    "atomic_write_text",
    "iter_traces",
    "read_trace",
    "write_jsonl",
    "write_trace",
]
