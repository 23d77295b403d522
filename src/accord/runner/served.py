"""What the providers said they served: model ids, fingerprints and version headers per seat,
for the summary.

Hosted models change under the same name. Each ``model_call`` event records the model id the
provider's reply named (``served_model``), its ``system_fingerprint`` (``fingerprint``) and its
version headers (``versions``: `accord.models.versions`) where it sends them
(`accord.agents.llm`); the summary counts them per seat model, and a seat that was served more
than one model id, fingerprint, or value of one version header within the run is flagged
(``changed: true``, and ``accord run`` and ``accord report`` say so): its games may not be
comparable with each other. A version header is counted as ``name: value``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from accord.traces.schema import Trace

ServedCounts = tuple[tuple[str, str, str, int], ...]
"""``(seat model, "model", "fingerprint" or "version", value, calls)`` of one trace."""

_KINDS = (("served_model", "model"), ("fingerprint", "fingerprint"))
_ALL_KINDS = ("model", "fingerprint", "version")
_MAX_VALUES = 50
"""Distinct values kept per seat model and kind (a provider answering with a new id per call
must not grow the summary without bound)."""


def served_counts(trace: Trace) -> ServedCounts:
    """What one trace's model calls were served, counted."""
    counts: Counter[tuple[str, str, str]] = Counter()
    models = {s.seat: s.identity for s in trace.seats}
    for event in trace.events:
        if event.get("type") != "model_call":
            continue
        seat = models.get(event.get("seat", -1)) or "?"
        for field, kind in _KINDS:
            value = event.get(field)
            if isinstance(value, str) and value:
                counts[(seat, kind, value)] += 1
        versions = event.get("versions")
        if isinstance(versions, dict):
            for name, value in versions.items():
                counts[(seat, "version", f"{name}: {value}")] += 1
    return tuple((seat, kind, value, n) for (seat, kind, value), n in sorted(counts.items()))


class ServedTally:
    """`served_counts` summed over a run's traces."""

    def __init__(self) -> None:
        self._seen: dict[str, dict[str, Counter[str]]] = {}

    def add(self, counts: ServedCounts) -> None:
        """Count one trace's calls."""
        for seat, kind, value, n in counts:
            kinds = self._seen.setdefault(seat, {k: Counter() for k in _ALL_KINDS})
            found = kinds.setdefault(kind, Counter())
            if value in found or len(found) < _MAX_VALUES:
                found[value] += n

    def result(self) -> dict[str, Any]:
        """Per seat model: the model ids, fingerprints and version headers served (with call
        counts) and whether any changed within the run; empty when no provider said. The
        ``versions`` key is there only when a provider sent version headers."""
        out: dict[str, Any] = {}
        for seat, kinds in sorted(self._seen.items()):
            versions = kinds.get("version", Counter())
            entry: dict[str, Any] = {
                "models": dict(kinds["model"].most_common()),
                "fingerprints": dict(kinds["fingerprint"].most_common()),
            }
            if versions:
                entry["versions"] = dict(sorted(versions.items()))
            entry["changed"] = bool(changes(entry))
            out[seat] = entry
        return out


def served_summary(traces: Iterable[Trace]) -> dict[str, Any]:
    """`ServedTally.result` of `traces`."""
    tally = ServedTally()
    for trace in traces:
        tally.add(served_counts(trace))
    return tally.result()


def header_values(versions: Iterable[str]) -> dict[str, set[str]]:
    """``{"name: value", ...}`` grouped by header name."""
    out: dict[str, set[str]] = {}
    for item in versions:
        name, _, value = item.partition(": ")
        out.setdefault(name, set()).add(value)
    return out


def changes(entry: dict[str, Any]) -> list[str]:
    """What changed within a run for one seat model's ``served`` entry: ``model``,
    ``fingerprint`` and ``version <header>`` for each that took more than one value."""
    found = []
    if len(entry.get("models") or {}) > 1:
        found.append("model")
    if len(entry.get("fingerprints") or {}) > 1:
        found.append("fingerprint")
    for name, values in sorted(header_values(entry.get("versions") or {}).items()):
        if len(values) > 1:
            found.append(f"version {name}")
    return found
