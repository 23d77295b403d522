"""``accord agent check``: a conformance kit for remote agents.

It plays a small game of each built-in game with the agent in seat 0 (reference agents in the
other seats) and reads the trace point by point:

* **joins**: the agent made a call before ``join_s`` ran out;
* **reads its observation**: it fetched each request (``wait_for_request`` / ``observe``)
  before answering it;
* **acts only when asked**: no ``act`` for a request that was not open;
* **respects deadlines**: every request answered in time;
* **valid actions**: its replies pass the request's own parser (retries allowed);
* **handles an error reply**: the kit refuses its first valid reply once, on purpose, and the
  agent must answer the same request again;
* **game complete**: the game ended normally.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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

POINTS = (
    "joins",
    "reads its observation",
    "acts only when asked",
    "respects deadlines",
    "valid actions",
    "handles an error reply",
    "game complete",
)


@dataclass
class GameCheck:
    """How the agent did in one game: each point's verdict and a short why."""

    game: str
    points: dict[str, tuple[bool, str]] = field(default_factory=dict)
    error: str | None = None

    @property
    def passed(self) -> bool:
        """True when every point passed."""
        return all(ok for ok, _ in self.points.values())


def _calls(trace: Trace) -> list[Event]:
    return [e for e in trace.events if e["type"] == "remote_call" and e.get("seat") == 0]


def judge(game: str, trace: Trace) -> GameCheck:
    """Read one check game's trace point by point."""
    calls = _calls(trace)
    failed = [e for e in trace.events if e["type"] == "remote_failed"]
    reason = failed[0]["error"] if failed else ""
    acts = [c for c in calls if c["tool"] == "act"]
    requests = [e for e in trace.events if e["type"] == "remote_request" and e["seat"] == 0]
    answered = {e["request_id"] for e in trace.events if e["type"] == "remote_action"}
    fetched: set[int] = set()
    blind: list[int] = []
    for c in calls:
        if c["tool"] in ("wait_for_request", "observe") and c.get("request_id") is not None:
            fetched.add(c["request_id"])
        elif c["tool"] == "act" and c.get("request_id") not in fetched:
            blind.append(c.get("request_id", -1))
    unasked = [c for c in acts if "is not open" in c.get("error", "")]
    late = [c for c in acts if "past its deadline" in c.get("error", "")]
    refused = [c for c in acts if not c.get("ok") and c not in unasked and c not in late]
    invalid = [c for c in refused if c.get("error") != REFUSAL]
    refusal_at = next((i for i, c in enumerate(acts) if c.get("error") == REFUSAL), None)
    again = refusal_at is not None and any(
        c.get("ok") and c.get("request_id") == acts[refusal_at].get("request_id")
        for c in acts[refusal_at + 1 :]
    )
    check = GameCheck(game, error=trace.error)
    p = check.points
    p["joins"] = (bool(calls), f"{len(calls)} calls" if calls else reason or "no call")
    p["reads its observation"] = (
        bool(calls) and not blind,
        "fetched every request before answering"
        if not blind
        else f"answered request {blind[0]} without fetching it",
    )
    p["acts only when asked"] = (
        not unasked,
        "never" if not unasked else f"{len(unasked)} act calls for requests not open",
    )
    missed = "missed deadline" in reason
    p["respects deadlines"] = (
        not late and not missed,
        reason if missed else f"{len(late)} late answers" if late else "every answer in time",
    )
    p["valid actions"] = (
        bool(answered) and "protocol violation" not in reason,
        f"{len(answered)} of {len(requests)} requests answered, {len(invalid)} replies refused "
        "by the parser",
    )
    p["handles an error reply"] = (
        again,
        "answered again after the refusal"
        if again
        else "the refusal was never reached"
        if refusal_at is None
        else "did not answer again after the refusal",
    )
    p["game complete"] = (trace.status == "complete", trace.error or "complete")
    return check


async def check_agent(
    remote: RemoteSeatSpec, *, games: tuple[str, ...] | None = None, seed: int = 1
) -> list[GameCheck]:
    """Play one check game per built-in game (or those in `games`) against the agent."""
    if remote.is_a2a:
        raise ConfigError(
            "an A2A seat is checked by accord.testing.a2a_check.check_a2a_agent "
            "(accord agent check --protocol a2a)"
        )
    results = []
    for game, options, other in check_games():
        if games is not None and game not in games:
            continue
        game_id = resolve(game)
        seats = make(game_id, options).num_seats
        from accord.agents.remote import RemoteAgent

        trace_id = f"check-{game}"
        agent = RemoteAgent(remote, game_id, session=trace_id)
        agent.refuse_first_reply = REFUSAL
        agents: list[Agent] = [agent] + [make_reference(game_id, other) for _ in range(seats - 1)]
        seat_specs = [parse_agent({"agent": remote.model_dump(exclude_none=True)})]
        seat_specs += [parse_agent(other)] * (seats - 1)
        spec = GameSpec(
            trace_id=trace_id, game=game_id, seed=seed, options=options, agents=seat_specs
        )
        trace = await play_game(spec, agents)
        results.append(judge(game, trace))
    return results
