"""Our numbers beside the published ones.

Each paper's kit turns every *complete* trace into observations: which row of which table the
game belongs to (its identity, e.g. cost setting and model) and its value for each column.
`our_rows` averages them per row with a 95% percentile bootstrap CI over games
(`accord.analysis.stats.bootstrap_mean`; games are the resampling unit, as in every report).
`compare` then sets each of our rows beside the published row with the same identity and
says whether the published value lies inside our CI.

A row played by a model the paper did not evaluate has no published counterpart: it is set
beside the paper's rows of the same cell (same identity but the model), labelled as a
comparison of shape, never of value.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from accord.analysis.stats import Estimate, bootstrap_mean
from accord.reproduce.published import PublishedRow, PublishedTable

TEXT = "text"
"""The pseudo-table of observations behind the numbers a paper states in its text
(`accord.reproduce.stated`): one per game, its identity every field a ``match`` may name."""

MODEL_FIELDS: frozenset[str] = frozenset({"model", "models"})
"""Identity fields that name models (compared with `same_model`)."""


@dataclass(frozen=True)
class Observation:
    """One game's values for one row of one table."""

    table: str
    identity: tuple[tuple[str, Any], ...]
    values: Mapping[str, float | None]


def observation(table: str, identity: Mapping[str, Any], values: Mapping[str, Any]) -> Observation:
    """An `Observation`, its identity in a stable order and its values as floats or None."""
    clean = {
        k: float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None
        for k, v in values.items()
    }
    ident = tuple(sorted((k, _hashable(v)) for k, v in identity.items()))
    return Observation(table, ident, clean)


