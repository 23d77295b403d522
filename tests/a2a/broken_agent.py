"""The example A2A agent with one fault, chosen by the first argument (for the failure tests).

* ``slow``: never answers a decision in time (it waits on an event nothing sets);
* ``malformed``: answers text that is no JSON;
* ``exit-after-2``: answers two decisions, then the process exits with code 3;
* ``oversize``: answers 300 KB of text;
* ``deep``: answers a data part nested 150 levels deep (a raw JSON-RPC answer);
* ``elsewhere``: its card names another port than the one it serves on;

``leak`` prints its token to stderr, then plays; and two that are not faults: ``task``
answers through a task that completes with the reply as its artifact, ``usage`` reports its
usage in the reply's metadata.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "a2a-agent"))
sys.argv, FAULT = sys.argv[:1] + sys.argv[2:], sys.argv[1]

import agent  # noqa: E402
from a2a.helpers import (  # noqa: E402
    new_message,
    new_task_from_user_message,
    new_text_part,
)
from a2a.server.tasks import TaskUpdater  # noqa: E402


class Broken(agent.Accord):
    answered = 0

    async def execute(self, context, event_queue):  # type: ignore[no-untyped-def]
        if FAULT == "slow":
            await asyncio.Event().wait()
        if FAULT == "malformed":
            part = new_text_part("this is not the reply you are looking for")
            await event_queue.enqueue_event(new_message([part], context_id=context.context_id))
            return
        if FAULT == "exit-after-2" and self.answered >= 2:
            print("giving up on purpose", file=sys.stderr, flush=True)
            os._exit(3)
        if FAULT == "oversize":
            part = new_text_part("x" * 300_000)
            await event_queue.enqueue_event(new_message([part], context_id=context.context_id))
            return
        self.answered += 1
        if FAULT == "task":
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
            updater = TaskUpdater(event_queue, task.id, task.context_id)
            await updater.start_work()
            await updater.add_artifact([self.part_for(context)], name="reply")
            await updater.complete()
            return
        if FAULT == "usage":
            reply = new_message([self.part_for(context)], context_id=context.context_id)
            reply.metadata.update(
                {"usage": {"input_tokens": 10, "output_tokens": 2, "cost_usd": 0.001}}
            )
            await event_queue.enqueue_event(reply)
            return
        await super().execute(context, event_queue)


def _deep_answers(app: Any) -> Any:
    """Every JSON-RPC call answered with a message whose data part nests 150 levels."""

    async def deep(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await app(scope, receive, send)
            return
        body, more = b"", True
        while more:
            message = await receive()
            body, more = body + message.get("body", b""), message.get("more_body", False)
        nested = "[" * 150 + "]" * 150
        answer = '{"messageId": "m", "role": "ROLE_AGENT", "parts": [{"data": NESTED}]}'
        rid = json.dumps(json.loads(body)["id"])
        text = '{"jsonrpc": "2.0", "id": ' + rid + ', "result": {"message": ' + answer + "}}"
        raw = text.replace("NESTED", nested).encode()
        headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": raw})

    return deep


if __name__ == "__main__":
    if FAULT == "leak":
        print("my token is " + os.environ.get("ACCORD_A2A_TOKEN", ""), file=sys.stderr, flush=True)
    if FAULT == "deep":
        plain_app = agent.build_app
        agent.build_app = lambda url, token, executor=None: _deep_answers(  # type: ignore[assignment]
            plain_app(url, token, executor)
        )
    if FAULT == "elsewhere":
        plain_card = agent.card
        agent.card = lambda url: plain_card(url.rsplit(":", 1)[0] + ":1/")  # type: ignore[assignment]
    agent.main(Broken())
