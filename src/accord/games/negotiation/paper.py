"""Negotiation ("grounding") reproduction kit (seed 004 §4, §5, §5.1-§5.7, App. B, App. E,
App. F.1, Tables 3, 4, 9, 10 and 11, Figures 2 and 3, and the numbers §5 states).

* Table 3 (and Figure 2): the main grid of §4, as ``experiments/paper-grid.yaml`` plays it: the
  three compatibility ratios M/C × stable/shifting partners × fixed/rotating projects, every
  pair of the given models (self-play included), 5 games per cell each played twice with the
  first speaker swapped (the paper's N = 10 per cell). Rows pool partner and projects per ratio.
* Table 10 (and Figure 3): self-play with cheap talk (the self-play games of the same grid) and
  the no-talk baseline of §5.1: self-play, ``cheap_talk: false``, N = 4 games per model ×
  partner stability × M/C cell (2 games, first speaker swapped). Rows per model, partner
  stability, M/C and talk condition.

* Table 4 (strategy rates, App. E): every talk game of the main grid with fixed projects,
  pooled over dyads; each game's own rate is one observation.
* Table 9 (§5.7, full transparency): every cross-play pair of the given models (only Qwen 3.5
  Flash × GPT-5 Mini, as the paper, when both are given) plays the main grid's cells again
  with ``transparency: full`` (N = 10 per cell, 120 per pair, as the paper);
  its baseline rows are the pair's main-grid games. Rows per pair, transparency, partner
  stability and M/C (projects pooled, as the paper's table).
* Table 11 (additional models): the self-play games of the main grid, per model and M/C.
* The numbers §5 states (``results`` in ``data/grounding.yaml``) are means over the games their
  ``match`` selects, each game's own rate (the paper pools rounds; with four rounds a game the
  two agree for per-round rates).

A model of the paper's App. B, Table 6 is called with the paper's settings (temperature,
completion cap, one-second cooldown). The paper has no scripted protocol rows, so every
table needs ``--model``. ``--smoke``: stable partners, fixed projects, one game per cell.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from accord.reproduce.compare import (
    TEXT,
    Observation,
    describe,
    model_matches,
    models_match,
    observation,
)
from accord.reproduce.kit import Kit, Request
from accord.runner.config import Batch
from accord.runner.specs import GameSpec
from accord.traces.schema import Trace

RATIOS: tuple[float, ...] = (0.5, 0.8, 1.0)
PARTNERS: tuple[str, ...] = ("stable", "shifting")
PROJECTS: tuple[str, ...] = ("fixed", "rotating")
METRICS: tuple[str, ...] = ("overdraw_rate", "efficiency", "optimum_rate")


class GroundingKit(Kit):
    """Tables 3 and 10 of the negotiation paper (module docstring)."""

    paper = "grounding"
    game = "negotiation"
    model_tables = frozenset({"3", "4", "9", "10", "11"})

    def batches(self, request: Request) -> list[Batch]:
        """The main grid (cross-play), and the no-talk self-play cells for Table 10."""
        smoke = request.smoke
        partners = PARTNERS[:1] if smoke else PARTNERS
        projects = PROJECTS[:1] if smoke else PROJECTS
        models = [m.model_dump(exclude_none=True) for m in request.models]
        out = []
        if {"3", "4", "9", "10", "11"} & set(request.tables):
            for ratio, partner, proj in itertools.product(RATIOS, partners, projects):
                out.append(
                    self._batch(
                        f"talk-ratio={ratio},partner={partner},projects={proj}",
                        {"ratio": ratio, "partner": partner, "projects": proj},
                        {"crossplay": models},
                        games=1 if smoke else 5,
                        swap=not smoke,
                    )
                )
        if "9" in request.tables and len(models) > 1:
            for ratio, partner, proj in itertools.product(RATIOS, partners, projects):
                out.append(
                    self._batch(
                        f"transparent-ratio={ratio},partner={partner},projects={proj}",
                        {"ratio": ratio, "partner": partner, "projects": proj,
                         "transparency": "full"},
                        {"crossplay": models},
                        games=1 if smoke else 5,
                        swap=not smoke,
                    )
                )  # fmt: skip
        if "10" in request.tables:
            for i, model in enumerate(models):
                for ratio, partner in itertools.product(RATIOS, partners):
                    out.append(
                        self._batch(
                            f"notalk-m{i}-ratio={ratio},partner={partner}",
                            {"ratio": ratio, "partner": partner, "cheap_talk": False},
                            {"agents": [model, model]},
                            games=1 if smoke else 2,
                            swap=not smoke,
                        )
                    )
        if smoke:
            request.notes.append(
                "Smoke grid: stable partners, fixed projects, one game per cell; not the "
                "paper's numbers."
            )
        return out

    def _batch(
        self, name: str, options: dict[str, Any], seats: dict[str, Any], *, games: int, swap: bool
    ) -> Batch:
        return Batch.model_validate(
            {
                "name": name,
                "game": self.game,
                "games": games,
                "seed": 0,
                "swap_first_speaker": swap,
                "options": options,
                **seats,
            }
        )

    def select(self, specs: list[GameSpec], request: Request) -> list[GameSpec]:
        """Transparency games of cross-play pairs only (only the paper's pair when its models are
        given); without a table that needs cross-play
        (3, 4, 9), only the self-play games of the main grid (Tables 10 and 11)."""
        crossplay = bool({"3", "4", "9"} & set(request.tables))
        paper_pair = [str(m) for m in self.published.table("9").rows[0].identity["models"]]
        given = [m.model or "" for m in request.models]
        only_paper_pair = all(any(model_matches(g, p) for g in given) for p in paper_pair)
        keep = []
        for spec in specs:
            models = sorted({a.model or "" for a in spec.agents})
            pair = len(models) == 2
            if spec.options.get("transparency", "none") != "none":
                # The paper ran the intervention on one pair; with its models, so do we.
                if pair and (not only_paper_pair or models_match(models, paper_pair)):
                    keep.append(spec)
            elif crossplay or not pair:
                keep.append(spec)
        return keep

    def row_label(self, identity: Mapping[str, Any]) -> str:
        """``a × b · M/C=0.5`` or ``a · stable · M/C=0.5 · no talk``."""
        if "models" not in identity:  # a row pooled over every dyad (Table 4)
            return "all dyads · " + describe(identity)
        parts = [" × ".join(map(str, identity.get("models", ())))]
        if "transparency" in identity:
            parts.append("transparent" if identity["transparency"] != "none" else "baseline")
        if "partner" in identity:
            parts.append(str(identity["partner"]))
        parts.append(f"M/C={identity.get('ratio')}")
        if "cheap_talk" in identity:
            parts.append("talk" if identity["cheap_talk"] else "no talk")
        return " · ".join(parts)

    def observe(self, trace: Trace) -> list[Observation]:
        """Tables 3, 4, 9, 10 and 11 (module docstring) and the §5 numbers (`TEXT`)."""
        models = sorted(str(s.model) for s in trace.seats if s.model)
        if len(models) != 2:
            return []
        cfg = trace.config
        values = _values(trace.metrics)
        ratio = cfg.get("ratio")
        talk = bool(cfg.get("cheap_talk", True))
        transparency = str(cfg.get("transparency") or "none")
        selfplay = models[0] == models[1]
        pair = models[:1] if selfplay else models
        partner = cfg.get("partner")
        main = talk and transparency == "none"
        out = [
            observation(
                TEXT,
                {"models": pair, "ratio": ratio, "partner": partner, "projects":
                 cfg.get("projects"), "cheap_talk": talk, "transparency": transparency,
                 "selfplay": selfplay},
                values,
            )
        ]  # fmt: skip
        if main:
            out.append(observation("3", {"models": pair, "ratio": ratio}, values))
            if cfg.get("projects") == "fixed":
                out.append(observation("4", {"projects": "fixed"}, values))
        if talk and not selfplay:
            ident = {"models": pair, "transparency": transparency, "partner": partner}
            out.append(observation("9", ident | {"ratio": ratio}, values))
        if selfplay and transparency == "none":
            ident = {"models": pair, "partner": partner, "ratio": ratio, "cheap_talk": talk}
            out.append(observation("10", ident, values))
            if talk:
                out.append(observation("11", {"models": pair, "ratio": ratio}, values))
        return out


RATES: tuple[str, ...] = (
    "payoff_alternation",
    "full_alternation",
    "win_stay",
    "lose_shift",
    "any_optimum",
    "first_optimum_round",
    "positive_after_overdraw",
    "equal_split",
    "perfunctory_share",
    "perfunctory_fairness",
    "repeat",
    "repeat_after_overdraw",
    "stubborn_anchoring",
    "proposal",
    "deference_round1",
    "deference_optimal",
    "deference_suboptimal",
)
"""The process metrics of `accord.games.negotiation.metrics` the §5 numbers and Table 4 use."""


def _values(metrics: Mapping[str, Any]) -> dict[str, Any]:
    """A game's outcome metrics, 1 - overdraw (§5.1) and its process rates (None when a rate
    has no denominator in this game)."""
    values: dict[str, Any] = {k: metrics.get(k) for k in METRICS}
    over = values["overdraw_rate"]
    values["no_overdraw"] = 1.0 - over if isinstance(over, int | float) else None
    detail = metrics.get("detail")
    for key in RATES:
        rate = detail.get(key) if isinstance(detail, Mapping) else None
        values[key] = rate.get("rate") if isinstance(rate, Mapping) else None
    return values