def _hashable(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


@dataclass
class OurRow:
    """One row of ours: its identity, the games in it and a mean with CI per column."""

    table: str
    identity: dict[str, Any]
    games: int
    estimates: dict[str, Estimate]


def our_rows(observations: Iterable[Observation]) -> list[OurRow]:
    """Per (table, identity): each column's mean over games with its 95% bootstrap CI."""
    groups: dict[tuple[str, tuple[tuple[str, Any], ...]], list[Observation]] = defaultdict(list)
    for obs in observations:
        groups[(obs.table, obs.identity)].append(obs)
    out = []
    for (table, ident), members in groups.items():
        keys = sorted({k for o in members for k in o.values})
        estimates = {
            k: bootstrap_mean([v for o in members if (v := o.values.get(k)) is not None])
            for k in keys
        }
        out.append(OurRow(table, dict(ident), len(members), estimates))
    return sorted(out, key=lambda r: (r.table, sorted(map(str, r.identity.items()))))


def model_matches(ours: str, theirs: str) -> bool:
    """True when our model string names the paper's model identifier: equal, or ours is the
    identifier behind a provider prefix (``openai/gpt-5.4-mini`` for ``gpt-5.4-mini``,
    ``openrouter/qwen/qwen3.6-plus`` for ``qwen/qwen3.6-plus``)."""
    return ours == theirs or ours.endswith("/" + theirs)


def models_match(ours: Sequence[str], theirs: Sequence[str]) -> bool:
    """True when the two lists name the same models, in any order."""
    if len(ours) != len(theirs):
        return False
    left = list(theirs)
    for m in ours:
        hit = next((t for t in left if model_matches(m, t)), None)
        if hit is None:
            return False
        left.remove(hit)
    return True


def _same(key: str, ours: Any, theirs: Any) -> bool:
    if key == "model":
        return isinstance(ours, str) and model_matches(ours, str(theirs))
    if key == "models":
        return isinstance(ours, tuple | list) and models_match(list(ours), list(theirs))
    if isinstance(ours, int | float) and isinstance(theirs, int | float):
        return math.isclose(float(ours), float(theirs))
    return str(ours) == str(theirs)


def matches(identity: Mapping[str, Any], row: PublishedRow, *, ignore_models: bool) -> bool:
    """True when our identity is the published row's (every field the row names agrees)."""
    for key, theirs in row.identity.items():
        if ignore_models and key in MODEL_FIELDS:
            continue
        if key not in identity or not _same(key, identity[key], theirs):
            return False
    return True


@dataclass
class Cell:
    """One column of one compared row."""

    label: str
    ours: Estimate
    published: float | None
    """The published value, in our units (fractions where the paper prints percentages)."""
    inside: bool | None
    """Published value within our CI (None: nothing to compare, or a different model)."""
    paper_range: tuple[float, float] | None = None
    """For a model the paper did not run: the range over the paper's models in this cell."""
    percent: bool = False


@dataclass
class Comparison:
    """One of our rows beside the paper."""

    table: str
    label: str
    identity: dict[str, Any]
    games: int
    kind: str
    """``value`` (same models as the paper), ``shape`` (other models) or ``ours`` (no row)."""
    cells: list[Cell] = field(default_factory=list)
    published_label: str | None = None
    published_n: int | None = None
    published_index: int | None = None
    """Position of the published row in its table."""


def half_digit(printed: float) -> float:
    """Half a unit of the last digit the paper printed (``45.8`` -> 0.05, ``20`` -> 0.5): the
    paper rounded its value, so ours may differ by that much and still agree."""
    text = repr(printed)
    decimals = len(text.split(".", 1)[1]) if "." in text and "e" not in text else 0
    return 0.5 * 10.0**-decimals


def _in_ci(est: Estimate, value: float, tol: float) -> bool:
    return est.n > 0 and est.lo - tol - 1e-12 <= value <= est.hi + tol + 1e-12


def compare(
    table: PublishedTable,
    rows: Sequence[OurRow],
    *,
    label: Callable[[Mapping[str, Any]], str] | None = None,
    pooled_same: bool = False,
) -> list[Comparison]:
    """Each of our rows of `table` beside its published row (see the module docstring).

    Args:
        label: how to name one of our rows from its identity (default: the identity itself).
        pooled_same: for a pooled table, whether the reproduction played the paper's models.
    """
    out = []
    for ours in (r for r in rows if r.table == table.id):
        same = [p for p in table.rows if matches(ours.identity, p, ignore_models=False)]
        cell_rows = [p for p in table.rows if matches(ours.identity, p, ignore_models=True)]
        is_model_row = bool(MODEL_FIELDS & set(ours.identity))
        if table.pooled:
            kind = "value" if same and pooled_same else ("shape" if same else "ours")
        elif same:
            kind = "value"
        elif cell_rows and is_model_row:
            kind = "shape"
        else:
            kind = "ours"
        published = same[0] if same else None
        comp = Comparison(
            table=table.id,
            label=(label or describe)(ours.identity),
            identity=ours.identity,
            games=ours.games,
            kind=kind,
            published_label=published.label if published else None,
            published_n=published.seats if published else None,
            published_index=table.rows.index(published) if published else None,
        )
        for i, col in enumerate(table.columns):
            est = ours.estimates.get(col.key, Estimate(math.nan, math.nan, math.nan, 0))
            scale = 0.01 if col.percent else 1.0
            value = published.values[i] if published else None
            pub = None if value is None else value * scale
            theirs = [v * scale for p in cell_rows if (v := p.values[i]) is not None]
            cell = Cell(
                label=col.label,
                ours=est,
                published=pub,
                inside=(
                    _in_ci(est, pub, half_digit(value) * scale)
                    if pub is not None and value is not None and kind == "value" and est.n
                    else None
                ),
                paper_range=(min(theirs), max(theirs)) if kind == "shape" and theirs else None,
                percent=col.percent,
            )
            comp.cells.append(cell)
        out.append(comp)
    # The paper's row order first, then rows it has no counterpart for.
    return sorted(out, key=lambda c: (c.published_index is None, c.published_index or 0, c.label))


def describe(identity: Mapping[str, Any]) -> str:
    """An identity as text: model and agent names bare, other fields as key=value."""
    parts = []
    for key, value in identity.items():
        shown = " × ".join(map(str, value)) if isinstance(value, tuple | list) else str(value)
        parts.append(shown if key in MODEL_FIELDS | {"agent", "team"} else f"{key}={shown}")
    return ", ".join(parts)


def missing_rows(table: PublishedTable, comparisons: Sequence[Comparison]) -> list[PublishedRow]:
    """Published rows of `table` that none of our rows was compared with by value."""
    compared = {c.published_index for c in comparisons if c.kind == "value"}
    return [r for i, r in enumerate(table.rows) if i not in compared]
