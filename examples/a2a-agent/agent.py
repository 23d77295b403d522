"""An A2A agent that plays Accord's three games, built on the official A2A SDK's server.

Accord starts it once per seat per game (``agent: {command: "python agent.py", protocol: a2a}``)
with the address to serve on in ACCORD_A2A_HOST / ACCORD_A2A_PORT and the seat's token in
ACCORD_A2A_TOKEN. Started by hand (``python agent.py --port 9999 --token-env MY_TOKEN``), it is
joined with ``agent: {a2a: "http://127.0.0.1:9999", token_env: MY_TOKEN}``.

Each decision arrives as one A2A message: a text part (the prose a model would read) and a data
part holding ``request`` (kind, reply_schema, request_id...) and ``structured`` (the facts of
the observation). This agent reads only the data part and answers with one message: a data
part holding the reply object, or a text part when the request has no reply schema (sorting).

It needs nothing from Accord: only ``a2a-sdk[http-server]`` and ``uvicorn``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import uvicorn
from a2a.helpers import get_data_parts, new_data_part, new_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    HTTPAuthSecurityScheme,
    Part,
    SecurityRequirement,
    SecurityScheme,
    StringList,
)
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from strategies import Strategy


class Accord(AgentExecutor):
    """Answers each decision from its data part; one `Strategy` per seat it is asked for."""

    def __init__(self) -> None:
        self.players: dict[tuple[str, int], Strategy] = {}

    def part_for(self, context: RequestContext) -> Part:
        """The reply to this decision: a data part, or a text part for a free-text request."""
        message = context.message
        parts = list(message.parts) if message is not None else []
        data = next((d for d in get_data_parts(parts) if isinstance(d, dict)), None)
        if data is None or "request" not in data:
            return new_text_part("Send an Accord decision (a data part with 'request').")
        key = (str(data.get("trace_id")), int(data.get("seat", 0)))
        player = self.players.setdefault(key, Strategy())
        answer = player.reply(data["request"], data.get("structured") or {}, data.get("error"))
        return new_text_part(answer) if isinstance(answer, str) else new_data_part(answer)

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        reply = new_message(
            [self.part_for(context)], context_id=context.context_id, task_id=context.task_id
        )
        await event_queue.enqueue_event(reply)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        return None


class RequireToken:
    """Refuses every call but the agent card's without ``Authorization: Bearer <token>``."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope["path"].startswith("/.well-known/"):
            given = dict(scope["headers"]).get(b"authorization", b"")
            if given != self.expected:
                await JSONResponse({"error": "missing or wrong bearer token"}, 401)(
                    scope, receive, send
                )
                return
        await self.app(scope, receive, send)


def card(url: str) -> AgentCard:
    """The agent card: one JSON-RPC interface and a bearer-token security scheme."""
    return AgentCard(
        name="accord-example-a2a-agent",
        description="Plays Accord's calendar, negotiation and sorting games.",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")
        ],
        capabilities=AgentCapabilities(streaming=False),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["application/json", "text/plain"],
        skills=[
            AgentSkill(
                id="accord-seat",
                name="Accord seat",
                description="Answers one decision of an Accord game per message.",
                tags=["accord", "games"],
            )
        ],
        security_schemes={
            "seat": SecurityScheme(
                http_auth_security_scheme=HTTPAuthSecurityScheme(scheme="Bearer")
            )
        },
        security_requirements=[SecurityRequirement(schemes={"seat": StringList(list=[])})],
    )


def build_app(url: str, token: str, executor: AgentExecutor | None = None) -> ASGIApp:
    """The agent's web app: the card, the JSON-RPC endpoint, the token check."""
    agent_card = card(url)
    handler = DefaultRequestHandler(
        agent_executor=executor or Accord(), task_store=InMemoryTaskStore(), agent_card=agent_card
    )
    routes = create_agent_card_routes(agent_card) + create_jsonrpc_routes(handler, rpc_url="/")
    return RequireToken(Starlette(routes=routes), token)


def main(executor: AgentExecutor | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default=os.environ.get("ACCORD_A2A_HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("ACCORD_A2A_PORT", "0")))
    parser.add_argument(
        "--token-env", default="ACCORD_A2A_TOKEN", help="Variable holding the token to require."
    )
    args = parser.parse_args()
    token = os.environ.get(args.token_env)
    if not token or not args.port:
        sys.exit(f"set {args.token_env} and give --port (or ACCORD_A2A_PORT)")
    url = f"http://{args.host}:{args.port}/"
    print(json.dumps({"serving": url}), file=sys.stderr, flush=True)
    uvicorn.run(
        build_app(url, token, executor), host=args.host, port=args.port, log_level="warning"
    )


if __name__ == "__main__":
    main()
