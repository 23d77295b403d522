"""Reading traces of older schema versions as the current version (`SCHEMA_VERSION`).

Every readable older version is upgraded as it is read, one step at a time, so each step
states exactly what changed:

- 1 -> 2: nothing to move (version 2 only added optional fields: transcripts, decision and
  fallback counts).
- 2 -> 3: events became typed (`accord.traces.events`) and provenance explicit
  (`accord.core.provenance`): the in-band ``_fallback`` / ``_warnings`` keys that older
  Accords left inside the ``action`` of ``heuristic_fallback`` events are dropped; whether a
  decision was a fallback is the event itself.

A version this Accord does not know is left alone (the reader refuses it with one line).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

CURRENT = 3
"""The version `upgrade` produces (`accord.traces.schema.SCHEMA_VERSION`)."""

IN_BAND_KEYS = ("_fallback", "_warnings")
"""Provenance keys version 2 kept inside a fallback's action; version 3 has none."""


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    return data


def _v2_to_v3(data: dict[str, Any]) -> dict[str, Any]:
    events = data.get("events")
    if isinstance(events, list):
        data["events"] = [_without_in_band(e) for e in events]
    return data


def _without_in_band(event: Any) -> Any:
    if not isinstance(event, dict):
        return event
    action = event.get("action")
    if isinstance(action, dict) and any(k in action for k in IN_BAND_KEYS):
        event = {**event, "action": {k: v for k, v in action.items() if k not in IN_BAND_KEYS}}
    return event


_STEPS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _v1_to_v2, 2: _v2_to_v3}


def upgrade(data: Any) -> Any:
    """`data` (a trace as read from JSON) upgraded to `CURRENT`; anything else unchanged."""
    if not isinstance(data, dict):
        return data
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version not in _STEPS:
        return data
    data = dict(data)
    while version in _STEPS:
        data = _STEPS[version](data)
        version += 1
    data["schema_version"] = version
    return data
