"""The experiment files of the sorting game expand into the §5 grid (MAS-Bench §5, App. G.3)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from accord.runner.config import expand, load_experiment
from accord.runner.specs import GameSpec

EXPERIMENTS = Path(__file__).resolve().parents[3] / "experiments"
NS, KS = {1, 3, 5, 10, 20}, {1, 5, 10}
BACKENDS = {"broadcast", "p2p", "kv"}
MODES = {"asc", "near_asc", "random", "near_desc", "desc"}
CONDITIONS = {"base", "camoc", "abl-submit", "abl-message"}


def games(name: str) -> list[GameSpec]:
    return expand(load_experiment(EXPERIMENTS / f"sorting-{name}.yaml"))


def cells(specs: list[GameSpec]) -> Counter[tuple[object, ...]]:
    keys = ("backend", "n", "k", "mode", "condition")
    return Counter(
        (s.agents[0].display, *(s.options[k] for k in keys), s.options.get("task", "sort"))
        for s in specs
    )


@pytest.mark.parametrize(("name", "teams", "repeats"), [("grid", 3, 3), ("reference", 2, 2)])
def test_the_scaling_grid_is_complete(name: str, teams: int, repeats: int) -> None:
    specs = games(name)
    found = cells(specs)
    assert {c[1] for c in found} == BACKENDS and {c[2] for c in found} == NS
    assert {c[3] for c in found} == KS and {c[4] for c in found} == MODES
    assert {c[5] for c in found} == CONDITIONS and {c[6] for c in found} == {"sort"}
    assert len({c[0] for c in found}) == teams
    assert len(found) == teams * 3 * 5 * 3 * 5 * 4
    assert set(found.values()) == {repeats}
    # Every seat of a team plays the same agent, one per agent (N seats).
    assert all(
        len(s.agents) == s.options["n"] and len({a.display for a in s.agents}) == 1 for s in specs
    )
    assert len({s.trace_id for s in specs}) == len(specs)


def test_the_paper_models_and_round_budget() -> None:
    specs = games("grid")
    models = {s.agents[0].model for s in specs}
    assert models == {
        "openrouter/deepseek/deepseek-chat-v3.1",
        "openrouter/qwen/qwen3-next-80b-a3b-instruct",
        "openrouter/openai/gpt-oss-120b",
    }
    assert {s.options["max_rounds"] for s in specs} == {100}


def test_the_small_local_model_and_extension_files() -> None:
    local = games("smollm2")
    assert {s.agents[0].model for s in local} == {"local/smollm2"}
    assert {s.options["backend"] for s in local} == BACKENDS
    assert {s.options["condition"] for s in local} == {"base", "camoc"}
    assert max(s.options["n"] for s in local) <= 3
    tasks = games("tasks")
    assert {s.options["task"] for s in tasks} == {"max", "prefix_sum", "sort"}
    assert {s.options["condition"] for s in tasks} == CONDITIONS
    # Table 9 compares the paper's three models: every one plays every task and condition.
    per_model = Counter(
        (s.agents[0].model, s.options["task"], s.options["condition"]) for s in tasks
    )
    assert {m for m, _, _ in per_model} == {
        "openrouter/deepseek/deepseek-chat-v3.1",
        "openrouter/qwen/qwen3-next-80b-a3b-instruct",
        "openrouter/openai/gpt-oss-120b",
    }
    assert len(per_model) == 3 * 3 * 4 and len(set(per_model.values())) == 1
    assert len(tasks) == 3_888
