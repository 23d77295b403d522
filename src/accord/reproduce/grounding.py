"""Negotiation ("grounding") reproduction kit (seed 004 §4, §5, §5.1, App. B, App. F.1,
Tables 3 and 10, Figures 2 and 3).

* Table 3 (and Figure 2): the main grid of §4, as ``experiments/paper-grid.yaml`` plays it: the
  three compatibility ratios M/C × stable/shifting partners × fixed/rotating projects, every
  pair of the given models (self-play included), 5 games per cell each played twice with the
  first speaker swapped (the paper's N = 10 per cell). Rows pool partner and projects per ratio.
* Table 10 (and Figure 3): self-play with cheap talk (the self-play games of the same grid) and
  the no-talk baseline of §5.1: self-play, ``cheap_talk: false``, N = 4 games per model ×
  partner stability × M/C cell (2 games, first speaker swapped). Rows per model, partner
  stability, M/C and talk condition.

A model of the paper's App. B, Table 6 is called with the paper's settings (temperature,
completion cap, one-second cooldown). The paper has no scripted protocol rows, so every
table needs ``--model``. ``--smoke``: stable partners, fixed projects, one game per cell.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from accord.reproduce.compare import Observation, observation
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
    model_tables = frozenset({"3", "10"})

    def batches(self, request: Request) -> list[Batch]:
        """The main grid (cross-play), and the no-talk self-play cells for Table 10."""
        smoke = request.smoke
        partners = PARTNERS[:1] if smoke else PARTNERS
        projects = PROJECTS[:1] if smoke else PROJECTS
        models = [m.model_dump(exclude_none=True) for m in request.models]
        out = []
        if {"3", "10"} & set(request.tables):
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
        """Without Table 3, only the self-play games of the main grid (Table 10's talk rows)."""
        if "3" in request.tables:
            return specs
        return [s for s in specs if len({a.model for a in s.agents}) == 1]

    def row_label(self, identity: Mapping[str, Any]) -> str:
        """``a × b · M/C=0.5`` or ``a · stable · M/C=0.5 · no talk``."""
        parts = [" × ".join(map(str, identity.get("models", ())))]
        if "partner" in identity:
            parts.append(str(identity["partner"]))
        parts.append(f"M/C={identity.get('ratio')}")
        if "cheap_talk" in identity:
            parts.append("talk" if identity["cheap_talk"] else "no talk")
        return " · ".join(parts)

    def observe(self, trace: Trace) -> list[Observation]:
        """Table 3 (talk games, per pair and ratio) and Table 10 (self-play, per model,
        partner, ratio and talk condition)."""
        models = sorted(str(s.model) for s in trace.seats if s.model)
        if len(models) != 2:
            return []
        cfg = trace.config
        values = {k: trace.metrics.get(k) for k in METRICS}
        ratio = cfg.get("ratio")
        talk = bool(cfg.get("cheap_talk", True))
        out = []
        pair = models if models[0] != models[1] else models[:1]
        if talk:
            out.append(observation("3", {"models": pair, "ratio": ratio}, values))
        if len(pair) == 1:
            ident = {
                "models": pair,
                "partner": cfg.get("partner"),
                "ratio": ratio,
                "cheap_talk": talk,
            }
            out.append(observation("10", ident, values))
        return out
