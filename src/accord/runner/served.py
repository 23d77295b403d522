"""What the providers said they served: model ids and fingerprints per seat, for the summary.

Hosted models change under the same name. Each ``model_call`` event records the model id the
provider's reply named (``served_model``) and its ``system_fingerprint`` (``fingerprint``)
where it sends one (`accord.agents.llm`); the summary counts them per seat model, and a seat
that was served more than one model id or fingerprint within the run is flagged
(``changed: true``): its games may not be comparable with each other.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from accord.traces.schema import Trace

ServedCounts = tuple[tuple[str, str, str, int], ...]
"""``(seat model, "model" or "fingerprint", value, calls)`` of one trace."""

_KINDS = (("served_model", "model"), ("fingerprint", "fingerprint"))
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
    return tuple((seat, kind, value, n) for (seat, kind, value), n in sorted(counts.items()))


class ServedTally:
    """`served_counts` summed over a run's traces."""

    def __init__(self) -> None:
        self._seen: dict[str, dict[str, Counter[str]]] = {}

    def add(self, counts: ServedCounts) -> None:
        """Count one trace's calls."""
        for seat, kind, value, n in counts:
            kinds = self._seen.setdefault(seat, {"model": Counter(), "fingerprint": Counter()})
            found = kinds[kind]
            if value in found or len(found) < _MAX_VALUES:
                found[value] += n

    def result(self) -> dict[str, Any]:
        """Per seat model: the model ids and fingerprints served (with call counts) and
        whether either changed within the run; empty when no provider said."""
        return {
            seat: {
                "models": dict(kinds["model"].most_common()),
                "fingerprints": dict(kinds["fingerprint"].most_common()),
                "changed": len(kinds["model"]) > 1 or len(kinds["fingerprint"]) > 1,
            }
            for seat, kinds in sorted(self._seen.items())
        }


def served_summary(traces: Iterable[Trace]) -> dict[str, Any]:
    """`ServedTally.result` of `traces`."""
    tally = ServedTally()
    for trace in traces:
        tally.add(served_counts(trace))
    return tally.result()
