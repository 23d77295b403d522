"""The rules of meeting-point-v1 as pure functions over frozen state.

The engine (`game.py`), the oracle, the metrics and the reference agents all use these.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from accord.core.rng import make_rng

from meeting_point.config import PLACES, MeetingPointConfig

SEATS = 2


@dataclass(frozen=True)
class Scenario:
    """What the seed decides: the places and each seat's private cost of reaching each."""

    places: tuple[str, ...]
    costs: tuple[tuple[int, ...], ...]
    """``costs[seat][place]``, known only to that seat."""

    def to_json(self) -> dict[str, list[str] | list[list[int]]]:
        """The scenario as JSON (for the trace)."""
        return {"places": list(self.places), "costs": [list(c) for c in self.costs]}


@dataclass(frozen=True)
class State:
    """Where a game stands: the messages so far, then both choices."""

    messages: tuple[tuple[int, str], ...] = ()
    """(seat, text) in the order sent."""
    choices: tuple[int, ...] | None = None
    """Each seat's place, once both have chosen."""


def make_scenario(config: MeetingPointConfig, seed: int) -> Scenario:
    """Draw both seats' private costs from the seed (and nothing else)."""
    rng = make_rng(seed, "scenario")
    costs = tuple(
        tuple(rng.randint(0, config.max_cost) for _ in range(config.places)) for _ in range(SEATS)
    )
    return Scenario(PLACES[: config.places], costs)


def talking(config: MeetingPointConfig, state: State) -> bool:
    """True while messages remain to be sent."""
    return len(state.messages) < SEATS * config.talk_turns


def speaker(state: State) -> int:
    """Whose turn it is to talk (A, then B, alternating)."""
    return len(state.messages) % SEATS


def say(state: State, seat: int, text: str) -> State:
    """The state after `seat` sends `text`."""
    return replace(state, messages=(*state.messages, (seat, text)))


def choose(state: State, choices: Sequence[int]) -> State:
    """The state after both seats name a place."""
    return replace(state, choices=tuple(choices))


def team_cost(scenario: Scenario, place: int) -> int:
    """What meeting at `place` costs the two seats together."""
    return sum(c[place] for c in scenario.costs)


def cheapest(costs: Sequence[int]) -> int:
    """The place with the lowest cost (the lowest index on a tie)."""
    return min(range(len(costs)), key=lambda p: (costs[p], p))


def oracle(scenario: Scenario) -> tuple[int, int]:
    """The best meeting place and its team cost, exact: every place is tried."""
    best = cheapest([team_cost(scenario, p) for p in range(len(scenario.places))])
    return best, team_cost(scenario, best)


def worst_cost(scenario: Scenario) -> int:
    """The team cost of the worst place (scale of the score)."""
    return max(team_cost(scenario, p) for p in range(len(scenario.places)))


def meeting_place(state: State) -> int | None:
    """Where the seats met, or None (not decided yet, or they named different places)."""
    if state.choices is None or len(set(state.choices)) != 1:
        return None
    return state.choices[0]
