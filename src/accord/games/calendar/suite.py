"""The canonical calendar suite (CalBench §4.1).

90 tasks: 45 in the uniform-cost setting and 45 in the varied-cost setting, each 15 easy, 15
medium and 15 hard by the feasible fraction d (`counting.difficulty_bucket`). Every task has 5
agents, 16 slots, 5 meetings with 3 rotating participants, a density per agent drawn from
{0.6, 0.8, 1.0} and a blocked-errand count per task drawn from {2, 4, 6} (every agent of the task
gets that many).

Construction is deterministic: for each setting, candidate i draws its densities and blocked
count from `make_rng(seed, "calendar", "canonical", setting, i)` and is generated with
`derive_seed(seed, "calendar", "canonical", setting, i)`; candidates are taken in order while
their bucket still has room, until all three buckets are full. Uniform and varied candidates
come from separate streams, so the two halves are independent tasks.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from accord.core.rng import derive_seed, make_rng
from accord.games.calendar.counting import Difficulty, difficulty_bucket, feasible_fraction
from accord.games.calendar.generator import generate_scenario
from accord.games.calendar.scenario import CostSetting, Scenario

CANONICAL_AGENTS = 5
CANONICAL_SLOTS = 16
CANONICAL_MEETINGS = 5
CANONICAL_PARTICIPANTS = 3
CANONICAL_DENSITIES: tuple[float, ...] = (0.6, 0.8, 1.0)
CANONICAL_BLOCKED: tuple[int, ...] = (2, 4, 6)
CANONICAL_PER_BUCKET = 15
BUCKETS: tuple[Difficulty, ...] = ("easy", "medium", "hard")
SETTINGS: tuple[CostSetting, ...] = ("uniform", "varied")

_MAX_CANDIDATES = 20_000  # far above need (a few hundred); stops a runaway loop if rules change


def canonical_candidate(seed: int, setting: CostSetting, index: int) -> Scenario:
    """Candidate `index` of the canonical pool for `setting`, before bucketing."""
    rng = make_rng(seed, "calendar", "canonical", setting, index)
    densities = [rng.choice(CANONICAL_DENSITIES) for _ in range(CANONICAL_AGENTS)]
    blocked = rng.choice(CANONICAL_BLOCKED)
    return generate_scenario(
        derive_seed(seed, "calendar", "canonical", setting, index),
        num_agents=CANONICAL_AGENTS,
        num_slots=CANONICAL_SLOTS,
        density=densities,
        num_meetings=CANONICAL_MEETINGS,
        participants_per_meeting=CANONICAL_PARTICIPANTS,
        num_blocked=blocked,
        cost_setting=setting,
        task_id=f"canonical-{setting}-candidate-{index}",
    )


def build_canonical_suite(
    seed: int = 0, *, per_bucket: int = CANONICAL_PER_BUCKET
) -> list[Scenario]:
    """The canonical suite: for each setting, `per_bucket` tasks per difficulty bucket, ordered
    uniform then varied, easy then medium then hard."""
    suite: list[Scenario] = []
    for setting in SETTINGS:
        chosen: dict[Difficulty, list[Scenario]] = {b: [] for b in BUCKETS}
        index = 0
        while any(len(v) < per_bucket for v in chosen.values()):
            if index >= _MAX_CANDIDATES:
                raise RuntimeError(
                    f"{setting}: {_MAX_CANDIDATES} candidates did not fill every bucket; "
                    "the difficulty thresholds no longer suit the generator"
                )
            candidate = canonical_candidate(seed, setting, index)
            bucket = difficulty_bucket(feasible_fraction(candidate))
            if len(chosen[bucket]) < per_bucket:
                task_id = f"canonical-{setting}-{bucket}-{len(chosen[bucket]) + 1:02d}"
                chosen[bucket].append(candidate.model_copy(update={"task_id": task_id}))
            index += 1
        for bucket in BUCKETS:
            suite.extend(chosen[bucket])
    return suite


def write_suite(
    path: str | Path, scenarios: Iterable[Scenario] | None = None, *, seed: int = 0
) -> Path:
    """Write `scenarios` (default: the canonical suite for `seed`) as JSONL, one per line."""
    items = list(scenarios) if scenarios is not None else build_canonical_suite(seed)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    # Write then rename, so an interrupted run never leaves a half-written suite behind.
    with tmp.open("w", encoding="utf-8") as fh:
        for scenario in items:
            fh.write(scenario.model_dump_json())
            fh.write("\n")
    tmp.replace(out)
    return out
