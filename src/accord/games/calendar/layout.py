"""Hand-made calendar tasks from a compact text layout (CalBench App. A.1 "Calendar data model").

Useful for examples, teaching scenarios and tests that need an exact situation. Each agent's
calendar is a string of whitespace-separated slot tokens:

* ``.``: free;
* ``2``: a movable errand of internal cost 2;
* ``b2``: a blocked errand of cost 2.

``scenario_from_layout([". 1 . b1", "1 . . ."], [[0, 1]])`` gives two agents with four slots
and one meeting of both. Errands are numbered 1.. in agent then slot order, meetings 1..M;
labels are drawn from the label bank with `seed`, like generated tasks.
"""

from __future__ import annotations

from collections.abc import Sequence

from accord.core.errors import ConfigError
from accord.core.rng import make_rng
from accord.games.calendar.labels import draw_labels
from accord.games.calendar.placement import slot_clearable
from accord.games.calendar.scenario import CostSetting, Errand, Meeting, Scenario, ScenarioParams


def _token(token: str, where: str) -> tuple[int, bool] | None:
    if token == ".":
        return None
    blocked = token.startswith("b")
    digits = token[1:] if blocked else token
    if not digits.isdigit():
        raise ConfigError(f"{where}: slot token {token!r} must be '.', a cost like '2' or 'b2'")
    return int(digits), blocked


def scenario_from_layout(
    calendars: Sequence[str],
    meetings: Sequence[Sequence[int]],
    *,
    seed: int = 0,
    cost_setting: CostSetting = "uniform",
    meeting_cost: int = 1,
    task_id: str = "layout",
) -> Scenario:
    """A `Scenario` from per-agent slot strings and per-meeting participant lists.

    The witness is the lowest-numbered clearable slot of each meeting not used by an earlier one
    (hand-made tasks need not be solvable; a meeting without any gets slot 0)."""
    rows = [[_token(t, f"agent {a}") for t in text.split()] for a, text in enumerate(calendars)]
    num_slots = len(rows[0]) if rows else 0
    if not rows or any(len(r) != num_slots for r in rows):
        raise ConfigError("every agent's layout must list the same number of slots")
    rng = make_rng(seed, "calendar", "labels")
    count = sum(item is not None for row in rows for item in row)
    errand_labels = iter(draw_labels(rng, "errand", count))
    meeting_labels = draw_labels(rng, "meeting", len(meetings))
    next_id = 1
    cals: list[tuple[Errand | None, ...]] = []
    for row in rows:
        cal: list[Errand | None] = []
        for item in row:
            if item is None:
                cal.append(None)
                continue
            cal.append(Errand(id=next_id, cost=item[0], blocked=item[1], label=next(errand_labels)))
            next_id += 1
        cals.append(tuple(cal))
    groups = [tuple(sorted(g)) for g in meetings]
    ms = tuple(
        Meeting(id=i + 1, participants=g, cost=meeting_cost, label=meeting_labels[i])
        for i, g in enumerate(groups)
    )
    params = ScenarioParams(
        num_agents=len(rows),
        num_slots=num_slots,
        density=0.0,
        num_meetings=len(groups),
        participants_per_meeting=None,
        participant_lists=tuple(groups),
        pref_level=3 if cost_setting == "varied" else 1,
        cost_setting=cost_setting,
        meeting_cost_level=max(1, meeting_cost),
    )
    draft = Scenario(
        task_id=task_id,
        seed=seed,
        num_slots=num_slots,
        calendars=tuple(cals),
        meetings=ms,
        cost_setting=cost_setting,
        cost_display="log10" if cost_setting == "varied" else "linear",
        params=params,
        witness={m.id: 0 for m in ms},
        absorbing=tuple(() for _ in rows),
    )
    witness: dict[int, int] = {}
    for m in ms:
        used = set(witness.values())
        free = [s for s in range(num_slots) if s not in used and slot_clearable(draft, m, s)]
        witness[m.id] = free[0] if free else 0
    return draft.model_copy(update={"witness": witness})
