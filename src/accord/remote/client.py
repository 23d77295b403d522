"""A small HTTP/JSON seat client: a remote agent in a few lines of Python (``docs/agents.md``).

`http_agent` plays one seat until it ends: it waits for each request, asks `policy` for a reply
(by default Accord's mock model, which answers valid against the request's schema) and, when a
reply is refused, adds the error to the conversation and asks again, as a model seat would.
Used by the tests, ``bench/remote_overhead.py`` and as a reference for agents in any language.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from accord.models import get_model
from accord.models.base import Message

Policy = Callable[[dict[str, Any], list[Message]], Awaitable[Any]]


async def mock_policy(request: dict[str, Any], messages: list[Message]) -> Any:
    """A reply valid against the request's schema (Accord's mock model)."""
    completion = await get_model("mock/schema").complete(
        messages, response_schema=request["reply_schema"], seed=3
    )
    return json.loads(completion.text) if request["reply_schema"] else completion.text


async def http_agent(
    url: str,
    token: str,
    policy: Policy = mock_policy,
    log: list[dict[str, Any]] | None = None,
) -> None:
    """Play one seat over HTTP/JSON until it ends (errors are fed back, as for models)."""
    headers = {"Authorization": f"Bearer {token}"}
    messages: list[Message] = []
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as client:
        while True:
            r = await client.post("/wait", json={"timeout_s": 10})
            state = r.json()
            if log is not None:
                log.append(state)
            if r.status_code != 200 or state["status"] == "ended":
                return
            request = state.get("request")
            if request is None:
                continue
            if request["system"] and (request["reset_context"] or not messages):
                messages = [{"role": "system", "content": request["system"]}]
            messages.append({"role": "user", "content": request["observation"]})
            while True:
                reply = await policy(request, messages)
                r = await client.post(
                    "/act", json={"request_id": request["request_id"], "reply": reply}
                )
                answer = r.json()
                if answer.get("ok") or r.status_code not in (400, 413, 422):
                    break
                messages.append({"role": "user", "content": f"Error: {answer['error']}"})
