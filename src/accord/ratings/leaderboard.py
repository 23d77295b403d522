"""OpenSkill leaderboards (CalBench App. E), one per game.

Procedure, per game and per dimension (`scores.board_for`), each dimension rated on its own:

1. Players are stable identities: a seat's model string, or for a non-model seat its agent
   name. Model seats form the rating pool; non-model seats (reference protocols, people) are
   never rated: they are listed separately, ranked by their raw means only, dimension by
   dimension in board order (e.g. coordination descending, then excess cost ascending, then
   excess VPS ascending).
2. Rating events are processed in time order (game start, then trace id) with OpenSkill's
   Plackett-Luce model and its score-margin variant: the raw scores are passed to
   ``rate(teams, scores=...)``, lower-is-better scores negated so that larger is always better,
   with the dimension's margin.
3. Free-for-all games (calendar): each trace is one event over its model seats, one team per
   seat, each seat scored on its own. A model holding several seats of one game takes the mean
   of its seats' posterior mu and sigma.
4. Team games (negotiation, sorting) have no per-seat outcome, so a trace alone cannot rank
   its seats. Games played on the same task (same game, seed and options; first speaker
   aside, since the runner swaps it on the same scenario) form one event in which every game
   is a team of its seats' players, scored by the game's result. A player appearing in several
   teams of an event takes the mean of its posteriors. Games with a non-model seat stay out
   of the pool.
5. An event needs at least two distinct players (free-for-all) or two distinct team line-ups
   (team games); otherwise it carries no comparison and is skipped. With ``match_tasks``,
   calendar traces skipped this way (e.g. homogeneous same-model teams) are rated as team
   games instead (team score: mean of its seats' scores).

Displayed next to mu and sigma: each player's raw mean per dimension (over its seats for
free-for-all games, over its games for team games) and the number of complete games played.
Models are ordered by MMR (or by ``sort_by``'s mu), ties share a rank, and each rank carries a
95% interval (`accord.ratings.ranks`).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from openskill.models import PlackettLuce

from accord.ratings.ranks import MMR_KEY, rank_models, rank_references
from accord.ratings.scores import Board, Dimension, board_for
from accord.traces.schema import SeatInfo, Trace


@dataclass
class Standing:
    """One player's line on a leaderboard."""

    player: str
    reference: bool
    games: int = 0
    mu: dict[str, float] = field(default_factory=dict)
    sigma: dict[str, float] = field(default_factory=dict)
    events: dict[str, int] = field(default_factory=dict)
    values: dict[str, list[float]] = field(default_factory=dict)
    trace_ids: set[str] = field(default_factory=set)
    """The complete games the player took part in (ties need the same games)."""
    rank: int = 0
    """Competition rank: tied players share one (1, 1, 3)."""
    rank_lo: int = 0
    rank_hi: int = 0
    """The 95% interval of the rank (models: from the OpenSkill posteriors)."""
    mmr: float | None = None
    """Mean of mu - 3 sigma over the rated dimensions (models only)."""

    def mean(self, key: str) -> float | None:
        """Raw mean on dimension `key` (None without values)."""
        vals = self.values.get(key) or []
        return sum(vals) / len(vals) if vals else None


@dataclass
class Leaderboard:
    """A game's leaderboard: rated models and, separately, non-model seats."""

    game: str
    dimensions: tuple[Dimension, ...]
    models: list[Standing]
    references: list[Standing]
    events: dict[str, int]

    def rows(self) -> list[dict[str, Any]]:
        """Flat rows (models first, then references) for CSV / JSON output."""
        out: list[dict[str, Any]] = []
        for kind, group in (("model", self.models), ("reference", self.references)):
            for s in group:
                row: dict[str, Any] = {
                    "game": self.game, "kind": kind, "rank": s.rank, "player": s.player,
                    "games": s.games, "rank_low": s.rank_lo, "rank_high": s.rank_hi,
                    "mmr": s.mmr if kind == "model" else None,
                }  # fmt: skip
                for d in self.dimensions:
                    rated = kind == "model" and d.key in s.mu
                    row[f"{d.key}_mu"] = s.mu[d.key] if rated else None
                    row[f"{d.key}_sigma"] = s.sigma[d.key] if rated else None
                    row[f"{d.key}_events"] = s.events.get(d.key, 0) if kind == "model" else None
                    row[f"{d.key}_mean"] = s.mean(d.key)
                    row[f"{d.key}_n"] = len(s.values.get(d.key, []))
                out.append(row)
        return out


def player(seat: SeatInfo) -> str:
    """A seat's stable identity (App. E: by model name)."""
    return seat.identity


def _signed(d: Dimension, v: float) -> float:
    return v if d.higher_is_better else -v


def _task_key(t: Trace) -> str:
    config = {k: v for k, v in t.config.items() if k != "first_speaker"}
    return json.dumps([t.game_id, t.seed, config], sort_keys=True, default=str)


class _Pool:
    """OpenSkill ratings of one dimension."""

    def __init__(self, margin: float) -> None:
        self.model = PlackettLuce(margin=margin)
        self.ratings: dict[str, tuple[float, float]] = {}
        self.events: dict[str, int] = defaultdict(int)
        self.total = 0

    def rate(self, entries: Sequence[tuple[Sequence[str], float]]) -> None:
        """One event: each entry is a team (player names) and its score, larger is better."""
        teams = []
        for names, _ in entries:
            team = []
            for name in names:
                mu, sigma = self.ratings.get(name, (self.model.mu, self.model.sigma))
                team.append(self.model.rating(mu=mu, sigma=sigma, name=name))
            teams.append(team)
        new = self.model.rate(teams, scores=[float(s) for _, s in entries])
        posterior: dict[str, list[tuple[float, float]]] = defaultdict(list)
        for (names, _), team in zip(entries, new, strict=True):
            for name, r in zip(names, team, strict=True):
                posterior[name].append((float(r.mu), float(r.sigma)))
        for name, vals in posterior.items():
            # A player in several seats or teams of one event: mean of its posteriors.
            self.ratings[name] = (
                sum(m for m, _ in vals) / len(vals),
                sum(s for _, s in vals) / len(vals),
            )
            self.events[name] += 1
        self.total += 1


