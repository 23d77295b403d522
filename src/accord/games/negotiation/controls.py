"""The negotiation game's controls for a person in the browser (`accord serve --play`).

The person sees the market (supply, unit costs, their budget, at most ``max_types`` resource
types per purchase, seed 004 App. D.1.1) and their own projects, and answers with a message
and, when deciding, a quantity of each resource (plus, optionally, the runs of each project
they mean to complete, App. D.1.3). The page keeps the cost against the budget as they type;
the values become the reply a model sends in the game's format (the D.1.4 envelope with an
empty ``thinking``, or the D.6 plain form) and go through the request's own parser.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from accord.core.controls import PlayControls
from accord.core.errors import ActionError
from accord.core.spec import Action, Request
from accord.games.negotiation import actions, rules
from accord.games.negotiation.scenario import RESOURCES, Market, Project


def _envelope(request: Request) -> bool:
    """Whether the request takes the thinking envelope (D.1.4) rather than plain text (D.6)."""
    schema = request.spec.schema or {}
    return "thinking" in schema.get("properties", {})


def form(request: Request) -> dict[str, Any]:
    """The market, the seat's projects and what this phase asks for."""
    info = request.info
    phase = info["phase"]
    names: Mapping[str, str] = info["names"]
    if phase == "reflect":
        return {"game": "negotiation", "phase": phase, "text_max": actions.REFLECTION_MAX}
    market: Market = info["market"]
    projects: list[Project] = list(info["projects"])
    envelope = _envelope(request)
    return {
        "game": "negotiation",
        "phase": phase,
        "round": info["round"],
        "rounds": info["rounds"],
        "resources": [
            {
                "name": names[r],
                "cost": market.costs[r],
                "supply": market.supply[r],
                "max": int(market.budget // market.costs[r]),
            }
            for r in RESOURCES
        ],
        "budget": market.budget,
        "max_types": market.max_types,
        "projects": [
            {
                "name": p.name,
                "reward": p.reward,
                "needs": {names[r]: q for r, q in p.requirements.items()},
            }
            for p in projects
        ],
        # Talk with the envelope may carry a decision; in plain form a decision is sent alone.
        "may_decide": phase == "decide" or envelope,
        "must_decide": phase == "decide",
        "speech": "required" if envelope else ("none" if phase == "decide" else "alone"),
        "speech_max": actions.SPEECH_MAX,
    }


def _counts(raw: object, what: str) -> dict[str, int]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ActionError(f"{what} must map names to whole numbers")
    out: dict[str, int] = {}
    for name, value in raw.items():
        if value in (None, ""):
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ActionError(f"{what}: {name} must be a whole number of 0 or more")
        if value:
            out[str(name)] = value
    return out


def build(request: Request, values: Mapping[str, Any]) -> Action:
    """``{"speech", "decide", "purchase", "runs"}`` (or ``{"text"}`` for a reflection) from
    the page -> the seat's action, through its parser."""
    info = request.info
    if info["phase"] == "reflect":
        text = values.get("text")
        if not isinstance(text, str) or not text.strip():
            raise ActionError("write a short reflection")
        return request.spec.parse(json.dumps({"reflection": text.strip()}))
    speech = values.get("speech") or ""
    if not isinstance(speech, str):
        raise ActionError("the message must be text")
    decide = info["phase"] == "decide" or bool(values.get("decide"))
    decision: dict[str, Any] | None = None
    if decide:
        decision = dict(_counts(values.get("purchase"), "quantities"))
        runs = _counts(values.get("runs"), "project runs")
        by_name = {v: k for k, v in info["names"].items()}
        unknown = [n for n in decision if n not in by_name]
        if unknown:
            raise ActionError(f"unknown resource {unknown[0]!r}")
        if runs:
            purchase = {by_name[n]: q for n, q in decision.items()}
            rules.check_run_names(info["projects"], runs)
            rules.check_runs(info["projects"], purchase, runs)
            decision["projects"] = runs
    if _envelope(request):
        if not speech.strip():
            raise ActionError("write a message to the other party (every turn carries one)")
        text = json.dumps({"thinking": "", "speech": speech, "action": decision})
    elif decision is not None:
        text = json.dumps(decision)
    else:
        if not speech.strip():
            raise ActionError("write a message to the other party, or decide")
        if speech.lstrip().startswith("{"):
            # D.6: a reply that starts with "{" is read as a decision, not as talk.
            raise ActionError('a message may not start with "{"; reword its start')
        text = speech
    return request.spec.parse(text)


CONTROLS = PlayControls(form=form, build=build)
