"""Reference (non-LLM) agents of meeting-point-v1, declared in the game's `INFO` (``agents``).

* ``share``: says its costs (``my costs: 3,0,7,...``), then goes to the place cheapest for both
  when it has heard the partner's costs, else to its own cheapest. Two sharers reach the
  oracle whenever they may talk (the game's `oracle_agent`).
* ``stubborn``: proposes its own cheapest place and goes there, whatever it hears.
* ``agreeable``: agrees to the partner's latest proposal (or proposes its own cheapest while
  it has heard none) and goes there.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from accord.agents.base import Agent, Recorder
from accord.core.spec import Action, Request

from meeting_point.rules import cheapest

_COSTS = re.compile(r"my costs:\s*([0-9][0-9,\s]*)", re.IGNORECASE)
_PLACE = re.compile(r"meet at place (\d+)", re.IGNORECASE)


def heard_costs(request: Request) -> list[int] | None:
    """The partner's costs, if the partner said them in the ``my costs: ...`` form."""
    for seat, text in request.info["messages"]:
        match = _COSTS.search(text) if seat != request.seat else None
        if match:
            costs = [int(c) for c in re.findall(r"\d+", match.group(1))]
            if len(costs) == len(request.info["places"]):
                return costs
    return None


def proposed_place(messages: Sequence[Sequence[object]], by: int) -> int | None:
    """The last place seat `by` proposed (``meet at place N``), if any."""
    places = [int(m.group(1)) for s, t in messages if s == by for m in _PLACE.finditer(str(t))]
    return places[-1] if places else None


class Share(Agent):
    """Tells its costs, then picks the place cheapest for both."""

    async def act(self, request: Request, record: Recorder | None = None) -> Action:
        own = request.info["costs"]
        if request.spec.kind == "talk":
            return {"message": "my costs: " + ",".join(map(str, own))}
        theirs = heard_costs(request)
        if theirs is None:
            return {"place": cheapest(own)}
        return {"place": cheapest([a + b for a, b in zip(own, theirs, strict=True)])}


class Stubborn(Agent):
    """Proposes and goes to its own cheapest place."""

    async def act(self, request: Request, record: Recorder | None = None) -> Action:
        best = cheapest(request.info["costs"])
        if request.spec.kind == "talk":
            return {"message": f"Let us meet at place {best}."}
        return {"place": best}


class Agreeable(Agent):
    """Goes along with the partner's proposal."""

    async def act(self, request: Request, record: Recorder | None = None) -> Action:
        partner = 1 - request.seat
        proposal = proposed_place(request.info["messages"], partner)
        place = cheapest(request.info["costs"]) if proposal is None else proposal
        if request.spec.kind == "talk":
            return {"message": f"Fine, let us meet at place {place}."}
        return {"place": place}


AGENTS: dict[str, Callable[[], Agent]] = {
    "share": Share,
    "stubborn": Stubborn,
    "agreeable": Agreeable,
}
"""Agent name (as written in ``--agents``) -> factory."""
