"""The conformance suite catches broken games: a small sound game passes every check, and each
mutant of it, broken in one known way, fails the check meant to catch that way.

The sound game ("pick"): two seats each pick a number from 0 to 9 in each of two rounds, at
the same time; the distance to a target drawn from the seed is the score. Every mutant changes
only the method that carries its bug.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel

from accord import testing
from accord.agents import reference
from accord.agents.base import Agent, Recorder
from accord.core import registry
from accord.core.errors import ActionError
from accord.core.game import Game, GameResult
from accord.core.rng import make_rng
from accord.core.spec import Action, ActionSpec, Request

ROUNDS = 2
SCHEMA = {
    "type": "object",
    "properties": {"pick": {"type": "integer", "minimum": 0, "maximum": 9}},
    "required": ["pick"],
}


def _validate(action: Action) -> Action:
    pick = action.get("pick")
    if not isinstance(pick, int) or isinstance(pick, bool) or not 0 <= pick <= 9:
        raise ActionError(f"'pick' must be a whole number from 0 to 9, not {pick!r}")
    return {"pick": pick}


def _parse(text: str) -> Action:
    try:
        reply = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ActionError(f"the reply is not JSON: {exc}") from exc
    if not isinstance(reply, dict):
        raise ActionError('reply with an object such as {"pick": 4}')
    return _validate(reply)


SPEC = ActionSpec(
    kind="pick", parse=_parse, schema=SCHEMA, fallback=lambda: {"pick": 0}, validate=_validate
)


class PickConfig(BaseModel):
    """No options."""


class Pick(Game):
    """A sound game: it passes every conformance check."""

    game_id = "pick-v1"
    config_model = PickConfig
    summary_metrics: ClassVar[list[tuple[str, str, bool]]] = [("distance", "distance", False)]

    @property
    def num_seats(self) -> int:
        return 2

    def reset(self, seed: int) -> None:
        self._targets = self.draw_targets(seed)
        self._round = 0
        self._picks: list[list[int]] = [[], []]
        self._history: list[int] = []

    def draw_targets(self, seed: int) -> list[int]:
        rng = make_rng(seed, "target")
        return [rng.randrange(10) for _ in range(ROUNDS)]

    def history(self) -> list[int]:
        return list(self._history)

    def pending(self) -> list[Request]:
        if self.done():
            return []
        return [
            Request(
                seat=seat,
                observation=f"Round {self._round + 1}: pick a number from 0 to 9.",
                spec=SPEC,
                info={"round": self._round + 1, "targets_so_far": self.history()},
                round=self._round + 1,
            )
            for seat in range(2)
            if len(self._picks[seat]) == self._round
        ]

    def submit(self, seat: int, action: Action) -> None:
        if seat not in [r.seat for r in self.pending()]:
            raise ActionError(f"seat {seat} has no pending request", kind="out_of_turn")
        self.record(seat, self.check(action))

    def check(self, action: Action) -> int:
        return int(_validate(action)["pick"])

    def record(self, seat: int, pick: int) -> None:
        self._picks[seat].append(pick)
        self.emit("pick", seat=seat, pick=pick, round=self._round + 1)
        if all(len(p) > self._round for p in self._picks):
            target = self._targets[self._round]
            self._history.append(target)
            self.emit("round_result", round=self._round + 1, target=target)
            self._round += 1

    def done(self) -> bool:
        return self._round >= ROUNDS

    def distance(self, seat: int) -> int:
        return sum(abs(p - t) for p, t in zip(self._picks[seat], self._targets, strict=True))

    def result(self) -> GameResult:
        distances = [self.distance(s) for s in range(2)]
        return GameResult(
            final_state={"targets": self._targets, "picks": self._picks},
            metrics={"distance": sum(distances)},
            seat_rows=[{"seat": s, "distance": d} for s, d in enumerate(distances)],
        )

    def scenario(self) -> dict[str, Any]:
        return {"targets": self._targets}


class Middle(Agent):
    """Picks 5, always."""

    spec = "middle"

    async def act(self, request: Request, record: Recorder = lambda *a, **k: None) -> Action:
        del request, record
        return {"pick": 5}


# -- the mutants ---------------------------------------------------------------------------
class NonDeterministic(Pick):
    """Draws its targets from an unseeded generator: the seed no longer fixes the game."""

    game_id = "pick-nondeterministic-v1"

    def draw_targets(self, seed: int) -> list[int]:
        rng = random.Random()  # the bug: not derived from `seed`
        return [rng.randrange(10) for _ in range(ROUNDS)]


class MutatesSentRequests(Pick):
    """Hands every request its live history list, which grows after the request was sent."""

    game_id = "pick-mutates-requests-v1"

    def history(self) -> list[int]:
        return self._history  # the bug: no copy


class AcceptsOutsideSpec(Pick):
    """Takes any action without checking it against its spec."""

    game_id = "pick-accepts-anything-v1"

    def check(self, action: Action) -> int:
        pick = action.get("pick", 0)  # the bug: no validation
        return pick if isinstance(pick, int) else 0


class CrashesOnBadType(Pick):
    """Raises `TypeError` instead of `ActionError` on an action of the wrong shape."""

    game_id = "pick-type-error-v1"

    def check(self, action: Action) -> int:
        pick = action["pick"] + 0  # the bug: KeyError / TypeError escape
        if not 0 <= pick <= 9:
            raise ActionError("'pick' must be from 0 to 9")
        return int(pick)


class EndsWithoutResult(Pick):
    """Ends, but reports no metrics and no seat rows."""

    game_id = "pick-no-result-v1"

    def result(self) -> GameResult:
        return GameResult(final_state={}, metrics={})


class CrashesOnAnOddMove(Pick):
    """Crashes on a valid move its fallback never makes (9): fallback play passes, random
    schema-valid play does not."""

    game_id = "pick-crashes-on-nine-v1"

    def record(self, seat: int, pick: int) -> None:
        if pick == 9:
            raise KeyError("nine")  # the bug
        super().record(seat, pick)


ALL = [
    Pick,
    NonDeterministic,
    MutatesSentRequests,
    AcceptsOutsideSpec,
    CrashesOnBadType,
    EndsWithoutResult,
    CrashesOnAnOddMove,
]


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The games and their reference agent, registered for one test and forgotten after
    (copies of the registries stand in, so other tests never see these games)."""
    registry.game_ids()  # discover the installed games first, into the originals
    for name in ("_GAMES", "_ALIASES", "_FROM_CODE"):
        monkeypatch.setattr(registry, name, dict(getattr(registry, name)))
    monkeypatch.setattr(reference, "_REFERENCE", dict(reference._REFERENCE))
    for cls in ALL:
        registry.register(cls)
        reference.register_reference(cls.game_id, "middle", Middle)
    yield


