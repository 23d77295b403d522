"""What a reproduction kit is: one paper's grid as experiment batches, and how its games
become rows of the paper's tables.

A kit never plays anything itself. `Kit.batches` describes the paper's exact grid for the chosen
tables as `accord.runner.config.Batch` objects (so the games are expanded, seeded, resumed and
reported exactly like any ``accord run``); `Kit.select` may then keep a subset of the expanded
games where the paper played a sample of its grid, or where ``--smoke`` asks for a reduced one;
`Kit.observe` reads one complete trace into `Observation` rows of the tables it belongs to.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from accord.reproduce.compare import Observation, describe, model_matches
from accord.reproduce.published import PublishedPaper, load_published
from accord.runner.config import Batch
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.schema import Trace


@dataclass
class Request:
    """What the user asked to reproduce."""

    tables: list[str]
    """Table ids to play, in the paper's numbering."""
    models: list[AgentSpec]
    """The model seats (empty: reference rows only)."""
    smoke: bool = False
    """A reduced grid that runs in seconds with the mock model (not the paper's numbers)."""
    notes: list[str] = field(default_factory=list)
    """What the plan chose and why, for the printed plan and reproduction.md."""


class Kit(ABC):
    """One paper's reproduction (see the module docstring)."""

    paper: str
    """The name on the command line (``calbench``, ``mas-bench``, ``grounding``)."""
    game: str
    """The game the paper's benchmark is."""
    reference_tables: frozenset[str] = frozenset()
    """Tables with rows that need no model (reference protocols, scripted floors)."""
    model_tables: frozenset[str] = frozenset()
    """Tables with rows played by the ``--model`` seats."""
    known_gaps: Mapping[str, Mapping[str, str]] = {}
    """Documented differences from the paper: table id -> the first word of a row label (an
    agent or model) -> where the difference is explained. reproduction.md points each "no"
    of such a row there, so a known finding does not read as a new failure."""

    @property
    def published(self) -> PublishedPaper:
        """The paper's published numbers."""
        return load_published(self.paper)

    @abstractmethod
    def batches(self, request: Request) -> list[Batch]:
        """The batches of the paper's grid for `request` (reference rows included)."""

    def select(self, specs: list[GameSpec], request: Request) -> list[GameSpec]:
        """The games to play among the expanded `specs` (default: all of them)."""
        del request
        return specs

    @abstractmethod
    def observe(self, trace: Trace) -> list[Observation]:
        """The table rows one complete trace contributes to."""

    def row_label(self, identity: Mapping[str, Any]) -> str:
        """How one of our rows is named in the write-up (default: its identity)."""
        return describe(identity)

    def paper_models(self) -> list[str]:
        """Every model identifier named in the published rows."""
        found: list[str] = []
        for table in self.published.tables:
            for row in table.rows:
                ident = row.identity
                names = [ident["model"]] if "model" in ident else list(ident.get("models", []))
                found += [str(n) for n in names if str(n) not in found]
        return found

    def is_paper_model(self, model: str) -> bool:
        """True when `model` names one of the paper's models."""
        return any(model_matches(model, m) for m in self.paper_models())

    def agent(self, model: str) -> AgentSpec:
        """The seat for `model`, with the paper's call settings when it is one of its models."""
        for ident, settings in self.published.model_settings.items():
            if model_matches(model, ident):
                return AgentSpec.model_validate({"model": model, **settings})
        return AgentSpec(model=model)

    def plays_paper_models(self, models: Sequence[AgentSpec]) -> bool:
        """True when `models` are exactly the paper's models (pooled tables compare by value
        only then)."""
        from accord.reproduce.compare import models_match

        return models_match([m.model or "" for m in models], self.paper_models())
