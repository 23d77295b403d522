"""A person at the terminal plays negotiation with short commands (`accord play negotiation`).

``buy <resource> 4 <resource> 2 project_a 1`` decides (the resources are the game's own names);
``buy nothing`` decides to buy nothing; any other text talks. Declared in this package's
`INFO` (`accord.core.gameinfo.HumanSeat`).
"""

from __future__ import annotations

from collections.abc import Sequence

from accord.core.errors import ActionError
from accord.core.spec import Action, Request
from accord.games.negotiation import rules
from accord.games.negotiation.scenario import RESOURCES, Market, Project


def human_help(request: Request) -> str:
    """One line explaining what to type."""
    names = ", ".join(request.info["names"][r] for r in RESOURCES)
    if request.info["phase"] == "reflect":
        return "Type a short reflection."
    buy = "buy <resource> <n> ... [<project> <runs> ...]"
    if request.info["phase"] == "decide":
        return f"Decide now: '{buy}' (resources: {names})."
    return (
        f"Type a message to talk, or '{buy} | <message>' to decide and tell your partner "
        f"(resources: {names})."
    )


def _example(request: Request) -> str:
    """``buy <first resource> 4 <second resource> 2``, in this game's own resource names."""
    names = [request.info["names"][r] for r in RESOURCES][:2]
    return "buy " + " ".join(f"{n} {k}" for n, k in zip(names, (4, 2), strict=False))


def human_adapter(request: Request, line: str) -> Action:
    """A typed line -> action: ``buy <resource> 4 <resource> 2 project_a 1`` decides, other
    text talks.

    During talk a decision also carries a message, after ``|`` (``buy <resource> 4 | deal``),
    as a model's reply must (its ``speech`` may not be blank): a bare ``buy`` is asked again.
    """
    info = request.info
    text, _, message = line.partition("|") if info["phase"] == "talk" else (line, "", "")
    text, message = text.strip(), message.strip()
    if info["phase"] == "reflect":
        return {"reflection": text}
    words = text.split()
    if not words or words[0].lower() not in {"buy", "/buy"}:
        if info["phase"] == "decide":
            raise ActionError(
                f"this is the decision phase: type '{_example(request)}', or 'buy nothing'"
            )
        if not line.strip():
            raise ActionError("say something, or type 'buy ... | <message>' to decide")
        return {"thinking": "", "speech": line.strip(), "decision": None}
    if info["phase"] == "talk" and not message:
        raise ActionError(
            "during talk, say something with your decision, after '|': "
            f"'{_example(request)} | that works for me'"
        )
    by_name = {v: k for k, v in info["names"].items()}
    projects: Sequence[Project] = info["projects"]
    project_names = {p.name for p in projects}
    args = words[1:]
    nothing = [a.lower() for a in args] in (["nothing"], ["none"])
    if not args:
        # A bare 'buy' is more often a slip than a decision to buy nothing: ask which.
        raise ActionError(
            f"say what you buy, e.g. '{_example(request)}'; to buy nothing type 'buy nothing'"
        )
    if nothing:
        args = []
    if len(args) % 2:
        raise ActionError(f"give name/number pairs, e.g. '{_example(request)}'")
    purchase: dict[str, int] = {}
    runs: dict[str, int] = {}
    for name, num in zip(args[::2], args[1::2], strict=True):
        if not num.isdigit():
            raise ActionError(f"{num!r} is not a whole number")
        if name in by_name:
            purchase[by_name[name]] = int(num)
        elif name in project_names:
            runs[name] = int(num)
        else:
            raise ActionError(
                f"{name!r} is neither a resource ({', '.join(by_name)}) nor a project"
            )
    market: Market = info["market"]
    rules.check_purchase(market, purchase)
    if runs:
        rules.check_runs(projects, purchase, runs)
    return {
        "thinking": "",
        "speech": message,
        "decision": {"purchase": rules.normalize_purchase(purchase), "runs": runs or None},
    }
