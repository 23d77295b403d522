"""``accord agent check``: a conformance kit for remote agents.

It plays a small game of each built-in game with the agent in seat 0 (reference agents in the
other seats) and reads the trace point by point. Each point is ``pass``, ``FAIL`` or ``not
exercised``: a point the game never put to the test (no act was made, the refusal was never
reached, the agent never retried) says so, and is never a pass.

* **joins**: the agent made a call before ``join_s`` ran out;
* **uses its token**: no call without a valid token reached the server;
* **reads its observation**: it fetched each request (``wait_for_request`` / ``observe``)
  before answering it;
* **acts only when asked**: no ``act`` for a request that was never open to it;
* **respects deadlines**: every request answered in time;
* **valid actions**: its replies pass the request's own parser (retries allowed);
* **malformed arguments**: every call's arguments were well formed (JSON objects with the
  documented fields);
* **body bounds**: no body over the size limit and no reply over ``MAX_REPLY_CHARS``;
* **idempotent retry**: a repeated ``act`` of an accepted reply was a retry (the same key, or
  the same request and reply), never a second, different answer;
* **identity**: what the agent said it is was well formed (not exercised when it said nothing:
  identity is optional);
* **handles an error reply**: the kit refuses its first valid reply once, on purpose, and the
  agent must answer the same request again;
* **stays to the end**: a started agent did not exit before its game ended;
* **game complete**: the game ended normally.

With an ``out`` folder, the check games' traces are written to ``out/traces`` and a started
agent's stderr to ``out/remote`` (as a run keeps them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accord.agents.base import Agent
from accord.agents.reference import make_reference
from accord.core.errors import ConfigError
from accord.core.gameinfo import all_infos
from accord.core.registry import make, resolve
from accord.remote.spec import RemoteSeatSpec
from accord.runner.play import play_game
from accord.runner.specs import GameSpec, parse_agent
from accord.traces.events import Event
from accord.traces.io import write_trace
from accord.traces.schema import Trace


def check_games() -> list[tuple[str, dict[str, Any], str]]:
    """Game alias, options, and the reference agent of the other seats, for every installed
    game that declares an `AgentCheckGame` (`GameInfo.agent_check`)."""
    return [
        (info.alias, dict(info.agent_check.options), info.agent_check.others)
        for info in all_infos()
        if info.agent_check is not None
    ]


REFUSAL = (
    "accord agent check refuses this first valid reply once, on purpose: answer the same "
    "request again"
)

PASS, FAIL, UNTESTED = "pass", "FAIL", "not exercised"
"""The three verdicts of a point."""

POINTS = (
    "joins",
    "uses its token",
    "reads its observation",
    "acts only when asked",
    "respects deadlines",
    "valid actions",
    "malformed arguments",
    "body bounds",
    "idempotent retry",
    "identity",
    "handles an error reply",
    "stays to the end",
    "game complete",
)

_MALFORMED = (
    "malformed act arguments",
    "the body is not a JSON object",
    "the body must be a JSON object",
    "timeout_s must be",
    "send one JSON object",
)
_OVERSIZE = ("request body too large", "characters; at most", "MAX_BODY_BYTES")


@dataclass
class GameCheck:
    """How the agent did in one game: each point's verdict and a short why."""

    game: str
    points: dict[str, tuple[str, str]] = field(default_factory=dict)
    error: str | None = None

    @property
    def passed(self) -> bool:
        """True when no point failed (points not exercised are listed, never passed)."""
        return all(verdict != FAIL for verdict, _ in self.points.values())

    def verdict(self, point: str) -> str:
        """``pass``, ``FAIL`` or ``not exercised``."""
        return self.points[point][0]


def _calls(trace: Trace) -> list[Event]:
    return [e for e in trace.events if e["type"] == "remote_call" and e.get("seat") == 0]


def _when(ok: bool, good: str, bad: str) -> tuple[str, str]:
    return (PASS, good) if ok else (FAIL, bad)


def _has(call: Event, words: tuple[str, ...]) -> bool:
    error = str(call.get("error") or "")
    return not call.get("ok") and any(w in error for w in words)


