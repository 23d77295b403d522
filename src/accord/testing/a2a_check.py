"""``accord agent check --protocol a2a``: the conformance kit for A2A agents.

The same check games as for the seat protocol (`accord.testing.agent_check`), with the agent in
seat 0 called over A2A (`accord.agents.a2a`). Points, read from the trace:

* **joins**: its agent card was fetched and usable before ``join_s`` ran out;
* **refuses a wrong token**: once joined, the kit sends one decision with a wrong bearer token
  and the agent must refuse it (HTTP 401 or 403);
* **respects deadlines**: every request answered in time (at least one answered);
* **valid actions**: its replies pass the request's own parser (retries allowed);
* **handles an error reply**: the kit refuses its first valid reply once, on purpose, and the
  agent must answer the same request again;
* **game complete**: the game ended normally.

A point the game never reached says so and fails: nothing passes without being exercised.
The seat protocol's "reads its observation" and "acts only when asked" have no A2A meaning
(each message carries its observation, and the agent can only answer what it is sent).
"""

from __future__ import annotations

from accord.agents.base import Agent
from accord.remote.spec import RemoteSeatSpec
from accord.testing.agent_check import (
    FAIL,
    PASS,
    REFUSAL,
    UNTESTED,
    GameCheck,
    check_games,
    play_check_game,
)
from accord.traces.schema import Trace

POINTS = (
    "joins",
    "refuses a wrong token",
    "respects deadlines",
    "valid actions",
    "handles an error reply",
    "game complete",
)

PROBE = "wrong-token probe"
"""The ``remote_call`` tool name of the kit's call with a wrong token."""


def _point(ok: bool, why: str) -> tuple[str, str]:
    """A point's verdict: never a pass when the games did not put it to the test."""
    if why.startswith("not exercised"):
        return UNTESTED, why
    return (PASS if ok else FAIL), why


def judge_a2a(game: str, trace: Trace) -> GameCheck:
    """Read one A2A check game's trace point by point."""
    calls = [e for e in trace.events if e["type"] == "remote_call" and e.get("seat") == 0]
    failed = [e for e in trace.events if e["type"] == "remote_failed" and e.get("seat") == 0]
    reason = failed[0]["error"] if failed else ""
    card = [c for c in calls if c["tool"] == "agent-card" and c.get("ok")]
    probes = [c for c in calls if c["tool"] == PROBE]
    sends = [c for c in calls if c["tool"] == "message/send"]
    requests = [e for e in trace.events if e["type"] == "remote_request" and e.get("seat") == 0]
    answered = [e for e in trace.events if e["type"] == "remote_action" and e.get("seat") == 0]
    refusal_at = next((i for i, c in enumerate(sends) if c.get("error") == REFUSAL), None)
    again = refusal_at is not None and any(
        c.get("ok") and c.get("request_id") == sends[refusal_at].get("request_id")
        for c in sends[refusal_at + 1 :]
    )
    invalid = [c for c in sends if not c.get("ok") and c.get("error") != REFUSAL]
    check = GameCheck(game, error=trace.error)
    p = check.points
    p["joins"] = _point(bool(card), "its agent card was read" if card else reason or "never joined")
    if not probes:
        p["refuses a wrong token"] = _point(False, "not exercised: the agent never joined")
    else:
        probe = probes[0]
        p["refuses a wrong token"] = _point(
            bool(probe.get("ok")),
            str(probe.get("error") or "refused the wrong token"),
        )
    missed = "missed deadline" in reason
    p["respects deadlines"] = _point(
        bool(answered) and not missed,
        reason if missed else "every answer in time" if answered else "not exercised: no answer",
    )
    p["valid actions"] = _point(
        bool(answered) and "protocol violation" not in reason,
        f"{len(answered)} of {len(requests)} requests answered, {len(invalid)} replies refused",
    )
    p["handles an error reply"] = _point(
        again,
        "answered again after the refusal"
        if again
        else "not exercised: the refusal was never reached"
        if refusal_at is None
        else "did not answer again after the refusal",
    )
    p["game complete"] = _point(trace.status == "complete", trace.error or "complete")
    return check


async def check_a2a_agent(
    remote: RemoteSeatSpec, *, games: tuple[str, ...] | None = None, seed: int = 1
) -> list[GameCheck]:
    """Play one check game per built-in game (or those in `games`) against the A2A agent."""
    from accord.agents.a2a import A2AAgent

    results = []
    for game, options, other in check_games():
        if games is not None and game not in games:
            continue

        def seat(game_id: str, trace_id: str) -> Agent:
            agent = A2AAgent(remote, game_id, session=trace_id)
            agent.refuse_first_reply = REFUSAL
            agent.probe_wrong_token = PROBE
            return agent

        trace = await play_check_game(remote, game, options, other, seed=seed, seat=seat)
        results.append(judge_a2a(game, trace))
    return results
