"""Reference (non-LLM) agents of the negotiation game (the human seat is in `human`).

They are baselines and test drivers (seed 004 names no such protocols; these are ours):

- ``cooperative``: exchanges projects in typed messages, computes a joint optimum with the
  exact oracle, proposes it, and both sides buy their share. Two cooperative agents reach a
  joint optimum in every round. Against a partner that never shares, it falls back to the best
  plan that fits within half of each resource's supply.
- ``greedy``: the individual maximiser; buys its best plan as if alone (V_i), at once.
- ``equal-split``: assumes each side gets half of every resource and buys its best plan
  within that, at once.

Typed messages travel in the ordinary speech channel as ``[coop] {json}`` with themed resource
names, so an LLM partner can read them too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from accord.agents.base import Agent, Recorder, no_record
from accord.core.spec import Action, Request
from accord.games.negotiation import oracle, rules
from accord.games.negotiation.scenario import RESOURCES, Market, Project

_TAG = "[coop]"
_MSG = re.compile(r"\[coop\]\s*(\{.*\})", re.S)


def plan_decision(projects: Sequence[Project], plan: oracle.Plan) -> dict[str, Any]:
    """A decision (abstract ids) that buys exactly what `plan` needs and names its runs."""
    purchase = rules.normalize_purchase(dict(zip(RESOURCES, plan.need, strict=True)))
    runs = {p.name: k for p, k in zip(projects, plan.runs, strict=True) if k > 0}
    return {"purchase": purchase, "runs": runs}


def best_plan_within(
    market: Market, projects: Sequence[Project], cap: Mapping[str, int]
) -> oracle.Plan:
    """The highest-reward plan whose needs stay within `cap` (ties: cheaper, then first)."""
    plans = [
        p
        for p in oracle.agent_plans(market, projects)
        if all(q <= cap[r] for r, q in zip(RESOURCES, p.need, strict=True))
    ]
    cost = {
        p: rules.purchase_cost(market, dict(zip(RESOURCES, p.need, strict=True))) for p in plans
    }
    return max(plans, key=lambda p: (p.reward, -cost[p]))


def _decide(decision: dict[str, Any], speech: str) -> Action:
    return {"thinking": "", "speech": speech, "decision": decision}


def _to_names(purchase: Mapping[str, int], names: Mapping[str, str]) -> dict[str, int]:
    return {names[r]: q for r, q in purchase.items()}


class GreedyAgent(Agent):
    """Buys its individual optimum at the first chance, whatever the partner does."""

    spec = "greedy"

    async def act(self, request: Request, record: Recorder = no_record) -> Action:
        info = request.info
        if info["phase"] == "reflect":
            return {"reflection": "I bought my individual optimum every round."}
        market: Market = info["market"]
        dec = plan_decision(
            info["projects"], best_plan_within(market, info["projects"], market.supply)
        )
        return _decide(dec, f"I am buying {json.dumps(_to_names(dec['purchase'], info['names']))}.")


class EqualSplitAgent(Agent):
    """Takes at most half of every resource (rounded down) and buys its best plan within it."""

    spec = "equal-split"

    async def act(self, request: Request, record: Recorder = no_record) -> Action:
        info = request.info
        if info["phase"] == "reflect":
            return {"reflection": "I kept to an even split of every resource."}
        market: Market = info["market"]
        half = {r: market.supply[r] // 2 for r in RESOURCES}
        dec = plan_decision(info["projects"], best_plan_within(market, info["projects"], half))
        return _decide(dec, "Let's split every resource evenly; I will stay within half of each.")


class CooperativeAgent(Agent):
    """Shares projects, agrees on a joint optimum computed by the oracle, buys its share."""

    spec = "cooperative"

    def __init__(self) -> None:
        super().__init__()
        self._round = -1
        self._shared = False
        self._partner: tuple[Project, ...] | None = None
        self._plan: dict[str, Any] | None = None

    async def act(self, request: Request, record: Recorder = no_record) -> Action:
        info = request.info
        if info["phase"] == "reflect":
            return {"reflection": "Sharing projects and agreeing on a joint optimum worked."}
        if info["round"] != self._round:
            self._round, self._shared, self._plan = info["round"], False, None
            self._partner = tuple(info["partner_projects"]) if info["partner_projects"] else None
        names: dict[str, str] = info["names"]
        self._read(info.get("partner_said"), names, request.seat)
        if self._plan is None and self._partner is not None:
            self._plan = self._agree(info["market"], info["projects"], request.seat)
            if info["phase"] == "talk":
                msg = {
                    "type": "plan",
                    "projects": self._projects_msg(info["projects"], names),
                    "plan": self._plan_msg(names),
                }
                return _decide(self._plan["mine"], f"{_TAG} {json.dumps(msg)}")
        if self._plan is not None:
            return _decide(self._plan["mine"], f"{_TAG} " + json.dumps({"type": "accept"}))
        # A partner that already decided reads nothing more this round (App. D.1): do as the
        # notice asks and decide now rather than talk into the void.
        if info["phase"] == "talk" and not self._shared and not info.get("partner_decided"):
            self._shared = True
            msg = {"type": "projects", "projects": self._projects_msg(info["projects"], names)}
            return {"thinking": "", "speech": f"{_TAG} {json.dumps(msg)}", "decision": None}
        market: Market = info["market"]
        if info["phase"] == "talk" and not info.get("partner_decided"):
            return {
                "thinking": "",
                "speech": f"{_TAG} " + json.dumps({"type": "waiting"}),
                "decision": None,
            }
        half = {r: market.supply[r] // 2 for r in RESOURCES}
        return _decide(
            plan_decision(info["projects"], best_plan_within(market, info["projects"], half)),
            "I will stay within half of each resource.",
        )

    # -- typed messages ----------------------------------------------------------------------
    @staticmethod
    def _projects_msg(
        projects: Sequence[Project], names: Mapping[str, str]
    ) -> list[dict[str, Any]]:
        return [
            {"name": p.name, "requirements": _to_names(p.requirements, names), "reward": p.reward}
            for p in projects
        ]

    def _plan_msg(self, names: Mapping[str, str]) -> dict[str, Any]:
        assert self._plan is not None
        yours = self._plan["yours"]
        return {"you_buy": _to_names(yours["purchase"], names), "you_run": yours["runs"]}

    def _read(self, said: str | None, names: Mapping[str, str], seat: int) -> None:
        if not said:
            return
        m = _MSG.search(said)
        if not m:
            return
        try:
            msg = json.loads(m.group(1))
        except json.JSONDecodeError:
            return
        by_name = {v: k for k, v in names.items()}
        if isinstance(msg.get("projects"), list):
            try:
                self._partner = tuple(
                    Project(
                        name=p["name"],
                        requirements={by_name[k]: int(v) for k, v in p["requirements"].items()},
                        reward=int(p["reward"]),
                    )
                    for p in msg["projects"]
                )
            except (KeyError, TypeError, ValueError):
                self._partner = None
        plan = msg.get("plan")
        if msg.get("type") == "plan" and isinstance(plan, dict):
            purchase = {
                by_name[k]: int(v) for k, v in plan.get("you_buy", {}).items() if k in by_name
            }
            self._plan = {"mine": {"purchase": purchase, "runs": dict(plan.get("you_run", {}))}}

    def _agree(self, market: Market, mine: Sequence[Project], seat: int) -> dict[str, Any]:
        assert self._partner is not None
        p0, p1 = (tuple(mine), self._partner) if seat == 0 else (self._partner, tuple(mine))
        optima = oracle.joint_optima(market, p0, p1)
        # The most even split of M; the oracle's order breaks remaining ties deterministically.
        best = min(optima, key=lambda o: abs(o.rewards[0] - o.rewards[1]))
        parts = [{"purchase": dict(best.purchases[i]), "runs": dict(best.runs[i])} for i in (0, 1)]
        return {"mine": parts[seat], "yours": parts[1 - seat]}


REFERENCE_AGENTS: dict[str, Callable[[], Agent]] = {
    "cooperative": CooperativeAgent,
    "greedy": GreedyAgent,
    "equal-split": EqualSplitAgent,
}
