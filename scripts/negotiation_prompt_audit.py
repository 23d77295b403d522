"""What each seat of the negotiation game is told about its partner in one round, per condition.

Plays every partner x projects x transparency condition with fixed scripted moves and reads
the prompts the game builds (system prompt and the round's observations), then prints a
Markdown table: which round's partner projects the seat sees (and whether with rewards), the
reward-function line, the goal, the partner line, the round counter, and whether its context
was reset. Run:  python scripts/negotiation_prompt_audit.py [--round 3] [--seed 0]
"""

from __future__ import annotations

import argparse
import itertools
from typing import Any

from accord.core.registry import make
from accord.games.negotiation.scenario import RESOURCES, Project, format_requirements

TALK: dict[str, Any] = {"thinking": "", "speech": "hello", "decision": None}
DECIDE: dict[str, Any] = {
    "thinking": "",
    "speech": "ok",
    "decision": {"purchase": {"r1": 1}, "runs": None},
}


def _needs(p: Project, names: dict[str, str]) -> str:
    return f"- {p.name}: needs [{format_requirements(p.requirements, names)}] per run"


def _partner_rounds(text: str, game: Any, seat: int, round_no: int, names: dict[str, str]) -> str:
    """Whose-round partner portfolio appears in `text`: "current" (the round's own), "round k"
    for a stale one, or "none" (matched by exact project lines)."""
    found = set()
    for k, sc in enumerate(game._round_scenarios, start=1):
        lines = [_needs(p, names) for p in sc.agents[1 - seat]]
        if all(line in text for line in lines):
            found.add("current" if sc == game._round_scenarios[round_no - 1] else f"round {k}")
    if not found:
        return "none"
    rewards = "with rewards" if "pays" in text.split("other party's projects")[-1] else "no rewards"
    return " + ".join(sorted(found)) + f" ({rewards})"


def _partner_line(system: str) -> str:
    keys = ("opponent", "stand-alone", "same shared supply")
    return next((x[2:] for x in system.splitlines() if any(k in x for k in keys)), "–")


def audit(round_no: int, seed: int) -> list[dict[str, str]]:
    rows = []
    grid = itertools.product(
        ("stable", "shifting"), ("fixed", "rotating"), ("none", "full", "joint")
    )
    for partner, projects, transparency in grid:
        opts = {
            "ratio": 0.8, "rounds": 4, "partner": partner, "projects": projects,
            "transparency": transparency, "theme": "medieval", "reflection": False,
            "talk_turns": 1,
        }  # fmt: skip
        game = make("negotiation", opts)
        game.reset(seed)
        seen: dict[int, list[Any]] = {0: [], 1: []}
        while not game.done():
            for req in game.pending():
                if req.round == round_no:
                    seen[req.seat].append(req)
                game.submit(req.seat, DECIDE if req.spec.kind == "decide" else TALK)
        names = dict(zip(RESOURCES, ("wood", "stone", "gold"), strict=True))
        for seat in (0, 1):
            reqs = seen[seat]
            system = reqs[0].system or ""
            obs = "\n".join(r.observation for r in reqs)
            rows.append(
                {
                    "partner": partner,
                    "projects": projects,
                    "transparency": transparency,
                    "seat": "AB"[seat],
                    "context": "reset" if reqs[0].reset_context else "carried",
                    "partner projects in system prompt": _partner_rounds(
                        system, game, seat, round_no, names
                    ),
                    "partner projects in round notice": _partner_rounds(
                        obs, game, seat, round_no, names
                    ),
                    "reward functions": "yes" if "How each party is paid" in system else "no",
                    "goal": ("joint" if "JOINT" in system else "own")
                    + ("" if "all rounds" in system else ", this round only"),
                    "partner line": _partner_line(system),
                    "round counter": "yes" if f"round {round_no} of" in obs else "no",
                }
            )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--round", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rows = audit(args.round, args.seed)
    cols = list(rows[0])
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(r[c] for c in cols) + " |")


if __name__ == "__main__":
    main()