def judge(game: str, trace: Trace) -> GameCheck:
    """Read one check game's trace point by point (module docstring)."""
    calls = _calls(trace)
    failed = [e for e in trace.events if e["type"] == "remote_failed"]
    reason = failed[0]["error"] if failed else ""
    unauthenticated = sum(
        int(e.get("calls", 0)) for e in trace.events if e["type"] == "remote_unauthenticated"
    )
    acts = [c for c in calls if c["tool"] == "act"]
    requests = [e for e in trace.events if e["type"] == "remote_request" and e["seat"] == 0]
    answered_ids = [e["request_id"] for e in trace.events if e["type"] == "remote_action"]
    fetched: set[int] = set()
    accepted: set[int] = set()
    blind: list[int] = []
    unasked: list[Event] = []
    changed: list[Event] = []
    retries = 0
    for c in calls:
        rid = c.get("request_id")
        if c["tool"] in ("wait_for_request", "observe") and rid is not None:
            fetched.add(rid)
        if c["tool"] != "act":
            continue
        if c.get("repeated"):
            retries += 1
        elif "is not open" in str(c.get("error") or ""):
            # Re-sending an answered request with another reply and no key is a retry done
            # wrong; any other act for a request not open is acting out of turn.
            (changed if rid in accepted else unasked).append(c)
        elif rid not in fetched:
            blind.append(rid if isinstance(rid, int) else -1)
        if c.get("ok") and not c.get("repeated") and isinstance(rid, int):
            accepted.add(rid)
    late = [c for c in acts if "past its deadline" in str(c.get("error") or "")]
    malformed = [c for c in calls if _has(c, _MALFORMED)]
    oversize = [c for c in calls if _has(c, _OVERSIZE)]
    bad_identity = [c for c in calls if _has(c, ("malformed agent identity",))]
    identities = [e for e in trace.events if e["type"] == "remote_identity"]
    refused = [c for c in acts if not c.get("ok")]
    invalid = [
        c
        for c in refused
        if c.get("error") != REFUSAL and c not in unasked + late + changed + malformed + oversize
    ]
    refusal_at = next((i for i, c in enumerate(acts) if c.get("error") == REFUSAL), None)
    again = refusal_at is not None and any(
        c.get("ok") and c.get("request_id") == acts[refusal_at].get("request_id")
        for c in acts[refusal_at + 1 :]
    )
    check = GameCheck(game, error=trace.error)
    p = check.points
    joined = bool(calls)
    p["joins"] = _when(joined, f"{len(calls)} calls", reason or "no call with a valid token")
    if unauthenticated:
        p["uses its token"] = (FAIL, f"{unauthenticated} calls without a valid token (401)")
    elif joined:
        p["uses its token"] = (PASS, "every call carried its token")
    else:
        p["uses its token"] = (UNTESTED, "no call reached the server")
    p["reads its observation"] = (
        _when(
            not blind,
            "fetched every request before answering",
            f"answered request {blind[0] if blind else '?'} without fetching it",
        )
        if acts
        else (UNTESTED, "no act was made")
    )
    p["acts only when asked"] = (
        _when(not unasked, "never acted out of turn", f"{len(unasked)} acts for requests not open")
        if acts
        else (UNTESTED, "no act was made")
    )
    missed = "missed deadline" in reason
    if missed or late:
        p["respects deadlines"] = (FAIL, reason if missed else f"{len(late)} late answers")
    elif answered_ids:
        p["respects deadlines"] = (PASS, f"{len(answered_ids)} answers, every one in time")
    else:
        p["respects deadlines"] = (UNTESTED, "no request was answered")
    if "protocol violation" in reason:
        p["valid actions"] = (FAIL, reason)
    elif answered_ids:
        p["valid actions"] = (
            PASS,
            f"{len(answered_ids)} of {len(requests)} requests answered, {len(invalid)} replies "
            "refused by the parser",
        )
    else:
        p["valid actions"] = (UNTESTED, "no reply was accepted")
    if not calls:
        p["malformed arguments"] = (UNTESTED, "no call was made")
    elif malformed:
        first = malformed[0].get("error")
        p["malformed arguments"] = (FAIL, f"{len(malformed)} malformed calls (the first: {first})")
    else:
        p["malformed arguments"] = (PASS, f"{len(calls)} calls, every one well formed")
    p["body bounds"] = (
        _when(
            not oversize,
            "every body and reply within its limit",
            f"{len(oversize)} calls over a size limit (the first: "
            f"{oversize[0].get('error') if oversize else ''})",
        )
        if calls
        else (UNTESTED, "no call was made")
    )
    if changed:
        p["idempotent retry"] = (
            FAIL,
            f"re-sent request {changed[0].get('request_id')} after it was accepted with another "
            "reply and no key (send the same key, or the same reply, with a retry)",
        )
    elif retries:
        p["idempotent retry"] = (PASS, f"{retries} retries, each answered as a repeat")
    else:
        p["idempotent retry"] = (UNTESTED, "the agent never re-sent an accepted act")
    if bad_identity:
        p["identity"] = (FAIL, str(bad_identity[0].get("error")))
    elif identities:
        said = identities[-1]
        p["identity"] = (PASS, f"says it is {said.get('name')} {said.get('version') or ''}".strip())
    else:
        p["identity"] = (UNTESTED, "the agent did not say who it is (optional)")
    if refusal_at is None:
        p["handles an error reply"] = (UNTESTED, "the refusal was never reached")
    else:
        p["handles an error reply"] = _when(
            again, "answered again after the refusal", "did not answer again after the refusal"
        )
    if "exited" in reason:
        p["stays to the end"] = (FAIL, reason)
    elif trace.status == "complete":
        p["stays to the end"] = (PASS, "stayed until the game ended")
    else:
        p["stays to the end"] = (UNTESTED, "the game ended early for another reason")
    p["game complete"] = _when(trace.status == "complete", "complete", trace.error or "failed")
    return check


