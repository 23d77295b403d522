"""Experiment files (YAML -> pydantic) and their expansion into games.

An experiment has `defaults` and either `batches` (a list) or a `grid` (a cartesian product)
or neither (one batch of the defaults). Example::

    name: mc-sweep
    defaults:
      game: negotiation
      games: 5                  # repeats per batch and pairing
      seed: 0
      swap_first_speaker: true  # each game twice, first speaker swapped (seed 004 §4)
      repeats: 1                # each game k times on the same scenario (noise floor)
      agents: [local/smollm2, local/smollm2]
      options: {rounds: 4}
    grid:
      options.ratio: [0.5, 0.8, 1.0]
      options.partner: [stable, shifting]

A batch may give `crossplay: [m1, m2, m3]` instead of `agents`: every pair of them plays
(self-play included unless `self_play: false`). Games of one batch share seeds across
pairings, so pairings meet the same scenarios.

Games are counted before any is built: a plan over `max_games` (default `DEFAULT_MAX_GAMES`,
or the ``ACCORD_MAX_GAMES`` variable for the quick form) is refused, so a typo such as
``games: 1000000000`` fails at once instead of filling memory. Files are read strictly
(`accord.core.inputs`): size cap, UTF-8, no duplicate keys, no alias bombs.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError, field_validator

from accord.core.errors import ConfigError
from accord.core.ids import check_id, slug
from accord.core.inputs import MAX_YAML_BYTES, load_yaml, read_text
from accord.core.registry import format_validation_error, game_class, make_config, resolve
from accord.core.rng import derive_seed
from accord.runner.specs import AgentSpec, GameSpec, parse_agent

AgentField = list[AgentSpec | str]

DEFAULT_MAX_GAMES = 100_000
"""Largest plan accepted unless the experiment's `max_games` (or ACCORD_MAX_GAMES) says more."""


class _Common(BaseModel):
    model_config = ConfigDict(extra="forbid")

    game: str | None = Field(None, description="Game id or alias, e.g. 'negotiation'.")
    games: StrictInt | None = Field(None, ge=1, description="Games per pairing (repeats).")
    repeats: StrictInt | None = Field(
        None,
        ge=1,
        description="Play each game this many times on the same scenario and seed (trace ids "
        "end -r0, -r1, ...; model seats draw a new sampling seed per repeat): the runs the "
        "noise floor of `accord plan --from` needs.",
    )
    seed: StrictInt | None = Field(None, description="Base seed of the batch.")
    options: dict[str, Any] = Field(default_factory=dict, description="Game options.")
    agents: AgentField | None = Field(None, description="One agent spec per seat.")
    crossplay: AgentField | None = Field(
        None, description="Agents that all play each other (two-seat games)."
    )
    self_play: bool | None = Field(None, description="Include self-play pairs in crossplay.")
    swap_first_speaker: bool | None = Field(
        None, description="Play each game twice with the first speaker swapped."
    )
    suite: str | None = Field(
        None,
        description="Play every task of this named suite (e.g. the calendar 'canonical' "
        "suite), `games` times each, instead of drawing tasks from seeds.",
    )


class Defaults(_Common):
    """Settings every batch starts from."""


class Batch(_Common):
    """One named set of games; its settings override the defaults."""

    name: str = Field(description="Batch name (used in trace ids and tables).")


class Stop(BaseModel):
    """A sequential comparison (`accord.analysis.sequential`): play the two sides' paired
    games in blocks and stop once an anytime-valid confidence sequence decides."""

    model_config = ConfigDict(extra="forbid")

    metric: str = Field(description="The primary metric compared (B minus A, per pair).")
    range: tuple[float, float] = Field(
        (0.0, 1.0), description="The metric's possible [low, high] (a rate: [0, 1])."
    )
    alpha: float = Field(0.05, gt=0, lt=1, description="Error rate of the sequence.")
    block: StrictInt = Field(10, ge=1, description="Pairs played between two looks.")
    max_pairs: StrictInt | None = Field(
        None, ge=1, description="Stop undecided after this many pairs (default: every pair)."
    )
    margin: float | None = Field(
        None, gt=0, description="Stop as equivalent once the sequence lies in [-margin, margin]."
    )
    effect: float | None = Field(
        None,
        gt=0,
        description="The planned difference (metric units): the sequence's bets are tuned to "
        "detect it soonest (default: bets that adapt to the data seen).",
    )
    sd: float | None = Field(
        None,
        ge=0,
        description="The planned spread (SD) of the paired differences, with effect (default: "
        "the range's width, the most a difference can spread).",
    )


