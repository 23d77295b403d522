"""Planning a reproduction: which tables, which models, which games.

`make_plan` resolves ``--table`` / ``--figure`` / ``--all`` against the paper's published tables,
checks the models, asks the paper's kit for its batches and expands them with the experiment
machinery every run uses (`accord.runner.config.expand`), so a reproduction's games have the
same ids, seeds and labels as any ``accord run`` and its directory resumes, replays and reports
like any other.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from accord.core.errors import ConfigError
from accord.reproduce.kit import Kit, Request
from accord.reproduce.published import PAPERS, load_published
from accord.runner.config import Defaults, Experiment, expand
from accord.runner.specs import AgentSpec, GameSpec, parse_agent


def kits() -> dict[str, type[Kit]]:
    """Every paper's kit, by its command-line name (the keys of `PAPERS`, in their order): each
    game declares the kits of the papers its benchmark comes from (`GameInfo.kits`)."""
    from accord.core.gameinfo import all_infos, resolve_ref

    found: dict[str, type[Kit]] = {}
    for info in all_infos():
        for paper, kit in info.kits.items():
            found[paper] = resolve_ref(kit)
    return {p: found[p] for p in (*PAPERS, *sorted(set(found) - set(PAPERS))) if p in found}


if TYPE_CHECKING:
    KITS: dict[str, type[Kit]]
    """The older name of `kits()` (built on access)."""


def __getattr__(name: str) -> Any:
    if name == "KITS":  # the older name of `kits()`
        return kits()
    raise AttributeError(name)


def get_kit(paper: str) -> Kit:
    """The kit of `paper`; a `ConfigError` naming the papers if unknown."""
    known = kits()
    if paper not in known:
        raise ConfigError(f"unknown paper {paper!r}; choose one of: {', '.join(PAPERS)}")
    return known[paper]()


@dataclass
class Plan:
    """A reproduction about to be played."""

    paper: str
    tables: list[str]
    figures: list[str]
    models: list[AgentSpec]
    smoke: bool
    specs: list[GameSpec]
    notes: list[str] = field(default_factory=list)

    def groups(self) -> Counter[str]:
        """Games per row group (the pairing: a reference agent, a model team, a pair)."""
        return Counter(str(s.labels.get("pairing", "?")) for s in self.specs)


def check_model(text: str) -> AgentSpec:
    """A ``--model`` value as a seat; one clear error when it is not ``provider/model``."""
    spec = parse_agent(text)
    if spec.model is None:
        raise ConfigError(
            f"--model takes provider/model (e.g. openai/gpt-5.4-mini or mock/schema), not "
            f"{text!r}; reference protocols need no flag, they run by default"
        )
    from accord.models.registry import known_providers

    provider = spec.model.split("/", 1)[0]
    if provider not in known_providers():
        raise ConfigError(
            f"--model {text!r}: unknown provider {provider!r}; use one of "
            f"{', '.join(known_providers())}"
        )
    return spec


def choose_tables(
    paper: str, tables: Sequence[str], figures: Sequence[str], everything: bool
) -> tuple[list[str], list[str]]:
    """The table ids to play and the figure ids to draw (default: every reproducible table)."""
    pub = load_published(paper)
    chosen = [pub.reproduced_table(t).id for t in tables]
    for f in figures:
        chosen.append(pub.figure(f).table)
    if everything or not (tables or figures):
        chosen = pub.reproducible
    return list(dict.fromkeys(chosen)), list(dict.fromkeys(figures))


def make_plan(
    paper: str,
    *,
    models: Sequence[str] = (),
    tables: Sequence[str] = (),
    figures: Sequence[str] = (),
    everything: bool = False,
    smoke: bool = False,
) -> Plan:
    """The games reproducing the chosen tables of `paper` (module docstring)."""
    kit = get_kit(paper)
    pub = kit.published
    table_ids, figure_ids = choose_tables(paper, tables, figures, everything)
    seats = [kit.agent(check_model(m).model or "") for m in models]
    if len({s.model for s in seats}) != len(seats):
        raise ConfigError("each --model may be given once")
    notes: list[str] = []
    if not seats:
        needing = [t for t in table_ids if t not in kit.reference_tables]
        if needing and len(needing) == len(table_ids):
            raise ConfigError(
                f"{paper} Table {', '.join(needing)} needs a model: give --model provider/model "
                "(e.g. --model mock/schema --smoke for a quick check)"
            )
        if needing:
            notes.append(
                f"Table {', '.join(needing)} needs --model and is skipped; only the reference "
                "rows are played."
            )
        table_ids = [t for t in table_ids if t in kit.reference_tables]
    if seats and not set(table_ids) & kit.model_tables:
        notes.append(
            f"--model is not used: Table {', '.join(table_ids)} has only reference rows "
            f"(model rows are in Table {', '.join(sorted(kit.model_tables))})."
        )
    request = Request(tables=table_ids, models=seats, smoke=smoke, notes=notes)
    batches = kit.batches(request)
    name = f"reproduce-{paper}" + ("-smoke" if smoke else "")
    exp = Experiment(name=name, defaults=Defaults(game=kit.game), batches=batches)
    specs = kit.select(expand(exp), request)
    figure_ids = [f.id for f in pub.figures if f.table in table_ids]
    return Plan(paper, table_ids, figure_ids, seats, smoke, specs, request.notes)
