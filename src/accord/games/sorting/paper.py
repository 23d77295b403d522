"""MAS-Bench reproduction kit (MAS-Bench §5.1-§5.3, Tables 1-3, Figure 2, App. B, App. C Table 4,
App. G.4 Table 11).

The grid of §5: the sorting task over N ∈ {1, 3, 5, 10, 20} agents, K ∈ {1, 5, 10} values each,
the three backends, the five input families of Table 3 and the four conditions of Table 1 (Base,
CAMOC and its two ablations), R_max = 100 rounds per phase (App. F.1), decoding at the
provider's defaults (App. B.4). Each model plays it as a homogeneous team.

Sampling: the paper ran 1,050 games per model (App. C, Table 4) from a grid of 900 cells
without saying which. We play every cell once and 150 cells a second time, the 150 drawn
uniformly from a generator seeded by the paper name, so every cell is covered, the count is
the paper's and the choice is reproducible.

The scripted floor (our reference agents; the paper has no scripted protocol): ``share-all``
(full exchange, then one correct submission) and ``local-sort`` (no communication) play every
cell once. They need no model and run by default; their rows have no published value.

Table 11 (App. G.4) is Table 1's P2P cells per condition, its rows the paper's Qwen3-Next.
Figure 2 (drawn only in the paper, no numbers printed) is each team's SR, R, TE and CR against
N, each the mean over K, input families and backends; the caption names those three, so the
conditions pool too. The token and cost tables (4, 6-8) and the other-task tables (9, 10) are
listed with the reason the kit cannot reproduce them (``data/mas-bench.yaml``).

Table 1 rows are per model, condition and backend; Tables 2 and 3 pool the model teams (the
paper pools its three models) and list each scripted floor on its own. ``--smoke``: N ∈ {1, 3},
K = 1, the three backends, the ``random`` family, Base and CAMOC, R_max = 4.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from accord.core.ids import slug
from accord.core.rng import make_rng
from accord.reproduce.compare import TEXT, Observation, observation
from accord.reproduce.kit import Kit, Request
from accord.runner.config import Batch
from accord.runner.specs import GameSpec
from accord.traces.schema import Trace

BACKENDS: tuple[str, ...] = ("broadcast", "p2p", "kv")
NS: tuple[int, ...] = (1, 3, 5, 10, 20)
KS: tuple[int, ...] = (1, 5, 10)
MODES: tuple[str, ...] = ("asc", "near_asc", "random", "near_desc", "desc")
CONDITIONS: tuple[str, ...] = ("base", "camoc", "abl-submit", "abl-message")
MAX_ROUNDS = 100
"""R_max per phase (App. F.1)."""

PAPER_GAMES_PER_MODEL = 1050
"""Games per model in the paper (App. C, Table 4)."""

FLOORS: tuple[str, ...] = ("share-all", "local-sort")
"""Scripted reference teams (no published rows)."""

SMOKE: dict[str, tuple[Any, ...]] = {
    "n": (1, 3),
    "k": (1,),
    "backend": BACKENDS,
    "mode": ("random",),
    "condition": ("base", "camoc"),
}
SMOKE_ROUNDS = 4


def _cells(smoke: bool) -> list[dict[str, Any]]:
    axes = (
        SMOKE
        if smoke
        else {"n": NS, "k": KS, "backend": BACKENDS, "mode": MODES, "condition": CONDITIONS}
    )
    keys = list(axes)
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*axes.values())]


class MasBenchKit(Kit):
    """Tables 1-3 of MAS-Bench and the scripted floor (module docstring)."""

    paper = "mas-bench"
    game = "sorting"
    reference_tables = frozenset({"1", "2", "3", "F2"})
    model_tables = frozenset({"1", "2", "3", "11", "F2"})

    def batches(self, request: Request) -> list[Batch]:
        """One batch per team and grid cell; model teams get two repeats (then sampled)."""
        rounds = SMOKE_ROUNDS if request.smoke else MAX_ROUNDS
        teams: list[tuple[str, Any, int]] = [(f, f, 1) for f in FLOORS]
        if request.models and not request.smoke:
            request.notes.append(
                f"Sampling: the paper played {PAPER_GAMES_PER_MODEL} games per model from its "
                "900-cell grid without saying which; each model plays every cell once and 150 "
                "cells twice (drawn with a fixed seed)."
            )
        else:
            request.notes.append(
                "Smoke grid: N in {1, 3}, K = 1, three backends, the random family, Base and "
                "CAMOC, R_max = 4; not the paper's numbers."
            )
        for i, model in enumerate(request.models):
            teams.append((f"m{i}", model, 1 if request.smoke else 2))
        out = []
        for tag, agent, repeats in teams:
            for cell in _cells(request.smoke):
                name = f"{tag}-{cell['backend']}-n{cell['n']}-k{cell['k']}-{cell['mode']}-"
                out.append(
                    Batch.model_validate(
                        {
                            "name": slug(name + str(cell["condition"])),
                            "game": self.game,
                            "games": repeats,
                            "seed": 0,
                            "agents": [agent],
                            "options": {"task": "sort", "max_rounds": rounds, **cell},
                        }
                    )
                )
        return out

    def select(self, specs: list[GameSpec], request: Request) -> list[GameSpec]:
        """Every first repeat; of the second repeats of each model, the sampled 150 cells."""
        if request.smoke:
            return specs
        second: dict[str, list[GameSpec]] = {}
        chosen: set[str] = set()
        for spec in specs:
            repeat = int(spec.labels.get("repeat", 0))
            if repeat == 0:
                chosen.add(spec.trace_id)
            else:
                team = str(spec.labels.get("batch", "")).split("-", 1)[0]
                second.setdefault(team, []).append(spec)
        extra = PAPER_GAMES_PER_MODEL - len(_cells(False))
        for team, pool in sorted(second.items()):
            rng = make_rng(0, "reproduce", self.paper, team)
            chosen |= {s.trace_id for s in rng.sample(pool, min(extra, len(pool)))}
        # Keep the plan's order, so the games run (and resume) in the order they were expanded.
        return [s for s in specs if s.trace_id in chosen]

    def row_label(self, identity: Mapping[str, Any]) -> str:
        """``model · camoc · kv``, ``models · N=3 · p2p · K=5``, ``share-all · random``."""
        who = identity.get("model") or identity.get("team")
        if who == "models":
            who = "models (pooled)"
        parts = [str(who)]
        if "n" in identity and "backend" not in identity:  # Figure 2: a team at one N
            parts.append(f"N={identity['n']}")
        elif "n" in identity:
            parts += [f"N={identity['n']}", str(identity["backend"]), f"K={identity['k']}"]
        else:
            parts += [str(identity[k]) for k in ("condition", "backend", "mode") if k in identity]
        return " · ".join(parts)

    def observe(self, trace: Trace) -> list[Observation]:
        """Table 1 (per team, condition, backend) and Tables 2-3 (pooled model teams)."""
        from accord.games.sorting.report import game_row

        if trace.config.get("task", "sort") != "sort":
            return []
        row = game_row(trace)
        values = {k: row.get(k) for k in ("sr", "rounds", "te", "cr")}
        models = sorted({s.model for s in trace.seats if s.model})
        if models:
            who: dict[str, Any] = {"model": models[0] if len(models) == 1 else " + ".join(models)}
            pooled = "models"
        else:
            who = {"team": row["model"]}
            pooled = str(row["model"])
        cell = {"condition": row["condition"], "backend": row["backend"]}
        sr = values["sr"]
        failure = {"failure": 1.0 - sr if isinstance(sr, int | float) else None}
        out = [
            observation("1", who | cell, values),
            observation("F2", who | {"n": row["n"]}, values),
            observation(
                TEXT,
                {"n": row["n"], "backend": row["backend"], "model_teams": bool(models)},
                failure,
            ),
            observation(
                "2",
                {"team": pooled, "n": row["n"], "backend": row["backend"], "k": row["k"]},
                {"sr": values["sr"]},
            ),
            observation("3", {"team": pooled, "mode": row["mode"]}, values),
        ]
        if row["backend"] == "p2p" and models:
            out.append(observation("11", who | cell, {"sr": sr}))
        return out