class AnalysisPlan(BaseModel):
    """A locked analysis plan (`accord.analysis.analysis_plan`): written down before the first
    game, hashed into the run directory, and held fixed on --resume."""

    model_config = ConfigDict(extra="forbid")

    primary: list[str] = Field(
        min_length=1, description="The pre-registered metrics: the family Holm's adjustment covers."
    )
    comparison: str | None = Field(
        None, description="What is compared, e.g. 'batch=imap vs batch=dsm-welfare'."
    )
    alpha: float = Field(0.05, gt=0, lt=1, description="Family-wise error rate.")
    interval: str = Field(
        "studentized bootstrap widened to t",
        description="The interval reported (the one `accord compare` computes).",
    )
    stop: Stop | None = Field(None, description="The stopping rule, when sequential.")
    max_games: StrictInt | None = Field(None, ge=1, description="The most games the study plays.")


class Experiment(BaseModel):
    """A whole experiment file."""

    model_config = ConfigDict(extra="forbid")

    version: int = Field(1, description="Experiment file format version.")
    name: str = Field("experiment", description="Experiment name.")
    defaults: Defaults = Field(default_factory=Defaults, description="Shared settings.")
    batches: list[Batch] | None = Field(None, description="Explicit batches.")
    grid: dict[str, list[Any]] | None = Field(
        None, description="Cartesian product over keys like 'options.ratio', 'agents', 'game'."
    )
    prompts: str | None = Field(
        None,
        description="A folder of prompt templates laid over each game's defaults, file by file "
        "(relative to the experiment file); `accord prompts GAME --dump DIR` writes the "
        "defaults.",
    )
    batch: bool | None = Field(
        None,
        description="Play every model seat through its provider's batch API (half price, "
        "results within hours); a seat's own 'batch: false' keeps it live. See "
        "docs/running.md, 'Running big grids cheaply'.",
    )
    analysis: AnalysisPlan | None = Field(
        None, description="The locked analysis plan of the study (pre-registered metrics)."
    )
    stop: Stop | None = Field(
        None,
        description="Play the two sides (two batches, or two pairings of one batch) in blocks "
        "of paired games until the comparison of `metric` is decided "
        "(`accord.analysis.sequential`).",
    )
    max_games: StrictInt | None = Field(
        None,
        ge=1,
        description=f"Refuse plans of more games than this (default {DEFAULT_MAX_GAMES:,}, "
        "or the ACCORD_MAX_GAMES environment variable).",
    )

    @field_validator("version")
    @classmethod
    def _version(cls, v: int) -> int:
        if v != 1:
            raise ValueError("this Accord reads experiment files of version 1")
        return v


def load_experiment(path: Path) -> Experiment:
    """Read and validate an experiment YAML file; errors name the key and the file."""
    where = f"experiment file {path}"
    data = load_yaml(
        read_text(path, what="experiment file", max_bytes=MAX_YAML_BYTES), source=where
    )
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a mapping with 'defaults' and 'batches' or 'grid'.")
    try:
        exp = Experiment.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(
            format_validation_error(exc, where=where, data=data, model=Experiment)
        ) from exc
    if exp.prompts is not None:  # a folder beside the experiment file, wherever it is run from
        folder = Path(exp.prompts).expanduser()
        exp.prompts = str(folder if folder.is_absolute() else (path.parent / folder).resolve())
    return exp


def max_games(exp: Experiment) -> int:
    """The largest plan `exp` may expand to."""
    if exp.max_games is not None:
        return exp.max_games
    raw = os.environ.get("ACCORD_MAX_GAMES", "").strip()
    if raw:
        try:
            value = int(raw)
        except ValueError:
            value = 0
        if value < 1:
            raise ConfigError(f"ACCORD_MAX_GAMES must be a whole number of at least 1, not {raw!r}")
        return value
    return DEFAULT_MAX_GAMES


