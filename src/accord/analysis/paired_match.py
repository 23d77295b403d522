"""Which games of two sides are the same experiment but for the compared factor.

A game's *setup* is every part of its configuration that can change an outcome: each game
option (``options.rounds``) and the agent of each seat (``seat 0``: the whole agent spec,
temperature and options included). Two games pair only when they agree on the game id and
version, the scenario digest, the seat assignment (first speaker), the seed, and every part
of the setup except the *compared factor*.

The factor is what the two sides do not share: a setup part whose values on side A and on
side B have nothing in common (``seat 0`` is ``imap`` on every game of A and ``dsm-welfare``
on every game of B). A part the sides share at least one value of (a grid over
``options.ratio`` on both sides, the pairings of a cross-play on both sides) is a *cell*
dimension: each cell is compared within itself and never pooled with another as repeats.
With ``--a model=M`` the seats M holds are the factor by construction (`select`).

Refused with one line naming the difference (`ConfigError`, exit 2):

* the two sides are the same games (a run against itself, ``--a batch=x --b batch=x``);
* the sides differ in more than one factor: the seats and a game option, or two options
  (a difference in one of them would be confounded with the other);
* one side holds several setups that differ only in the factor on one scenario (a side with
  the pairings ``x vs x`` and ``x vs y`` against a side with others): they cannot be told
  apart after the factor is set aside, so the side must be narrowed first.

Exact duplicates (the same trace content under another name: same game, seed, scenario,
setup, run labels and metrics) are named and left out, never averaged as repeats. Repeats of
one setup on one scenario (an experiment's ``repeats: k``) are averaged into one pair.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from accord.core.errors import ConfigError

if TYPE_CHECKING:
    from accord.analysis.paired import GameRecord

SELECTED = "(the compared seat)"
"""The setup value of a seat that a ``model=`` selection made the compared factor."""

Key = tuple[Any, ...]


@dataclass
class Match:
    """How the games of two sides pair (`match`)."""

    keys_a: dict[Key, list[int]]
    keys_b: dict[Key, list[int]]
    shared: list[Key]
    matched_on: str
    factor: list[str]
    """The setup parts the sides differ in (masked from the key)."""
    unmatched_a: list[str]
    unmatched_b: list[str]

    @property
    def share(self) -> float:
        """Matched units over the larger side's units (0 when a side is empty)."""
        units = max(len(self.keys_a), len(self.keys_b))
        return len(self.shared) / units if units else 0.0


def drop_duplicates(side: Sequence[GameRecord]) -> tuple[list[GameRecord], list[dict[str, str]]]:
    """`side` without exact duplicates, and ``{trace_id, copy_of}`` for each left out."""
    first: dict[str, str] = {}
    kept: list[GameRecord] = []
    dups: list[dict[str, str]] = []
    for r in sorted(side, key=lambda r: r.trace_id):
        if r.identity and r.identity in first:
            dups.append({"trace_id": r.trace_id, "copy_of": first[r.identity]})
            continue
        if r.identity:
            first[r.identity] = r.trace_id
        kept.append(r)
    return kept, dups


def _values(side: Sequence[GameRecord], part: str) -> set[str | None]:
    return {r.setup.get(part) for r in side}


def _shown(values: set[str | None]) -> str:
    items = sorted("-" if v is None else v for v in values)
    text = ", ".join(items[:3]) + (" ..." if len(items) > 3 else "")
    return text if len(text) <= 120 else text[:117] + "..."


def factor(a: Sequence[GameRecord], b: Sequence[GameRecord]) -> list[str]:
    """The setup parts whose values on the two sides share nothing (module docstring)."""
    parts = sorted({p for r in [*a, *b] for p in r.setup})
    return [p for p in parts if not (_values(a, p) & _values(b, p))]


def _same_games(a: Sequence[GameRecord], b: Sequence[GameRecord]) -> bool:
    def ident(r: GameRecord) -> Any:
        return r.identity or (r.trace_id, r.game_id, r.seed, r.scenario, sorted(r.metrics.items()))

    return sorted(map(ident, a), key=str) == sorted(map(ident, b), key=str)


def check_comparable(a: Sequence[GameRecord], b: Sequence[GameRecord], parts: list[str]) -> None:
    """Refuse a self-comparison and sides that differ in more than one factor."""
    if a and _same_games(a, b):
        raise ConfigError(
            f"side A and side B are the same {len(a)} games, so there is nothing to compare: "
            "give two different runs, or --a/--b that select different batches, pairings or "
            "models"
        )
    seats = [p for p in parts if p.startswith("seat ")]
    options = [p for p in parts if not p.startswith("seat ")]
    if (seats and options) or len(options) > 1:
        named = [f"{p} ({_shown(_values(a, p))} vs {_shown(_values(b, p))})" for p in parts]
        raise ConfigError(
            "the sides differ in more than the compared factor: "
            + "; ".join(named)
            + ". Compare one thing at a time: narrow the sides with --a/--b or play both "
            "with the same settings"
        )


def _key(r: GameRecord, masked: set[str], with_seed: bool) -> Key:
    setup = tuple(sorted((p, v) for p, v in r.setup.items() if p not in masked))
    return (r.game_id, r.scenario, r.seating, r.seed if with_seed else None, setup)


def _keys(side: Sequence[GameRecord], masked: set[str], with_seed: bool) -> dict[Key, list[int]]:
    out: dict[Key, list[int]] = defaultdict(list)
    for i, r in enumerate(side):
        out[_key(r, masked, with_seed)].append(i)
    return dict(out)


def _check_cells(name: str, side: Sequence[GameRecord], keys: Mapping[Key, list[int]]) -> None:
    """Games sharing a key must be repeats of one setup, never different cells."""
    for ids in keys.values():
        setups = {tuple(sorted(side[i].setup.items())) for i in ids}
        if len(setups) > 1:
            labels = sorted({str(side[i].labels.get("pairing") or side[i].trace_id) for i in ids})
            raise ConfigError(
                f"side {name} plays {len(setups)} different setups on one scenario that differ "
                f"only in the compared factor ({_shown(set(labels))}), so they cannot be "
                "paired one to one: narrow the side with --a/--b pairing=LABEL or model=P/M"
            )


def match(a: Sequence[GameRecord], b: Sequence[GameRecord]) -> Match:
    """Pair the games of `a` and `b` (module docstring); `ConfigError` when they cannot be."""
    parts = factor(a, b)
    check_comparable(a, b, parts)
    masked = set(parts)
    keys_a, keys_b = _keys(a, masked, True), _keys(b, masked, True)
    matched_on = "seed, scenario and setup"
    if not set(keys_a) & set(keys_b):
        # Batches of one run draw their seeds from the batch name: on a suite they still
        # play the same tasks, so they pair on the scenario alone (and the output says so).
        keys_a, keys_b = _keys(a, masked, False), _keys(b, masked, False)
        matched_on = "scenario and setup (the sides' seeds differ)"
    _check_cells("A", a, keys_a)
    _check_cells("B", b, keys_b)
    shared = sorted(set(keys_a) & set(keys_b), key=str)
    if not shared:
        matched_on = "nothing"
    unmatched_a = sorted(a[i].trace_id for k, ids in keys_a.items() if k not in keys_b for i in ids)
    unmatched_b = sorted(b[i].trace_id for k, ids in keys_b.items() if k not in keys_a for i in ids)
    return Match(keys_a, keys_b, shared, matched_on, parts, unmatched_a, unmatched_b)
