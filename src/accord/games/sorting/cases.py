"""Test cases of the sorting game: the golden traces (`accord.testing.golden`: small scripted games
whose traces are committed under tests/golden) and the prompt cases (`accord.testing.
prompt_cases`: seeded games under every prompt condition with the mock model in every seat).
Declared in this package's `INFO`.
"""

from __future__ import annotations

from typing import Any

from accord.core.gameinfo import PromptCases

GOLDEN: dict[str, dict[str, Any]] = {
    "sorting-share-all-broadcast": {
        "options": {"n": 3, "k": 2, "backend": "broadcast", "mode": "random"},
        "seed": 21,
        "agents": ["share-all"] * 3,
    },
    "sorting-share-all-kv-camoc": {
        "options": {"n": 2, "k": 3, "backend": "kv", "mode": "near_desc", "condition": "camoc"},
        "seed": 22,
        "agents": ["share-all"] * 2,
    },
    "sorting-local-sort-p2p-prefix-sum": {
        "options": {"n": 3, "k": 2, "backend": "p2p", "mode": "asc", "task": "prefix_sum"},
        "seed": 23,
        "agents": ["local-sort"] * 3,
    },
}

PROMPTS = PromptCases(
    cases={
        f"{task}-{backend}-{condition}": {
            "n": 2, "k": 2, "task": task, "backend": backend, "condition": condition,
            "max_rounds": 2,
        }
        for task in ("sort", "max", "prefix_sum")
        for backend in ("broadcast", "p2p", "kv")
        for condition in (("camoc", "base") if backend == "broadcast" else ("camoc",))
    },
    seats=lambda options: int(options["n"]),
)  # fmt: skip
"""Every task and backend; CAMOC (two phases: the rerun prompt too) and, on broadcast, base."""