def _too_many(count: int, limit: int, what: str) -> ConfigError:
    return ConfigError(
        f"this experiment would play {what}{count:,} games, over the limit of {limit:,}; "
        "check 'games' and the grid, or raise the limit with max_games: N in the file "
        "(ACCORD_MAX_GAMES=N for the quick form)."
    )


def _slug(text: str) -> str:
    # Room is left for the task, pairing, repeat and swap suffixes of a trace id. A name cut
    # to fit keeps a hash of the whole, so two long grid points never share a trace id.
    full = slug(text)
    if len(full) <= 120:
        return full or "batch"
    digest = hashlib.sha256(full.encode()).hexdigest()[:10]
    return f"{full[:109].rstrip('-')}-{digest}"


def _grid_batches(exp: Experiment) -> list[Batch]:
    assert exp.grid is not None
    allowed = {
        "game",
        "games",
        "seed",
        "agents",
        "crossplay",
        "self_play",
        "swap_first_speaker",
        "suite",
        "repeats",
    }
    keys = list(exp.grid)
    points = math.prod(len(v) if isinstance(v, list) else 1 for v in exp.grid.values())
    if points > (limit := max_games(exp)):
        raise _too_many(points, limit, "at least ")
    for key in keys:
        if not (key in allowed or key.startswith("options.")):
            raise ConfigError(
                f"grid key {key!r} is not allowed; use 'options.<name>' or one of {sorted(allowed)}"
            )
        if not isinstance(exp.grid[key], list) or not exp.grid[key]:
            raise ConfigError(f"grid key {key!r} must list at least one value")
    out = []
    for combo in itertools.product(*(exp.grid[k] for k in keys)):
        data: dict[str, Any] = {"options": {}}
        parts = []
        for key, value in zip(keys, combo, strict=True):
            if key.startswith("options."):
                data["options"][key.split(".", 1)[1]] = value
            else:
                data[key] = value
            shown = "+".join(map(str, value)) if isinstance(value, list) else str(value)
            parts.append(f"{key.removeprefix('options.')}={shown}")
        data["name"] = ",".join(parts)
        try:
            out.append(Batch.model_validate(data))
        except ValidationError as exc:
            raise ConfigError(
                format_validation_error(
                    exc, where=f"grid point {data['name']}", data=data, model=Batch
                )
            ) from exc
    return out


def expand(exp: Experiment, *, seed_override: int | None = None) -> list[GameSpec]:
    """Every game of the experiment, in a deterministic order with unique trace ids."""
    d = exp.defaults
    batches = exp.batches or (_grid_batches(exp) if exp.grid else [Batch(name="main")])
    plans = []
    total = 0
    limit = max_games(exp)
    for b in batches:
        game = resolve(b.game or d.game or "")
        options = {**d.options, **b.options}
        repeats = b.games or d.games or 1
        replicas = b.repeats or d.repeats or 1
        swap = (
            b.swap_first_speaker if b.swap_first_speaker is not None else bool(d.swap_first_speaker)
        )
        cls = game_class(game)
        if exp.prompts is not None:
            if "prompts" not in cls.config_model.model_fields:
                raise ConfigError(
                    f"batch {b.name!r}: {cls.game_id} has no prompt templates, so prompts: "
                    "cannot apply to it; remove prompts: or play this game in another file"
                )
            options = {**options, "prompts": exp.prompts}
        if swap and "first_speaker" not in cls.config_model.model_fields:
            raise ConfigError(f"batch {b.name!r}: {cls.game_id} has no first speaker to swap")
        suite = b.suite if b.suite is not None else d.suite
        tasks: list[tuple[str, dict[str, Any]]] = [("", {})]
        if suite is not None:
            tasks = [
                (f"-t{k:03d}", extra) for k, extra in enumerate(cls.suite_options(suite, options))
            ]
        make_config(game, {**options, **tasks[0][1]})  # fail early, naming the bad option
        pairings = [
            (t_tag, {**options, **t_opts}, _pairings(b, d, game, {**options, **t_opts}))
            for t_tag, t_opts in tasks
        ]
        # Counted before any game is built: 10**9 repeats must fail here, not fill memory.
        total += sum(len(p) for _, _, p in pairings) * repeats * replicas * (2 if swap else 1)
        if total > limit:
            raise _too_many(total, limit, "at least " if b is not batches[-1] else "")
        plans.append((b, game, repeats, replicas, swap, pairings))
    specs: list[GameSpec] = []
    seen: set[str] = set()
    for b, game, repeats, replicas, swap, pairings in plans:
        base_seed = (
            seed_override
            if seed_override is not None
            else (b.seed if b.seed is not None else (d.seed or 0))
        )
        for t_tag, task_options, agent_lists in pairings:
            by_first: dict[Any, dict[str, Any]] = (
                {f: {**task_options, "first_speaker": f} for f in (0, 1)}
                if swap
                else {None: dict(task_options)}
            )
            for p_idx, agents in enumerate(agent_lists):
                label = pairing_label(agents)
                for rep, replica in itertools.product(range(repeats), range(replicas)):
                    specs += _variants(
                        exp,
                        b,
                        game,
                        by_first,
                        agents,
                        label,
                        seen,
                        seed=derive_seed(base_seed, b.name, rep),
                        tid=f"{_slug(b.name)}{t_tag}-p{p_idx:02d}-g{rep:03d}"
                        + (f"-r{replica}" if replicas > 1 else ""),
                        rep=rep,
                        replica=replica if replicas > 1 else None,
                    )
    if exp.batch:
        from accord.runner.batch_plan import with_batch

        specs = with_batch(specs)
    return specs


