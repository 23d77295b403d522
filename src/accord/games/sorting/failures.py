"""Failure modes of a sorting game, by rule (MAS-Bench §5.3, "Failure-mode Taxonomy").

The paper names five recurring patterns. Four are defined by what agents submitted, saw and
read, so they are decided here from the trace alone; the fifth, convention misalignment
(incompatible coordination conventions, e.g. index-based against value-range partitioning),
is about what the messages mean and is left to the LLM judge (`accord.games.sorting.judge`).

Every agent whose final submission is wrong gets exactly one label, the first that applies:

1. ``no_submission``: it never submitted in the final phase (deadlock or the round budget).
2. ``value_hallucination``: its submission has a value absent from every agent's list, or the
   wrong number of values (dropped or invented elements). Sort and max tasks only: prefix sums
   are not input values.
3. ``premature_submission``: it submitted before the information its answer needs had reached
   it: some value of its expected slice that is not in its own list (for prefix sums, the
   total of the lists before it, or all their values) appears in none of the replies it had
   read before submitting (nor in its first-phase result, in the second phase). Replies are
   searched for integers, ignoring agent ids, file ids, lengths and round numbers.
4. ``stale_kv_read`` (K-V backend): a key it read before submitting was rewritten or deleted
   by another agent after its last read and before its submission.
5. ``boundary_mismatch`` (sort task): it had the information and submitted real values, but
   the wrong partition: a run of the sorted order at the wrong offset, or values another agent
   also submitted.
6. ``other``: none of the above; the judge's convention-misalignment question covers these.

A game's label set is the labels of its wrong agents; a game where every agent is right has
none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from accord.traces.schema import Trace

FAILURE_MODES = (
    "no_submission",
    "value_hallucination",
    "premature_submission",
    "stale_kv_read",
    "boundary_mismatch",
    "other",
)
"""Rule-based labels, in the order they are tried."""

_INT = re.compile(r"-?\d+")
_NOT_VALUES = re.compile(r"Agent-\d+|id=\d+|length=\d+|round \d+|\(\d+ chars")
"""Numbers in harness replies that are ids, sizes or rounds, not list values."""


def _ints(text: str) -> set[int]:
    """The integers of a reply that can be list values (ids, sizes and rounds removed)."""
    return {int(v) for v in _INT.findall(_NOT_VALUES.sub(" ", text))}


def _final_phase_events(events: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    starts = [i for i, e in enumerate(events) if e.get("type") == "phase_start"]
    return list(events[starts[-1] :]) if starts else list(events)


def _needed(scenario: Mapping[str, Any], seat: int) -> tuple[set[int], int | None]:
    """Values the agent must learn from others, and (prefix sums) the total it needs."""
    xs = [list(x) for x in scenario["xs"]]
    own = set(xs[seat])
    kind = scenario.get("task", "sort")
    if kind == "prefix_sum":
        before = [v for x in xs[:seat] for v in x]
        return set(before), sum(before)
    return set(scenario["expected"][seat]) - own, None


class _KV:
    """Key versions over the final phase, to detect reads overtaken by other agents' writes."""

    def __init__(self) -> None:
        self.version: dict[str, int] = {}
        self.writer: dict[str, int] = {}
        self.read: dict[int, dict[str, int]] = {}

    def apply(self, seat: int, command: str, ok: bool, submitted: list[int] | None) -> None:
        parts = command.split(None, 1)
        verb = parts[0] if parts else ""
        arg = parts[1].split("\n", 1)[0].strip() if len(parts) > 1 else ""
        if not ok:
            return
        if verb in ("write_file", "delete_file"):
            self._bump(arg, seat)
        elif verb == "submit_result" and submitted is not None:
            self._bump(f"Agent-{seat}_submission.txt", seat)
        elif verb == "read_file":
            self.read.setdefault(seat, {})[arg] = self.version.get(arg, 0)

    def _bump(self, key: str, seat: int) -> None:
        self.version[key] = self.version.get(key, 0) + 1
        self.writer[key] = seat

    def stale(self, seat: int) -> bool:
        """A key `seat` read has since been changed by another agent."""
        return any(
            self.version.get(k, 0) != v and self.writer.get(k) != seat
            for k, v in self.read.get(seat, {}).items()
        )


def classify(trace: Trace) -> dict[int, str]:
    """The failure label of every agent whose final submission is wrong (module docstring)."""
    sc = trace.scenario
    if not sc or trace.status != "complete":
        return {}
    correct: list[bool] = list(trace.final_state.get("correct", []))
    subs: list[list[int] | None] = list(trace.final_state.get("submissions", []))
    kind = sc.get("task", "sort")
    universe = set(sc.get("global_input", []))
    events = _final_phase_events(trace.events)
    prev: list[list[int] | None] = list(events[0].get("prev") or []) if events else []
    seen: dict[int, set[int]] = {}
    kv = _KV()
    stale_at_submit: dict[int, bool] = {}
    seen_at_submit: dict[int, set[int]] = {}
    for e in events:
        if e.get("type") != "turn":
            continue
        seat = int(e["seat"])
        known = seen.setdefault(seat, set())
        for cmd in e.get("commands", []):
            submitted = cmd.get("submitted")
            if submitted is not None and seat not in seen_at_submit:
                seen_at_submit[seat] = set(known)
                stale_at_submit[seat] = kv.stale(seat)
            kv.apply(seat, cmd.get("command", ""), bool(cmd.get("ok")), submitted)
        # Replies are read at the start of the agent's next call, after this turn.
        for cmd in e.get("commands", []):
            known |= _ints(cmd.get("reply", ""))
    out: dict[int, str] = {}
    for seat, ok in enumerate(correct):
        if ok:
            continue
        sub = subs[seat] if seat < len(subs) else None
        if sub is None:
            out[seat] = "no_submission"
            continue
        if kind != "prefix_sum" and (
            len(sub) != int(sc.get("submit_len", len(sub))) or not set(sub) <= universe
        ):
            out[seat] = "value_hallucination"
            continue
        needed, total = _needed(sc, seat)
        known = seen_at_submit.get(seat, set()) | set(sc["xs"][seat])
        if seat < len(prev) and prev[seat]:
            known |= set(prev[seat] or [])
        has_total = total is not None and total in known
        if not has_total and not needed <= known:
            out[seat] = "premature_submission"
        elif sc.get("backend") == "kv" and stale_at_submit.get(seat, False):
            out[seat] = "stale_kv_read"
        elif kind == "sort" and _boundary(sub, seat, subs, sorted(universe)):
            out[seat] = "boundary_mismatch"
        else:
            out[seat] = "other"
    return out


def _boundary(
    sub: list[int], seat: int, subs: Sequence[list[int] | None], order: list[int]
) -> bool:
    others = {v for j, s in enumerate(subs) if j != seat and s is not None for v in s}
    if set(sub) & others:
        return True
    k = len(sub)
    windows = {tuple(order[i : i + k]) for i in range(0, max(0, len(order) - k + 1))}
    return tuple(sub) in windows


def game_modes(trace: Trace) -> list[str]:
    """The distinct failure labels of a game, in `FAILURE_MODES` order."""
    labels = set(classify(trace).values())
    return [m for m in FAILURE_MODES if m in labels]


def mode_counts(labels: Iterable[str]) -> dict[str, int]:
    """How often each failure mode occurs (every mode present, zero or more)."""
    counts = dict.fromkeys(FAILURE_MODES, 0)
    for lab in labels:
        counts[lab] = counts.get(lab, 0) + 1
    return counts
