"""Conformance checks for games: API contract, determinism, oracle sanity, trace round-trip,
replay view, requests left alone once sent, actions outside the spec refused, and the rule for
the judges a game declares (`accord.testing.judges`).

Modelled on the API tests that environment libraries ship (check one contract, the same way,
for every game). Each check raises `AssertionError` with a message naming the game and what
broke.
"""

from __future__ import annotations

import asyncio
import copy
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from accord.agents.reference import reference_names
from accord.core.errors import ActionError
from accord.core.game import Game, GameResult
from accord.core.provenance import fallback, submit
from accord.core.registry import game_class, make
from accord.core.replay import TONES, replay_of
from accord.core.spec import Action, ActionSpec, Request
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec
from accord.testing.bombard import check_bombardment
from accord.testing.judges import check_judges
from accord.traces.io import read_trace, write_trace

MAX_STEPS = 100_000


def drive_with_fallbacks(
    game: Game, seed: int, *, watch: Callable[[list[Request]], None] | None = None
) -> tuple[list[dict[str, Any]], GameResult]:
    """Play `game` answering every request with its documented fallback action.

    `watch`, if given, sees every list of requests `pending()` returns, before any is answered.
    """
    game.reset(seed)
    events: list[dict[str, Any]] = []
    for _ in range(MAX_STEPS):
        if game.done():
            break
        requests = game.pending()
        assert requests, f"{game.game_id}: not done but nothing pending"
        if watch is not None:
            watch(requests)

        for req in requests:
            assert req.spec.fallback is not None, (
                f"{game.game_id}: request {req.spec.kind!r} has no fallback action"
            )
            action = req.spec.fallback()
            submit(game, req.seat, action, fallback("conformance: every seat falls back"))
        events.extend(game.drain_events())
    else:
        raise AssertionError(f"{game.game_id}: no end after {MAX_STEPS} steps of fallbacks")
    return events, game.result()


def check_api(game_id: str, seed: int = 0) -> None:
    """Requests are well formed, pending() is idempotent, bad submissions raise ActionError."""
    cls = game_class(game_id)
    game = make(game_id)
    assert game.game_id == cls.game_id
    assert game.num_seats >= 1
    game.reset(seed)
    first = game.pending()
    assert first, f"{game_id}: nothing pending after reset"
    again = game.pending()
    assert [(r.seat, r.observation, r.spec.kind) for r in first] == [
        (r.seat, r.observation, r.spec.kind) for r in again
    ], f"{game_id}: pending() is not idempotent"
    for req in first:
        assert 0 <= req.seat < game.num_seats, f"{game_id}: bad seat {req.seat}"
        assert isinstance(req.observation, str) and req.observation, f"{game_id}: empty observation"
        assert req.system is None or isinstance(req.system, str)
    busy = {r.seat for r in first}
    idle = [s for s in range(game.num_seats) if s not in busy]
    if idle:
        try:
            game.submit(idle[0], {})
        except ActionError:
            pass
        else:
            raise AssertionError(f"{game_id}: a seat with no pending request could submit")
    events, result = drive_with_fallbacks(make(game_id), seed)
    assert all("type" in e and "t" in e for e in events), f"{game_id}: event without type/t"
    ts = [e["t"] for e in events]
    assert ts == sorted(ts) and len(set(ts)) == len(ts), f"{game_id}: event steps not increasing"
    assert len(result.seat_rows) == game.num_seats, f"{game_id}: one seat row per seat expected"
    for key, _, _ in cls.summary_metrics:
        assert key in result.metrics, f"{game_id}: summary metric {key!r} missing from metrics"


def check_determinism(game_id: str, seed: int = 7) -> None:
    """Same seed, same events and result; a different seed still plays to the end."""
    e1, r1 = drive_with_fallbacks(make(game_id), seed)
    e2, r2 = drive_with_fallbacks(make(game_id), seed)
    assert e1 == e2, f"{game_id}: same seed gave different events"
    assert r1.final_state == r2.final_state and r1.metrics == r2.metrics
    a = make(game_id)
    a.reset(seed)
    b = make(game_id)
    b.reset(seed)
    assert a.scenario() == b.scenario(), f"{game_id}: same seed gave different scenarios"
    drive_with_fallbacks(make(game_id), seed + 1)


def check_oracle(game_id: str, seeds: range = range(3)) -> None:
    """Nothing beats the oracle; the game's oracle agent reaches it."""
    cls = game_class(game_id)
    for seed in seeds:
        game = make(game_id)
        _, result = drive_with_fallbacks(game, seed)
        gap = game.oracle_gap(result)
        if gap is None:
            return
        assert gap >= 0, f"{game_id}: fallback play beat the oracle (gap {gap})"
    if cls.oracle_agent is None:
        return
    for seed in seeds:
        n = make(game_id).num_seats
        spec = GameSpec(
            trace_id=f"oracle-{seed}",
            game=game_id,
            seed=seed,
            agents=[AgentSpec(agent=cls.oracle_agent)] * n,
        )
        trace = asyncio.run(play_game(spec))
        assert trace.status == "complete", f"{game_id}: oracle agent game failed: {trace.error}"
        game = make(game_id)
        res = GameResult(trace.final_state, trace.metrics, trace.seat_rows)
        assert game.oracle_gap(res) == 0, f"{game_id}: oracle agent missed the oracle"


