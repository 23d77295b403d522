"""What each seat of the negotiation game was told about its partner in one round, per condition.

Two sources:

- default: plays every partner x projects x transparency condition with fixed scripted moves
  and reads the prompts the game builds (system prompt and the round's observations);
- ``--from DIR``: reads the stored transcripts of the traces in a run directory (the chat
  messages each model seat was actually sent in that round).

Prints a Markdown table: which round's partner projects the seat sees (and whether with
rewards), the reward-function line, the goal, the partner line, the round counter, and whether
its context was reset. Run:  python scripts/negotiation_prompt_audit.py [--round 3] [--from DIR]
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path
from typing import Any

from accord.core.registry import make
from accord.games.negotiation.scenario import Project, Scenario, format_requirements

TALK: dict[str, Any] = {"thinking": "", "speech": "hello", "decision": None}
DECIDE: dict[str, Any] = {
    "thinking": "",
    "speech": "ok",
    "decision": {"purchase": {"r1": 1}, "runs": None},
}
KEYS = ("opponent", "stand-alone", "same shared supply")


def _needs(p: Project, names: dict[str, str]) -> str:
    return f"- {p.name}: needs [{format_requirements(p.requirements, names)}] per run"


def _partner_rounds(
    text: str, scenarios: list[Scenario], seat: int, round_no: int, names: dict[str, str]
) -> str:
    """Whose-round partner portfolio appears in `text`: "current" (the round's own), "round k"
    for a stale one, or "none" (matched by exact project lines)."""
    found = set()
    for k, sc in enumerate(scenarios, start=1):
        lines = [_needs(p, names) for p in sc.agents[1 - seat]]
        if all(line in text for line in lines):
            found.add("current" if sc == scenarios[round_no - 1] else f"round {k}")
    if not found:
        return "none"
    rewards = "with rewards" if "pays" in text.split("other party's projects")[-1] else "no rewards"
    return " + ".join(sorted(found)) + f" ({rewards})"


def describe(
    cond: dict[str, str],
    seat: int,
    system: str,
    obs: str,
    reset: bool,
    scenarios: list[Scenario],
    names: dict[str, str],
    round_no: int,
) -> dict[str, str]:
    """One table row: what `system` and this round's `obs` tell `seat` about its partner."""
    line = next((x[2:] for x in system.splitlines() if any(k in x for k in KEYS)), "–")
    return {
        **cond,
        "seat": "AB"[seat],
        "context": "reset" if reset else "carried",
        "partner projects in system prompt": _partner_rounds(
            system, scenarios, seat, round_no, names
        ),
        "partner projects in round notice": _partner_rounds(obs, scenarios, seat, round_no, names),
        "reward functions": "yes" if "How each party is paid" in system else "no",
        "goal": ("joint" if "JOINT" in system else "own")
        + ("" if "all rounds" in system else ", this round only"),
        "partner line": line,
        "round counter": "yes" if f"round {round_no} of" in obs else "no",
    }


def audit(round_no: int, seed: int) -> list[dict[str, str]]:
    """Rows from prompts the game builds while scripted moves play every condition."""
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
        scenarios = list(game._round_scenarios)  # type: ignore[attr-defined]
        names = dict(game._round_names[round_no - 1])  # type: ignore[attr-defined]
        cond = {"partner": partner, "projects": projects, "transparency": transparency}
        for seat in (0, 1):
            reqs = seen[seat]
            obs = "\n".join(r.observation for r in reqs)
            rows.append(
                describe(
                    cond, seat, reqs[0].system or "", obs, reqs[0].reset_context, scenarios,
                    names, round_no,
                )
            )  # fmt: skip
    return rows


def _ranges(sent: list[list[int]]) -> list[int]:
    return [i for lo, hi in sent for i in range(lo, hi + 1)]


def from_traces(folder: Path, round_no: int) -> list[dict[str, str]]:
    """Rows from the transcripts stored in the traces of a run directory."""
    rows = []
    paths = sorted((folder / "traces" if (folder / "traces").is_dir() else folder).glob("*.json"))
    for path in paths:
        t = json.loads(path.read_text(encoding="utf-8"))
        if not t.get("transcripts") or not t["game_id"].startswith("negotiation"):
            continue
        sc = t["scenario"]
        by_id = {s["id"]: Scenario.model_validate(s) for s in sc["scenarios"]}
        scenarios = [by_id[i] for i in sc["per_round"]]
        names = dict(sc["themes"][round_no - 1])
        cfg = t["config"]
        cond = {k: str(cfg.get(k)) for k in ("partner", "projects", "transparency")}
        for seat in t["seats"]:
            msgs = t["transcripts"].get(seat["name"], {}).get("messages", [])
            calls = [
                e for e in t["events"] if e["type"] == "model_call" and e["seat"] == seat["seat"]
            ]
            now = [e for e in calls if e.get("round") == round_no]
            if not now:
                continue
            before = {i for e in calls if e.get("round", 0) < round_no for i in _ranges(e["sent"])}
            sent = _ranges(now[-1]["sent"])
            system = next((msgs[i]["content"] for i in sent if msgs[i]["role"] == "system"), "")
            new = [
                msgs[i]["content"] for i in sent if msgs[i]["role"] == "user" and i not in before
            ]
            reset = bool(before) and not (set(sent) & before - {0})
            rows.append(
                describe(
                    {"trace": t["trace_id"], **cond}, seat["seat"], system, "\n".join(new),
                    reset, scenarios, names, round_no,
                )
            )  # fmt: skip
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--round", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--from", dest="source", type=Path, help="Run directory with traces.")
    args = ap.parse_args()
    rows = from_traces(args.source, args.round) if args.source else audit(args.round, args.seed)
    if not rows:
        raise SystemExit("no model-played negotiation seats with transcripts in that round")
    cols = list(rows[0])
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(r[c] for c in cols) + " |")


if __name__ == "__main__":
    main()