def _team_events(pool: _Pool, d: Dimension, traces: Iterable[Trace]) -> None:
    groups: dict[str, list[Trace]] = defaultdict(list)
    for t in traces:
        groups[_task_key(t)].append(t)
    for group in sorted(groups.values(), key=lambda g: min((t.started_at, t.trace_id) for t in g)):
        entries: list[tuple[list[str], float]] = []
        for t in group:
            score = _game_score(d, t)
            if score is not None:
                entries.append(([player(s) for s in t.seats], _signed(d, score)))
        if len({tuple(sorted(names)) for names, _ in entries}) >= 2:
            pool.rate(entries)


def _game_score(d: Dimension, t: Trace) -> float | None:
    """The game's score; for a per-seat dimension, the mean over its scored seats."""
    if d.game_score is not None:
        return d.game_score(t)
    assert d.seat_score is not None
    vals = [v for v in d.seat_score(t) if v is not None]
    return sum(vals) / len(vals) if vals else None


def leaderboard(
    traces: Iterable[Trace],
    board: Board,
    *,
    match_tasks: bool = False,
    margins: dict[str, float] | None = None,
    sort_by: str | None = None,
) -> Leaderboard:
    """The leaderboard of one game (see the module docstring for the procedure)."""
    dims = tuple(
        replace(d, margin=margins[d.key]) if margins and d.key in margins else d
        for d in board.dimensions
    )
    # A trace with no seats (hand-edited) has no one to rate: left out, not a crash.
    done = sorted(
        (t for t in traces if t.status == "complete" and t.seats),
        key=lambda t: (t.started_at, t.trace_id),
    )
    standings: dict[str, Standing] = {}
    for t in done:
        for name in dict.fromkeys(player(s) for s in t.seats):
            is_ref = all(s.model is None for s in t.seats if player(s) == name)
            standing = standings.setdefault(name, Standing(name, is_ref))
            standing.games += 1
            standing.trace_ids.add(t.trace_id)

    pools: dict[str, _Pool] = {}
    for d in dims:
        pool = pools[d.key] = _Pool(d.margin)
        unmatched: list[Trace] = []
        for t in done:
            if d.seat_score is not None:
                scores = d.seat_score(t)
                entries = []
                for seat, v in zip(t.seats, scores, strict=True):
                    if v is not None:
                        standings[player(seat)].values.setdefault(d.key, []).append(v)
                        if seat.model is not None:
                            entries.append(([player(seat)], _signed(d, v)))
                if len({names[0] for names, _ in entries}) >= 2:
                    pool.rate(entries)
                elif entries and all(s.model is not None for s in t.seats):
                    unmatched.append(t)
            else:
                v = _game_score(d, t)
                if v is not None:
                    for name in dict.fromkeys(player(s) for s in t.seats):
                        standings[name].values.setdefault(d.key, []).append(v)
                if all(s.model is not None for s in t.seats):
                    unmatched.append(t)
        if d.seat_score is None or match_tasks:
            _team_events(pool, d, unmatched)
        for name, (mu, sigma) in pool.ratings.items():
            standings[name].mu[d.key] = mu
            standings[name].sigma[d.key] = sigma
            standings[name].events[d.key] = pool.events[name]

    key = sort_by or MMR_KEY
    if key not in {d.key for d in dims} | {MMR_KEY}:
        known = ", ".join([MMR_KEY, *(d.key for d in dims)])
        raise ValueError(f"unknown dimension {key!r} for {board.game}; use one of {known}")
    models = rank_models([s for s in standings.values() if not s.reference], dims, key)
    refs = sorted((s for s in standings.values() if s.reference), key=lambda s: _raw_key(s, dims))
    rank_references(refs, lambda s: _raw_key(s, dims))
    return Leaderboard(board.game, dims, models, refs, {k: p.total for k, p in pools.items()})


def _raw_key(s: Standing, dims: Sequence[Dimension]) -> tuple[Any, ...]:
    """Raw-metric order of App. E: better first on each dimension in turn, missing last."""
    parts: list[Any] = []
    for d in dims:
        m = s.mean(d.key)
        parts += [m is None, 0.0 if m is None else -_signed(d, m)]
    return (*parts, s.player)


def leaderboards(
    traces: Iterable[Trace],
    *,
    match_tasks: bool = False,
    margins: dict[str, float] | None = None,
    sort_by: str | None = None,
) -> list[Leaderboard]:
    """One leaderboard per game found in `traces` that has a board (`scores.board_for`: the
    built-in boards, or a game's seat-row ``score``)."""
    by_game: dict[str, list[Trace]] = defaultdict(list)
    for t in traces:
        by_game[t.game].append(t)
    out = []
    for game in sorted(by_game):
        board = board_for(game, by_game[game])
        if board is not None:
            keys = {d.key for d in board.dimensions}
            out.append(
                leaderboard(
                    by_game[game],
                    board,
                    match_tasks=match_tasks,
                    margins={k: v for k, v in (margins or {}).items() if k in keys},
                    sort_by=sort_by if sort_by in keys | {MMR_KEY} else None,
                )
            )
    return out
