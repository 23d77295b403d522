"""An agent that takes one Accord seat over MCP.

Accord starts it once per seat per game (``agent: {command: "python agent.py"}``) with the
seat's MCP endpoint and token in ACCORD_SEAT_MCP_URL and ACCORD_SEAT_TOKEN; you can also
start it yourself with the URL and token that ``agent: {remote: mcp}`` prints.

Its "brain" is Accord's mock model (a reply valid against the request's schema); put your own
agent's call where `think` is. When a reply is refused, the error is added to the
conversation and the agent tries again, as a model seat would.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from accord.models import get_model

BRAIN = get_model(os.environ.get("AGENT_MODEL", "mock/schema"))


async def think(messages: list[dict[str, str]], schema: dict[str, Any] | None) -> Any:
    """Your agent goes here: a reply for the conversation so far."""
    completion = await BRAIN.complete(messages, response_schema=schema, seed=7)
    return json.loads(completion.text) if schema else completion.text


async def call(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    """Call a seat tool; its JSON answer (an error answer becomes {'error': text})."""
    result = await client.call_tool(tool, args)
    text = result.content[0].text if result.content else "{}"  # type: ignore[union-attr]
    return {"error": text} if result.is_error else json.loads(text)


async def play(url: str, token: str) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        messages: list[dict[str, str]] = []
        while True:
            state = await call(client, "wait_for_request", timeout_s=20)
            if state.get("status") == "ended":
                return
            request = state.get("request")
            if request is None:
                continue
            if request["system"] and (request["reset_context"] or not messages):
                messages = [{"role": "system", "content": request["system"]}]
            messages.append({"role": "user", "content": request["observation"]})
            while True:
                reply = await think(messages, request["reply_schema"])
                text = reply if isinstance(reply, str) else json.dumps(reply)
                messages.append({"role": "assistant", "content": text})
                answer = await call(client, "act", request_id=request["request_id"], reply=reply)
                if answer.get("ok") or any(
                    w in answer["error"] for w in ("not open", "over", "deadline")
                ):
                    break
                print(f"refused: {answer['error']}", file=sys.stderr)
                messages.append({"role": "user", "content": f"Error: {answer['error']}"})


if __name__ == "__main__":
    asyncio.run(play(os.environ["ACCORD_SEAT_MCP_URL"], os.environ["ACCORD_SEAT_TOKEN"]))
