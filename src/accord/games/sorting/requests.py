"""Requests of the sorting game: the action spec and the `info` of each request (MAS-Bench
App. F.3: the observation is the replies to the agent's last commands).

An LLM seat reads the observation text and answers through `SPEC.parse`; a reference agent
reads `info`, which holds only what the agent may know.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from accord.core.spec import ActionSpec, Request
from accord.games.sorting.actions import model_failed, parse_reply, validate_action
from accord.games.sorting.commands import VERBS
from accord.games.sorting.state import SortingState
from accord.games.sorting.tools import command_tools, tools_wording

SPEC = ActionSpec(
    kind="commands",
    parse=parse_reply,
    fallback=model_failed,
    validate=validate_action,
    format_hint="Put each command in its own ``` fenced code block.",
)
"""The request's action spec, with no tools (text replies, App. F.3)."""

SPECS: dict[str, ActionSpec] = {
    backend: replace(SPEC, tools=command_tools(backend)) for backend in VERBS
}
"""The spec per backend, its commands also offered as tools to a seat that asks for them
(``action_mode: tools``, `accord.games.sorting.tools`); a seat in json or auto mode is still
asked for fenced blocks."""


class SortingRequests(SortingState):
    """The request builders of `SortingGame` (engine.py), over its state."""

    def _request(self, seat: int) -> Request:
        return Request(
            seat=seat,
            observation=self._inbox[seat],
            spec=SPECS[self.config.backend],
            system=self._system[seat],
            tools_system=tools_wording(self._system[seat]),
            tools_observation=tools_wording(self._inbox[seat]),
            reset_context=self._fresh[seat],
            info=self._info(seat),
            round=self._round,
        )

    def _info(self, seat: int) -> dict[str, Any]:
        """Structured facts for reference agents: only what this agent may know."""
        cfg = self.config
        task = self.task
        return {
            "agent": seat,
            "n": cfg.n,
            "k": cfg.k,
            "task": cfg.task,
            "backend": cfg.backend,
            "xs": list(task.xs[seat]),
            "submit_len": task.submit_len,
            "phase": self._phase,
            "round": self._round,
            "max_rounds": cfg.max_rounds,
            "prev": self._prev[seat],
            "replies": [
                {"verb": o.verb, "ok": o.ok, "reply": o.reply, "data": o.data}
                for o in self._last[seat]
            ],
        }