async def play_check_game(
    remote: RemoteSeatSpec,
    game: str,
    options: dict[str, Any],
    other: str,
    *,
    seed: int,
    seat: Callable[[str, str], Agent],
) -> Trace:
    """One check game: the agent under test in seat 0 (built by `seat` from the game id and
    trace id), the game's reference agent `other` in every other seat."""
    game_id = resolve(game)
    seats = make(game_id, options).num_seats
    trace_id = f"check-{game}"
    agents: list[Agent] = [seat(game_id, trace_id)]
    agents += [make_reference(game_id, other) for _ in range(seats - 1)]
    seat_specs = [parse_agent({"agent": remote.model_dump(exclude_none=True)})]
    seat_specs += [parse_agent(other)] * (seats - 1)
    spec = GameSpec(trace_id=trace_id, game=game_id, seed=seed, options=options, agents=seat_specs)
    return await play_game(spec, agents)


async def check_agent(
    remote: RemoteSeatSpec,
    *,
    games: tuple[str, ...] | None = None,
    seed: int = 1,
    out: Path | None = None,
) -> list[GameCheck]:
    """Play one check game per built-in game (or those in `games`) against the agent; with
    `out`, keep each game's trace (``out/traces``) and a started agent's stderr
    (``out/remote``)."""
    if remote.is_a2a:
        raise ConfigError(
            "an A2A seat is checked by accord.testing.a2a_check.check_a2a_agent "
            "(accord agent check --protocol a2a)"
        )
    from accord.agents.remote import RemoteAgent
    from accord.remote.process import RUN_DIR

    token = RUN_DIR.set(out) if out is not None else None
    try:
        results = []
        for game, options, other in check_games():
            if games is not None and game not in games:
                continue

            def seat(game_id: str, trace_id: str) -> Agent:
                agent = RemoteAgent(remote, game_id, session=trace_id)
                agent.refuse_first_reply = REFUSAL
                return agent

            trace = await play_check_game(remote, game, options, other, seed=seed, seat=seat)
            if out is not None:
                write_trace(out / "traces", trace)
            results.append(judge(game, trace))
        return results
    finally:
        if token is not None:
            RUN_DIR.reset(token)
