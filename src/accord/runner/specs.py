"""Agent and game specs: what a seat is and which games a run plays.

An agent spec is either a model (``model: openai/gpt-5-mini``), a reference agent
(``agent: greedy``), a person (``agent: human``) or a remote agent (``agent: {remote: mcp}``,
``agent: {command: "python my_agent.py"}``: `accord.remote.spec.RemoteSeatSpec`). On the
command line a spec is a string: anything containing ``/`` is a model, anything else an agent
name.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    field_validator,
    model_serializer,
    model_validator,
)

from accord.core.errors import ConfigError
from accord.core.ids import is_safe_id
from accord.core.secrets import register_secret_env, secret_option_problem
from accord.remote.spec import RemoteSeatSpec


class AgentSpec(BaseModel):
    """Who plays one seat."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str | None = Field(None, description="provider/model, e.g. 'local/smollm2'.")
    agent: str | None = Field(None, description="Reference agent name, or 'human'.")
    label: str | None = Field(None, description="Name in tables (default: model or agent).")
    temperature: float | None = Field(None, ge=0, le=2, description="Sampling temperature.")
    max_tokens: int | None = Field(None, ge=1, description="Completion token cap per call.")
    action_mode: Literal["json", "tools", "auto"] | None = Field(
        None,
        description="How a model seat acts: 'json' (default: one JSON reply), 'tools' (the "
        "provider's native tool calls) or 'auto' (tools where the provider supports them).",
    )
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="Model client options: base_url, api_key_env, timeout_s, max_concurrency, "
        "cooldown_s, prices, ... (never put an API key here; name its variable instead).",
    )
    remote: RemoteSeatSpec | None = Field(
        None, description="A remote agent's seat (written as 'agent: {remote: mcp}' etc.)."
    )
    batch: bool | None = Field(
        None,
        description="Answer this model seat through the provider's batch API (half price, "
        "results within hours): see docs/running.md, 'Running big grids cheaply'.",
    )

    @model_serializer(mode="wrap")
    def _without_unused_fields(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Seats that are not remote, and model seats in the default action mode, serialize as
        before those fields existed (plan files of older runs still match on --resume)."""
        data: dict[str, Any] = handler(self)
        for key in ("remote", "action_mode", "batch"):
            if getattr(self, key) is None:
                data.pop(key, None)
        return data

    @model_validator(mode="before")
    @classmethod
    def _remote_agent(cls, data: Any) -> Any:
        """``agent: {remote: mcp, ...}`` / ``agent: {command: ...}`` -> agent 'remote'. A
        ``label`` inside the mapping names the seat, as one beside it does (docs/agents.md)."""
        if isinstance(data, dict) and isinstance(data.get("agent"), dict):
            remote = dict(data["agent"])
            label = remote.pop("label", None)
            if label is not None and data.get("label") not in (None, label):
                raise ValueError("give the seat's label once: inside 'agent: {...}' or beside it")
            out = {**data, "agent": "remote", "remote": remote}
            if label is not None:
                out["label"] = label
            return out
        return data

    @model_validator(mode="after")
    def _one_kind(self) -> AgentSpec:
        if (self.model is None) == (self.agent is None):
            raise ValueError("give exactly one of 'model' (provider/model) or 'agent' (a name)")
        if (self.agent == "remote") != (self.remote is not None):
            raise ValueError(
                "a remote seat is written 'agent: {remote: mcp}' or "
                "'agent: {command: \"python my_agent.py\"}'"
            )
        if self.model is not None and "/" not in self.model:
            raise ValueError(
                f"model {self.model!r} must look like provider/model, e.g. 'local/smollm2'"
            )
        if self.batch and self.model is None:
            raise ValueError("'batch' applies to model seats only (drop it here)")
        if self.action_mode is not None:
            if self.model is None:
                raise ValueError("'action_mode' applies to model seats only (drop it here)")
            from accord.agents.tools import mode_problem

            mode = mode_problem(self.action_mode, self.model)
            if mode is not None:
                raise ValueError(mode)
        problem = secret_option_problem(self.options)
        if problem is not None:
            raise ValueError(problem)
        env = self.options.get("api_key_env")
        if env is not None and not isinstance(env, str):
            raise ValueError("'api_key_env' names an environment variable: give it as text")
        register_secret_env(env)  # whatever its name, its value is a key: redact it
        return self

    @property
    def display(self) -> str:
        """Short name for tables. A model seat in ``tools`` or ``auto`` mode carries its mode
        (``openai/gpt-5 [tools]``), so results of different modes are never pooled under one
        name; json mode, the default, keeps the plain name."""
        remote = self.remote.display if self.remote is not None else None
        name = self.label or self.model or remote or self.agent or "?"
        if self.action_mode in ("tools", "auto"):
            name = f"{name} [{self.action_mode}]"
        return name

    @property
    def is_human(self) -> bool:
        """True for a seat played by a person."""
        return self.agent == "human"


def parse_agent(value: str | dict[str, Any] | AgentSpec) -> AgentSpec:
    """An `AgentSpec` from a CLI string, a YAML mapping or a spec."""
    try:
        if isinstance(value, AgentSpec):
            # Validated again: `model_copy(update=...)` (e.g. --temperature) skips validation.
            return AgentSpec.model_validate(value.model_dump(exclude_unset=True))
        if isinstance(value, str):
            text = value.strip()
            if not text:
                raise ConfigError("empty agent spec; use a model such as 'local/smollm2' or a name")
            return AgentSpec(model=text) if "/" in text else AgentSpec(agent=text)
        return AgentSpec.model_validate(value)
    except ValidationError as exc:
        raise ConfigError(_one_line(exc, value)) from exc


def _one_line(exc: ValidationError, value: object) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"])
        if loc == "remote" or loc.startswith("remote."):
            loc = "agent" + loc.removeprefix("remote")  # written 'agent: {remote: ...}'
        msg = str(err["msg"]).removeprefix("Value error, ")
        parts.append(f"{loc}: {msg}" if loc else msg)
    name = value.display if isinstance(value, AgentSpec) else str(value)[:60]
    return f"agent {name!r}: " + "; ".join(parts)


def with_action_mode(agents: list[AgentSpec], mode: str) -> list[AgentSpec]:
    """`agents` with every model seat that sets no ``action_mode`` of its own playing in
    `mode` (``json``, ``tools`` or ``auto``; `accord.agents.tools`); a seat's own mode wins,
    as a seat's own ``batch`` does. Each changed seat is validated again (a bundled local
    model refuses ``tools``)."""
    from accord.agents.tools import ACTION_MODES

    if mode not in ACTION_MODES:
        raise ConfigError(
            f"action mode must be one of {', '.join(ACTION_MODES)}, got {mode!r:.40}",
            cli=f"--action-mode must be one of {', '.join(ACTION_MODES)}, got {mode!r:.40}",
        )
    return [
        parse_agent(a.model_copy(update={"action_mode": mode}))
        if a.model is not None and a.action_mode is None
        else a
        for a in agents
    ]


def parse_agent_list(text: str) -> list[AgentSpec]:
    """``"local/smollm2,greedy"`` -> two specs."""
    return [parse_agent(part) for part in text.split(",") if part.strip()]


class GameSpec(BaseModel):
    """One game of a run: everything needed to play it again."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    trace_id: str = Field(description="Unique id; the trace file stem.")
    game: str = Field(description="Game id, e.g. 'negotiation-v3'.")
    options: dict[str, Any] = Field(default_factory=dict, description="Game options.")
    seed: int = Field(description="Game seed.")
    agents: list[AgentSpec] = Field(description="One spec per seat.")
    labels: dict[str, Any] = Field(
        default_factory=dict, description="Experiment, batch, repeat, pairing, swap."
    )

    @field_validator("trace_id")
    @classmethod
    def _safe_id(cls, v: str) -> str:
        if not is_safe_id(v):
            raise ValueError(
                "a trace id names a file: use letters, digits, '_', '.' or '-' (no '/', no "
                "leading dot), at most 200 characters"
            )
        return v