def check_trace_roundtrip(game_id: str, seed: int = 3) -> None:
    """A played game's trace survives write + read unchanged."""
    names = reference_names(game_id)
    assert names, f"{game_id}: register at least one reference agent"
    n = make(game_id).num_seats
    spec = GameSpec(
        trace_id="roundtrip", game=game_id, seed=seed, agents=[AgentSpec(agent=names[0])] * n
    )
    trace = asyncio.run(play_game(spec))
    assert trace.status == "complete", f"{game_id}: {trace.error}"
    with tempfile.TemporaryDirectory() as tmp:
        path = write_trace(Path(tmp), trace)
        back = read_trace(path)
    assert back == trace, f"{game_id}: trace changed in a write/read round trip"


def check_replay(game_id: str, seed: int = 5) -> None:
    """A game's replay view, if it declares one, draws every event of a played game in the
    shared vocabulary (`accord.core.replay`): one step per event, marks that never go down,
    known panel kinds and tones, JSON-able frames."""
    cls = game_class(game_id)
    if not cls.replay_module:
        return
    names = reference_names(game_id)
    assert names, f"{game_id}: register at least one reference agent"
    n = make(game_id).num_seats
    spec = GameSpec(
        trace_id="replay", game=game_id, seed=seed, agents=[AgentSpec(agent=names[0])] * n
    )
    trace = asyncio.run(play_game(spec))
    view = replay_of(cls, trace)  # raises when the steps do not match the events
    assert view is not None
    marks = [s["mark"] for s in view["steps"]]
    assert marks == sorted(marks), f"{game_id}: replay marks go down"
    json.dumps(view, allow_nan=False)
    for frame in view["frames"]:
        assert isinstance(frame.get("title"), str), f"{game_id}: a replay frame has no title"
        for panel in frame["panels"]:
            kind = panel.get("kind")
            assert kind in ("grid", "facts", "messages"), f"{game_id}: unknown panel {kind!r}"
            tones = [c.get("tone") for r in panel.get("rows", []) for c in r["cells"]]
            tones += [i.get("tone") for i in panel["items"]] if kind == "facts" else []
            bad = {t for t in tones if t is not None and t not in TONES}
            assert not bad, f"{game_id}: replay tones {sorted(bad)} are not in TONES"


def _snapshot(request: Request) -> tuple[Any, ...]:
    """Everything a seat is sent with a request, copied so later changes show."""
    spec = request.spec
    return (
        request.seat,
        request.observation,
        request.system,
        request.reset_context,
        request.ephemeral,
        copy.deepcopy(request.info),
        request.round,
        request.turn,
        spec.kind,
        copy.deepcopy(spec.schema),
    )


def check_requests_unchanged(game_id: str, seed: int = 11) -> None:
    """A request, once `pending()` has returned it, never changes: an agent may keep it (a
    person reads it, a remote seat gets it later), so the game must not edit its text, its
    ``info`` or its schema in place as play goes on (give each request its own copies)."""
    sent: list[tuple[Request, tuple[Any, ...], int]] = []

    def watch(requests: list[Request]) -> None:
        sent.extend((r, _snapshot(r), len(sent)) for r in requests)

    drive_with_fallbacks(make(game_id), seed, watch=watch)
    for request, before, n in sent:
        assert _snapshot(request) == before, (
            f"{game_id}: request #{n} ({request.spec.kind!r} for seat {request.seat}) was "
            "changed after it was sent"
        )


_WRONG_VALUES: tuple[Any, ...] = (None, -1, 10**9, "", "?" * 5000, [], {"x": 1})


def _odd_actions(spec: ActionSpec) -> list[Action]:
    """An empty action, and the fallback with one value replaced by one of the wrong type
    or out of range."""
    base = spec.fallback() if spec.fallback is not None else {}
    return [{}] + [{**base, key: wrong} for key in base for wrong in _WRONG_VALUES]


def _short(action: Action) -> str:
    """An action as it appears in a failure message (long values cut)."""
    text = repr(action)
    return text if len(text) <= 120 else text[:117] + "..."


def _spec_refuses(spec: ActionSpec, action: Action) -> bool:
    """True when the spec's own ``validate`` refuses `action` (False without one: then
    nothing says the action is outside the spec)."""
    if spec.validate is None:
        return False
    try:
        spec.validate(copy.deepcopy(action))
    except ActionError:
        return True
    return False


def check_rejects_outside_spec(game_id: str, seed: int = 13) -> None:
    """Odd actions are data, not crashes (DESIGN principle 10): for each first request,
    `submit` of an empty action or of the fallback with one wrong value either takes it or
    raises `ActionError`, never anything else; it refuses every action the request's own
    ``validate`` refuses; and a refused action changes nothing (the same requests are
    still pending)."""
    probe = make(game_id)
    probe.reset(seed)
    for req in probe.pending():
        for action in _odd_actions(req.spec):
            game = make(game_id)
            game.reset(seed)
            before = [_snapshot(r) for r in game.pending()]
            try:
                game.submit(req.seat, copy.deepcopy(action))
            except ActionError:
                after = [_snapshot(r) for r in game.pending()]
                assert after == before, (
                    f"{game_id}: refusing {_short(action)} changed the pending requests"
                )
                continue
            except Exception as exc:
                raise AssertionError(
                    f"{game_id}: submit of {_short(action)} for a {req.spec.kind!r} request raised "
                    f"{type(exc).__name__}: {exc} (raise ActionError for a bad action)"
                ) from exc
            assert not _spec_refuses(req.spec, action), (
                f"{game_id}: submit accepted {_short(action)} for a {req.spec.kind!r} request, "
                "which the request's own spec refuses"
            )


def check_game(game_id: str) -> None:
    """Every conformance check."""
    check_api(game_id)
    check_determinism(game_id)
    check_requests_unchanged(game_id)
    check_rejects_outside_spec(game_id)
    check_oracle(game_id)
    check_trace_roundtrip(game_id)
    check_replay(game_id)
    check_bombardment(game_id)
    check_judges(game_id)
