"""The run page's control buttons: pause, resume, concurrency N, stop (`accord ctl` from the
browser).

``GET /api/runs/RUN/control`` answers whether the run can be controlled now (it has a control
token: a run has started there), the token itself, and the run's control history.
``POST /api/runs/RUN/control`` appends a change to the run's control log
(`accord.runner.control.send`) and is refused (403) unless the request carries the token in the
``X-Accord-Control-Token`` header. The token is only ever handed to a page of this server: a
page from another site may send a request here but cannot read an answer, so it never learns
the token; the Host check `accord serve` installs keeps another site's name from reaching this
server at all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from fastapi import FastAPI, Header, HTTPException
from pydantic import BaseModel, Field

from accord.core.errors import ConfigError
from accord.runner.control import history, origin, read_token, send, token_matches
from accord.web.runs import RunDir

TOKEN_HEADER = "X-Accord-Control-Token"


class ControlAsk(BaseModel):
    """A change asked from the run page."""

    action: Literal["pause", "resume", "concurrency", "stop"] = Field(description="What to do.")
    value: int | None = Field(None, ge=1, le=100_000, description="The new concurrency.")
    drain: bool = Field(False, description="With stop: let the games in flight finish.")


def add_ctl_routes(app: FastAPI, get_run: Callable[[str], RunDir]) -> None:
    """Add the control routes of the run page to `app`."""

    @app.get("/api/runs/{run_id}/control")
    def control_state(run_id: str) -> dict[str, Any]:
        run = get_run(run_id)
        where = origin(run.path)
        token = read_token(where)
        try:
            changes = history(where)[-50:]
        except ConfigError:
            changes = []
        return {"controllable": token is not None, "token": token, "history": changes}

    @app.post("/api/runs/{run_id}/control")
    def control_send(
        run_id: str,
        ask: ControlAsk,
        token: str | None = Header(None, alias=TOKEN_HEADER, max_length=200),
    ) -> dict[str, Any]:
        run = get_run(run_id)
        where = origin(run.path)
        if not token_matches(where, token):
            raise HTTPException(
                403, "refused: this needs the run's control token (reload the run page)"
            )
        try:
            record = send(where, ask.action, ask.value, drain=ask.drain)
        except ConfigError as exc:
            raise HTTPException(400, str(exc)) from exc
        return record.model_dump()
