"""Backward-from-witness scenario generation (CalBench App. A.1 "Calendar construction").

Steps, each from its own random stream under the scenario seed (`make_rng(seed, "calendar", ...)`)
so that changing one part never shifts another:

1. Participants: fixed `participant_lists`, or rotating sets of `participants_per_meeting` agents
   chosen least-used-first (ties broken at random) so every agent meets about equally often.
2. Witness (App. A.1 step 1): each meeting in order draws a slot uniformly from the slots no
   earlier meeting took. App. A.1 only excludes slots used by the meeting's own participants; we
   exclude every used slot because the oracle forbids two meetings in one slot (§3 "Task
   difficulty"), and the witness must be feasible under the oracle's rules.
3. Errands (step 2): agent i holds n_i = min(floor(S * rho_i), S - k_i) errands, k_i being its
   number of witness slots. The cap keeps one absorbing slot free per witness errand (step 3);
   the published files show the same cap (density 1.0 gives 16 - k_i errands).
   With `force_witness_errand` the witness slots are filled first (all of them when n_i >= k_i),
   then one absorbing free slot per witness errand is reserved among the other slots, then the
   remaining errands go to random non-witness, non-absorbing slots. Without it, errand slots are a
   uniform sample and the absorbing slots are reserved afterwards.
4. Blocked errands: `num_blocked` per agent, chosen among errands off the agent's witness slots,
   so no blocked errand sits where the witness needs to go.
5. Costs (step 4): uniform setting, all 1; varied setting, levels 1..L either balanced per agent
   (each level equally often, ±1, as the published files do) or i.i.d. Uniform[1, L] (App. A.1
   step 4 literally). Meeting costs are Uniform[1, meeting_cost_level].
6. Private labels (App. A.1 "Private label hydration"), see `labels.py`.

Step 5 of App. A.1 (oracle numbers) is `oracle.compute_oracle`, kept out of the scenario so a
scenario stays pure data.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from pydantic import ValidationError

from accord.core.errors import ConfigError
from accord.core.rng import make_rng
from accord.games.calendar.labels import draw_labels
from accord.games.calendar.scenario import (
    CostSetting,
    Errand,
    Meeting,
    Scenario,
    ScenarioParams,
    describe_validation_error,
)

# Guards floor(S * rho) against binary rounding, e.g. 100 * 0.29 = 28.999999999999996.
_EPS = 1e-9


def generate_scenario(
    seed: int,
    *,
    num_agents: int = 5,
    num_slots: int = 16,
    density: float | Sequence[float] = 0.6,
    num_meetings: int = 5,
    participants_per_meeting: int | None = 3,
    participant_lists: Sequence[Sequence[int]] | None = None,
    pref_level: int | None = None,
    errand_cost_level: int | None = None,
    meeting_cost_level: int = 1,
    num_blocked: int | Sequence[int] = 0,
    force_witness_errand: bool = True,
    cost_setting: CostSetting = "uniform",
    balanced_costs: bool = True,
    task_id: str | None = None,
) -> Scenario:
    """A solvable-by-construction scenario from `seed` and the App. A.1 Table 3 parameters.

    `density` and `num_blocked` take one shared value or one per agent. `pref_level` defaults to 1
    in the uniform setting and 3 in the varied one; `errand_cost_level` overrides it. When
    `participant_lists` is given it fixes each meeting's participants and
    `participants_per_meeting` is ignored. Raises `ConfigError` for impossible parameters.
    """
    try:
        params = ScenarioParams(
            num_agents=num_agents,
            num_slots=num_slots,
            density=float(density) if isinstance(density, int | float) else tuple(density),
            num_meetings=num_meetings,
            participants_per_meeting=None
            if participant_lists is not None
            else participants_per_meeting,
            participant_lists=(
                None
                if participant_lists is None
                else tuple(tuple(sorted(group)) for group in participant_lists)
            ),
            pref_level=pref_level
            if pref_level is not None
            else (3 if cost_setting == "varied" else 1),
            errand_cost_level=errand_cost_level,
            meeting_cost_level=meeting_cost_level,
            num_blocked=num_blocked if isinstance(num_blocked, int) else tuple(num_blocked),
            force_witness_errand=force_witness_errand,
            cost_setting=cost_setting,
            balanced_costs=balanced_costs,
        )
    except ValidationError as exc:
        problem = describe_validation_error(exc, whole="parameters")
        raise ConfigError(f"generate_scenario: {problem}") from None
    return generate_from_params(seed, params, task_id=task_id)


def generate_from_params(
    seed: int, params: ScenarioParams, *, task_id: str | None = None
) -> Scenario:
    """Build the scenario for `seed` from already validated `params` (see `generate_scenario`)."""
    n, s = params.num_agents, params.num_slots
    groups = _participants(params, make_rng(seed, "calendar", "participants"))
    witness = _witness(len(groups), s, make_rng(seed, "calendar", "witness"))

    layouts: list[dict[int, tuple[int, bool]]] = []  # per agent: slot -> (cost, blocked)
    absorbing: list[tuple[int, ...]] = []
    for agent in range(n):
        own = sorted(witness[m] for m, group in enumerate(groups) if agent in group)
        layout, landing = _agent_calendar(seed, agent, own, params)
        layouts.append(layout)
        absorbing.append(landing)

    meeting_rng = make_rng(seed, "calendar", "meeting-costs")
    meeting_costs = [meeting_rng.randint(1, params.meeting_cost_level) for _ in groups]

    label_rng = make_rng(seed, "calendar", "labels")
    total_errands = sum(len(layout) for layout in layouts)
    errand_labels = iter(draw_labels(label_rng, "errand", total_errands))
    meeting_labels = draw_labels(label_rng, "meeting", len(groups))

    next_id = 1
    calendars: list[tuple[Errand | None, ...]] = []
    for layout in layouts:
        cal: list[Errand | None] = [None] * s
        for slot in sorted(layout):
            cost, blocked = layout[slot]
            cal[slot] = Errand(id=next_id, cost=cost, blocked=blocked, label=next(errand_labels))
            next_id += 1
        calendars.append(tuple(cal))

    meetings = tuple(
        Meeting(id=i + 1, participants=group, cost=meeting_costs[i], label=meeting_labels[i])
        for i, group in enumerate(groups)
    )
    return Scenario(
        task_id=task_id or f"generated-{seed}",
        seed=seed,
        num_slots=s,
        calendars=tuple(calendars),
        meetings=meetings,
        cost_setting=params.cost_setting,
        cost_display="log10" if params.cost_setting == "varied" else "linear",
        params=params,
        witness={i + 1: slot for i, slot in enumerate(witness)},
        absorbing=tuple(absorbing),
    )


def _participants(params: ScenarioParams, rng: random.Random) -> list[tuple[int, ...]]:
    """Participant sets per meeting: fixed lists, or a least-used-first rotation."""
    if params.participant_lists is not None:
        return [tuple(sorted(group)) for group in params.participant_lists]
    size = params.participants_per_meeting
    assert size is not None  # ScenarioParams guarantees one of the two is set
    counts = [0] * params.num_agents
    groups: list[tuple[int, ...]] = []
    for _ in range(params.num_meetings):
        order = sorted(range(params.num_agents), key=lambda a: (counts[a], rng.random()))
        group = tuple(sorted(order[:size]))
        for a in group:
            counts[a] += 1
        groups.append(group)
    return groups


def _witness(num_meetings: int, num_slots: int, rng: random.Random) -> list[int]:
    """One distinct witness slot per meeting, each uniform over the slots still unused."""
    free = list(range(num_slots))
    out: list[int] = []
    for _ in range(num_meetings):
        out.append(free.pop(rng.randrange(len(free))))
    return out


def _agent_calendar(
    seed: int, agent: int, own_witness: list[int], params: ScenarioParams
) -> tuple[dict[int, tuple[int, bool]], tuple[int, ...]]:
    """One agent's errand layout (slot -> (cost, blocked)) and its absorbing slots."""
    rng = make_rng(seed, "calendar", "agent", agent)
    s, k = params.num_slots, len(own_witness)
    wanted = math.floor(s * params.density_of(agent) + _EPS)
    count = min(wanted, s - k)
    witness_set = set(own_witness)
    others = [slot for slot in range(s) if slot not in witness_set]

    if params.force_witness_errand:
        on_witness = rng.sample(own_witness, min(k, count))
        landing = rng.sample(others, len(on_witness))
        taken = set(landing)
        rest = [slot for slot in others if slot not in taken]
        errand_slots = on_witness + rng.sample(rest, count - len(on_witness))
    else:
        errand_slots = rng.sample(range(s), count)
        occupied = set(errand_slots)
        needed = len(witness_set & occupied)
        free_others = [slot for slot in others if slot not in occupied]
        landing = rng.sample(free_others, needed)

    movable_candidates = sorted(slot for slot in errand_slots if slot not in witness_set)
    blocked_count = params.blocked_of(agent)
    if blocked_count > len(movable_candidates):
        raise ConfigError(
            f"agent {agent} has only {len(movable_candidates)} errands off its witness slots, so "
            f"it cannot hold {blocked_count} blocked errands; lower num_blocked or raise density"
        )
    blocked = set(rng.sample(movable_candidates, blocked_count))

    costs = _errand_costs(make_rng(seed, "calendar", "costs", agent), count, params)
    layout = {
        slot: (cost, slot in blocked)
        for slot, cost in zip(sorted(errand_slots), costs, strict=True)
    }
    return layout, tuple(sorted(landing))


def _errand_costs(rng: random.Random, count: int, params: ScenarioParams) -> list[int]:
    """Internal errand costs, in slot order, for one agent."""
    level = params.cost_level
    if level == 1:
        levels = [1] * count
    elif params.balanced_costs:
        # Each level appears floor(count / L) times; the remainder goes to distinct random levels.
        levels = list(range(1, level + 1)) * (count // level)
        levels += rng.sample(range(1, level + 1), count % level)
        rng.shuffle(levels)
    else:
        levels = [rng.randint(1, level) for _ in range(count)]
    values = params.errand_cost_values
    return [values[lv - 1] if values is not None else lv for lv in levels]
