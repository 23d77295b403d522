"""Import of the published CalBench task files (CalBench §4.1, App. A.1; data under the MIT
licence in ``data/calbench/LICENSE``).

Two 108-task suites ship with the package: ``calbench-uniform`` and ``calbench-varied``. Each line
is one task: per-agent calendars (``null`` or ``{errand_id, cost}``), meetings, generation
parameters and the publisher's oracle numbers. `load_suite` turns every line into a `Scenario`
and keeps those numbers in `Scenario.published`. It also reads Accord's own suite files (one
`Scenario` per line, as written by `suite.write_suite`) and the name ``canonical``.

What the published numbers mean (established against all 216 records, see docs/calendar.md):

* ``optimal.cost`` is exactly our static oracle's minimum (`oracle.optimal_schedule`);
* ``witness_solution.cost`` is the static cost of the witness assignment;
* ``greedy.cost`` is not a first-clearable-slot greedy: every record lists all meetings on
  slot 0, and the cost is what stacking every meeting on slot 0 costs when each one displaces
  whatever the previous one left there (`published_greedy_cost`);
* ``optimal_evictions`` counts errand moves when the optimal assignment is applied meeting by
  meeting and each displaced errand drops into its calendar's lowest free slot, where a later
  meeting may displace it again (`published_eviction_count`);
* ``difficulty`` is a per-configuration tertile of ``difficulty_score`` = optimal cost per
  participant slot, not of the feasible fraction d.

Internal costs are kept as published (1/100/1000 in the varied file) so the optima reproduce.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from accord.core.errors import ConfigError
from accord.core.rng import make_rng
from accord.games.calendar.labels import draw_labels
from accord.games.calendar.scenario import (
    Errand,
    Meeting,
    PublishedReference,
    Scenario,
    ScenarioParams,
    describe_validation_error,
)

BUILTIN_FILES: dict[str, str] = {
    "calbench-uniform": "uniform_full.jsonl",
    "calbench-varied": "varied_full.jsonl",
}
"""Suite names that resolve to the packaged CalBench files."""

SUITE_NAMES: tuple[str, ...] = (*BUILTIN_FILES, "canonical")
"""Every suite name `load_suite` accepts besides a file path."""


def load_suite(name_or_path: str | Path) -> list[Scenario]:
    """Scenarios of a named suite (``calbench-uniform``, ``calbench-varied``, ``canonical``) or
    of a JSONL file of CalBench records or Accord scenarios. Bad input raises `ConfigError`
    naming the line and the field."""
    key = str(name_or_path)
    if key in BUILTIN_FILES:
        data = resources.files("accord.games.calendar").joinpath(
            "data/calbench", BUILTIN_FILES[key]
        )
        return parse_suite_text(data.read_text("utf-8"), label=key, file_name=BUILTIN_FILES[key])
    if key == "canonical":
        from accord.games.calendar.suite import build_canonical_suite

        return build_canonical_suite()
    path = Path(name_or_path)
    if not path.is_file():
        raise ConfigError(
            f"no suite named {key!r} and no such file; use one of {list(SUITE_NAMES)} or a path "
            "to a .jsonl file"
        )
    return parse_suite_text(path.read_text("utf-8"), label=str(path), file_name=path.name)


def parse_suite_text(text: str, *, label: str, file_name: str) -> list[Scenario]:
    """Parse JSONL `text` (CalBench records and/or Accord scenarios). `label` names the input in
    errors; imported tasks record only `file_name` as their source, never a directory."""
    out: list[Scenario] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{label}, line {number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"{where}: not valid JSON ({exc.msg}); write one object per line"
            ) from None
        if not isinstance(record, dict):
            raise ConfigError(f"{where}: expected a JSON object, got {type(record).__name__}")
        if "cost_setting" in record:
            try:
                out.append(Scenario.model_validate(record))
            except ValidationError as exc:
                problem = describe_validation_error(exc, whole="record")
                raise ConfigError(f"{where}: {problem}") from None
        else:
            out.append(scenario_from_record(record, where=where, source=f"calbench:{file_name}"))
    if not out:
        raise ConfigError(f"{label}: no tasks found; the file must hold one JSON task per line")
    return out


def _get(
    obj: Mapping[str, Any], name: str, kind: type | tuple[type, ...], where: str, path: str
) -> Any:
    """`obj[name]`, checked to be of `kind`; errors name the dotted field path."""
    field = f"{path}.{name}" if path else name
    if name not in obj:
        raise ConfigError(f"{where}: missing field '{field}'")
    value = obj[name]
    # bool is an int subclass; a flag where a number belongs is still an error.
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _as_tuple(kind)):
        raise ConfigError(f"{where}: field '{field}' has the wrong type ({type(value).__name__})")
    return value


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def scenario_from_record(record: Mapping[str, Any], *, where: str, source: str) -> Scenario:
    """Convert one published CalBench record to a `Scenario` (labels drawn from its seed)."""
    seed = _get(record, "seed", int, where, "")
    raw_params = _get(record, "params", dict, where, "")
    pref_level = _get(raw_params, "pref_level", int, where, "params")
    values = raw_params.get("errand_cost_values")
    if values is not None and not isinstance(values, list):
        raise ConfigError(f"{where}: field 'params.errand_cost_values' must be a list of costs")
    meeting_range = _get(raw_params, "meeting_cost_range", list, where, "params")
    if not all(isinstance(c, int) and not isinstance(c, bool) for c in meeting_range):
        raise ConfigError(f"{where}: field 'params.meeting_cost_range' must list integer costs")
    raw_cals = _get(record, "calendars", list, where, "")

    calendars: list[list[tuple[int, int, bool] | None]] = []
    for a, raw_cal in enumerate(raw_cals):
        if not isinstance(raw_cal, list):
            raise ConfigError(f"{where}: field 'calendars.{a}' must be a list of slots")
        cal: list[tuple[int, int, bool] | None] = []
        for s, item in enumerate(raw_cal):
            path = f"calendars.{a}.{s}"
            if item is None:
                cal.append(None)
                continue
            if not isinstance(item, dict):
                raise ConfigError(f"{where}: field '{path}' must be null or an errand object")
            if "meeting_id" in item:
                raise ConfigError(
                    f"{where}: field '{path}' holds a prior meeting; initial calendars may only "
                    "hold errands"
                )
            blocked = item.get("blocked", False)
            if not isinstance(blocked, bool):
                raise ConfigError(f"{where}: field '{path}.blocked' must be true or false")
            cal.append(
                (
                    _get(item, "errand_id", int, where, path),
                    _get(item, "cost", int, where, path),
                    blocked,
                )
            )
        calendars.append(cal)

    raw_meetings = _get(record, "meetings", list, where, "")
    meeting_parts: list[tuple[int, tuple[int, ...], int, Any]] = []
    for j, raw in enumerate(raw_meetings):
        path = f"meetings.{j}"
        if not isinstance(raw, dict):
            raise ConfigError(f"{where}: field '{path}' must be a meeting object")
        participants = _get(raw, "participants", list, where, path)
        if not all(isinstance(p, int) and not isinstance(p, bool) for p in participants):
            raise ConfigError(f"{where}: field '{path}.participants' must list agent indices")
        meeting_parts.append(
            (
                _get(raw, "id", int, where, path),
                tuple(sorted(participants)),
                _get(raw, "cost", int, where, path),
                raw.get("duration", 1),
            )
        )

    label_rng = make_rng(seed, "calendar", "labels")
    n_errands = sum(item is not None for cal in calendars for item in cal)
    errand_labels = iter(draw_labels(label_rng, "errand", n_errands))
    meeting_labels = draw_labels(label_rng, "meeting", len(meeting_parts))

    optimal = _get(record, "optimal", dict, where, "")
    witness = _get(record, "witness_solution", dict, where, "")
    greedy = _get(record, "greedy", dict, where, "")
    try:
        params = ScenarioParams(
            num_agents=_get(raw_params, "total_agents", int, where, "params"),
            num_slots=_get(raw_params, "num_slots", int, where, "params"),
            density=float(_get(raw_params, "density", (int, float), where, "params")),
            num_meetings=_get(raw_params, "num_meetings", int, where, "params"),
            participants_per_meeting=_get(raw_params, "subset_size", int, where, "params"),
            pref_level=pref_level,
            errand_cost_values=tuple(values) if values is not None and pref_level > 1 else None,
            meeting_cost_level=max(meeting_range) if meeting_range else 1,
            cost_setting="varied" if pref_level > 1 else "uniform",
        )
        scenario = Scenario(
            task_id=_get(record, "task_id", str, where, ""),
            seed=seed,
            num_slots=params.num_slots,
            calendars=tuple(
                tuple(
                    None
                    if item is None
                    else Errand(
                        id=item[0], cost=item[1], blocked=item[2], label=next(errand_labels)
                    )
                    for item in cal
                )
                for cal in calendars
            ),
            meetings=tuple(
                Meeting(id=mid, participants=ps, cost=cost, duration=dur, label=meeting_labels[j])
                for j, (mid, ps, cost, dur) in enumerate(meeting_parts)
            ),
            cost_setting=params.cost_setting,
            cost_display="linear",
            params=params,
            witness=_assignment(witness, where, "witness_solution"),
            absorbing=tuple(() for _ in calendars),
            source=source,
            published=PublishedReference(
                task_id=_get(record, "task_id", str, where, ""),
                seed=seed,
                optimal_cost=_get(optimal, "cost", int, where, "optimal"),
                optimal_assignment=_assignment(optimal, where, "optimal"),
                optimal_evictions=_get(record, "optimal_evictions", int, where, ""),
                greedy_cost=_get(greedy, "cost", int, where, "greedy"),
                witness_cost=_get(witness, "cost", int, where, "witness_solution"),
                feasible=_get(record, "feasible", bool, where, ""),
                difficulty=_get(record, "difficulty", str, where, ""),
                difficulty_score=float(_get(record, "difficulty_score", (int, float), where, "")),
            ),
        )
    except ValidationError as exc:
        problem = describe_validation_error(exc, whole="record")
        raise ConfigError(f"{where}: {problem}") from None
    if scenario.num_agents != params.num_agents:
        raise ConfigError(
            f"{where}: field 'calendars' has {scenario.num_agents} agents but "
            f"params.total_agents says {params.num_agents}"
        )
    return scenario


def _assignment(obj: Mapping[str, Any], where: str, path: str) -> dict[int, int]:
    raw = _get(obj, "assignments", dict, where, path)
    try:
        return {int(k): int(v) for k, v in raw.items()}
    except (TypeError, ValueError):
        raise ConfigError(
            f"{where}: field '{path}.assignments' must map meeting ids to slots"
        ) from None


def published_greedy_cost(scenario: Scenario) -> int:
    """The published ``greedy.cost``: every meeting stacked on slot 0, each displacing whatever
    sits there (an errand's cost the first time, then the previous meeting's cost)."""
    occupant = [0 if cal[0] is None else cal[0].cost for cal in scenario.calendars]
    total = 0
    for meeting in scenario.meetings:
        for agent in meeting.participants:
            total += occupant[agent]
            occupant[agent] = meeting.cost
    return total


def published_eviction_count(scenario: Scenario, slots: Mapping[int, int]) -> int:
    """The published ``optimal_evictions`` for the assignment `slots`: errand moves when the
    meetings are applied in order and each displaced errand drops into the lowest free slot."""
    # Per agent, per slot: "free", "errand" or "meeting".
    state = [["free" if item is None else "errand" for item in cal] for cal in scenario.calendars]
    moves = 0
    for meeting in scenario.meetings:
        if meeting.id not in slots:
            continue
        slot = slots[meeting.id]
        for agent in meeting.participants:
            row = state[agent]
            if row[slot] == "errand":
                moves += 1
                landing = next((t for t, kind in enumerate(row) if kind == "free"), None)
                if landing is not None:
                    row[landing] = "errand"
            row[slot] = "meeting"
    return moves
