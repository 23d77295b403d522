"""Remote agent seats: an agent in another process, in any language, holds a seat over MCP or
plain HTTP/JSON (``docs/agents.md``).

* `accord.remote.spec`: how an experiment names such a seat (``agent: {remote: mcp}``,
  ``agent: {command: ...}``);
* `accord.remote.protocol`: the messages of protocol ``accord-seat/1`` and their limits;
* `accord.remote.seat`: one seat's rules (open request, deadline, bad-call count, call log);
* `accord.remote.app` / `accord.remote.hub`: the server (MCP and HTTP from one app);
* `accord.remote.process`: one agent process per seat per game;
* ``accord agent check`` (the conformance kit for agents) lives in `accord.testing.agent_check`.

The game's side is `accord.agents.remote.RemoteAgent`. Only `spec` and `protocol` load without
the ``remote`` extra (the MCP SDK).
"""
