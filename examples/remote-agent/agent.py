"""An agent that takes one Accord seat over MCP, playing from the structured observations.

Accord starts it once per seat per game (``agent: {command: "python agent.py"}``) with the
seat's MCP endpoint and token in ACCORD_SEAT_MCP_URL and ACCORD_SEAT_TOKEN; you can also
start it yourself with the URL and token that ``agent: {remote: mcp}`` prints.

It reads only each request's ``kind`` and ``facts`` (the observation as JSON; their schemas are
in docs/agents.md, "Requests and observations per game", and ``accord agent schema GAME``),
never the prose written for language models, and plays a plain strategy per game: negotiation,
buy what its most rewarding affordable project needs; calendar, say nothing and schedule its
meeting in its first free slot; sorting, submit its own list's answer (its commands are in
docs/sorting.md). Put your own agent where `decide` is. A refused reply is answered again, with
a more cautious one; each act carries an idempotency key, so a retry after a lost answer is
never a second answer; the agent says who it is once.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from itertools import accumulate
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

ME = {"name": "accord-example", "version": "2", "framework": "mcp-python-sdk"}


def negotiation(kind: str, facts: dict[str, Any], attempt: int) -> Any:
    if kind == "reflect":
        return {"reflection": "I bought for my most rewarding affordable project."}
    market, names = facts["market"], facts["names"]
    best: dict[str, int] | None = None
    best_reward = -1
    for project in facts["projects"]:
        needs = project["requirements"]
        cost = sum(market["costs"][r] * n for r, n in needs.items())
        fits = cost <= market["budget"] and len(needs) <= market["max_types"]
        if fits and project["reward"] > best_reward:
            best, best_reward = dict(needs), project["reward"]
    if best is None or attempt > 0:
        return {"thinking": "", "speech": "I will wait and see.", "action": None}
    # A purchase names two resource types: pad a one-type purchase with a zero of another.
    for resource in names:
        if len(best) >= min(2, market["max_types"]):
            break
        best.setdefault(resource, 0)
    purchase = {names[r]: n for r, n in best.items()}
    return {"thinking": "", "speech": f"I am buying {json.dumps(purchase)}.", "action": purchase}


def calendar(kind: str, facts: dict[str, Any], attempt: int) -> Any:
    if kind != "decide" or not facts["is_participant"] or attempt > 0:
        return {"thinking": "", "actions": []}
    meeting = facts["meeting"]["id"]
    held = [i for i, item in enumerate(facts["calendar"]) if item and item.get("id") == meeting]
    if held:
        return {"thinking": "", "actions": []}
    free = [i for i, item in enumerate(facts["calendar"]) if item is None]
    if not free:
        return {"thinking": "", "actions": []}
    action = {"type": "schedule", "meeting_id": meeting, "slot": free[0]}
    return {"thinking": "", "actions": [action]}


def sorting(kind: str, facts: dict[str, Any], attempt: int) -> Any:
    del kind, attempt
    xs = list(facts["xs"])
    if facts["task"] == "max":
        values = [max(xs)]
    elif facts["task"] == "prefix_sum":
        values = list(accumulate(xs))
    else:
        values = sorted(xs)
    return "```\nsubmit_result [" + ", ".join(str(v) for v in values) + "]\n```"


STRATEGIES = {"negotiation": negotiation, "calendar": calendar, "sorting": sorting}


async def decide(game: str, request: dict[str, Any], attempt: int) -> Any:
    """Your agent goes here: a reply from the request's kind and facts alone. A game without
    a strategy here (another package's game) gets a reply valid against the request's
    ``reply_schema``, from Accord's mock model, which is sent no prose either."""
    strategy = STRATEGIES.get(game)
    if strategy is not None:
        return strategy(request["kind"], request["facts"], attempt)
    from accord.models import get_model

    schema = request["reply_schema"]
    done = await get_model("mock/schema").complete([], response_schema=schema, seed=attempt)
    return json.loads(done.text) if schema else done.text


async def call(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    """Call a seat tool; its JSON answer (a refused call's answer too, from
    ``structured_content``)."""
    result = await client.call_tool(tool, args)
    answer = result.structured_content
    if answer is None:  # a server that sends text only
        text = result.content[0].text if result.content else "{}"  # type: ignore[union-attr]
        answer = {"error": text} if result.is_error else json.loads(text)
    return dict(answer)


async def play(url: str, token: str) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        game = (await call(client, "seat_info"))["game_id"].rsplit("-v", 1)[0]
        first, acts = True, 0
        while True:
            extra = {"agent": ME} if first else {}
            state = await call(client, "wait_for_request", timeout_s=20, **extra)
            first = False
            if state.get("status") == "ended":
                return
            request = state.get("request")
            if request is None:
                continue
            for attempt in range(3):
                acts += 1
                reply = await decide(game, request, attempt)
                answer = await call(
                    client, "act", request_id=request["request_id"], reply=reply, key=f"a{acts}"
                )
                if answer.get("ok") or "errors_left" not in answer:
                    break
                print(f"refused: {answer['error']}", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(play(os.environ["ACCORD_SEAT_MCP_URL"], os.environ["ACCORD_SEAT_TOKEN"]))