def _variants(
    exp: Experiment,
    b: Batch,
    game: str,
    options: dict[Any, dict[str, Any]],
    agents: list[AgentSpec],
    pairing: str,
    seen: set[str],
    *,
    seed: int,
    tid: str,
    rep: int,
    replica: int | None = None,
) -> list[GameSpec]:
    """One game, or two with the first speaker swapped (`options` by first speaker, None for
    no swap).

    The first repeat is validated as a `GameSpec`; later repeats differ only in id, seed and
    repeat number, so they are built without validation and share the options dict and the
    pairing label: a 20,000-game plan then costs about 0.7 KB per game instead of 3.7 KB.
    """
    out = []
    for first, opts in options.items():
        tid_f = tid + (f"-f{first}" if first is not None else "")
        if tid_f in seen:
            raise ConfigError(f"two batches are both named {b.name!r}; rename one")
        seen.add(tid_f)
        check_id(tid_f)
        fields: dict[str, Any] = {
            "trace_id": tid_f,
            "game": game,
            "options": opts,
            "seed": seed,
            "agents": agents,
            "labels": {
                "experiment": exp.name,
                "batch": b.name,
                "repeat": rep,
                **({"replica": replica} if replica is not None else {}),
                "pairing": pairing,
                "first_speaker": first,
                **({"task": opts["task"]} if "task" in opts else {}),
            },
        }
        if rep == 0 and not replica:
            GameSpec.model_validate(fields)
        out.append(GameSpec.model_construct(_fields_set=_ALL_FIELDS, **fields))
    return out


_ALL_FIELDS = set(GameSpec.model_fields)


def pairing_label(agents: list[AgentSpec]) -> str:
    """``"a vs b"``; a team of three or more identical seats reads ``"imap ×5"``."""
    names = [a.display for a in agents]
    if len(names) > 2 and len(set(names)) == 1:
        return f"{names[0]} ×{len(names)}"
    return " vs ".join(names)


def _pairings(b: Batch, d: Defaults, game: str, options: dict[str, Any]) -> list[list[AgentSpec]]:
    seats = game_class(game)(make_config(game, options)).num_seats
    crossplay = b.crossplay if b.crossplay is not None else (None if b.agents else d.crossplay)
    if crossplay is not None:
        if seats != 2:
            raise ConfigError(f"batch {b.name!r}: crossplay needs a two-seat game")
        pool = [parse_agent(a) for a in crossplay]
        self_play = b.self_play if b.self_play is not None else (d.self_play is not False)
        pairs = (
            itertools.combinations_with_replacement(pool, 2)
            if self_play
            else itertools.combinations(pool, 2)
        )
        return [list(p) for p in pairs]
    agents = b.agents or d.agents
    if not agents:
        raise ConfigError(f"batch {b.name!r} has no agents; give 'agents' or 'crossplay'")
    specs = [parse_agent(a) for a in agents]
    if len(specs) == 1:
        specs = specs * seats
    if len(specs) != seats:
        raise ConfigError(
            f"batch {b.name!r}: {game} has {seats} seats but {len(specs)} agents were given"
        )
    return [specs]