def test_the_sound_game_passes_every_check() -> None:
    testing.check_game(Pick.game_id)  # every check, so each mutant below fails for its bug
    seen = testing.check_bombardment(Pick.game_id, seeds=range(3))
    assert seen.games == 3
    assert seen.events["pick"] == 3 * 2 * ROUNDS
    assert seen.invalid == 0  # every schema-valid reply is a valid move here


def test_the_games_are_forgotten_after_the_test(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Pick.game_id in registry.game_ids()
    assert reference.reference_names(Pick.game_id) == ["middle"]
    monkeypatch.undo()  # what pytest does once this test ends
    assert Pick.game_id not in registry.game_ids()
    assert Pick.game_id not in reference._REFERENCE
    assert registry.game_ids()  # the installed games are still there


Check = Callable[[str], Any]
CAUGHT: list[tuple[type[Game], Check, str]] = [
    (NonDeterministic, testing.check_determinism, "same seed gave different"),
    (MutatesSentRequests, testing.check_requests_unchanged, "changed after it was sent"),
    (AcceptsOutsideSpec, testing.check_rejects_outside_spec, "own spec refuses"),
    (CrashesOnBadType, testing.check_rejects_outside_spec, "raised (KeyError|TypeError)"),
    (EndsWithoutResult, testing.check_api, "one seat row per seat"),
    (CrashesOnAnOddMove, testing.check_bombardment, "seed .* ended failed: KeyError"),
]


@pytest.mark.parametrize(
    ("mutant", "check", "message"), CAUGHT, ids=[m.__name__ for m, _, _ in CAUGHT]
)
def test_the_suite_catches_the_mutant(mutant: type[Game], check: Check, message: str) -> None:
    with pytest.raises(AssertionError, match=message):
        check(mutant.game_id)
    with pytest.raises(AssertionError, match=message):
        testing.check_game(mutant.game_id)  # the whole suite catches it too


def test_an_odd_move_passes_fallback_play_and_only_bombardment_finds_it() -> None:
    for check in (testing.check_api, testing.check_determinism, testing.check_trace_roundtrip):
        check(CrashesOnAnOddMove.game_id)
    with pytest.raises(AssertionError, match="KeyError"):
        testing.check_bombardment(CrashesOnAnOddMove.game_id)
