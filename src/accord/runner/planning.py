"""What a run will play and where: an experiment file, an `Experiment`, or the quick form.

`plan_run` turns what a caller gives (``accord run`` on the command line, `accord.run` in
Python) into a `RunPlan`: the expanded game specs and the run directory. The quick form is
one game with its seats and a count, ``plan_run(game="negotiation", agents="cooperative,greedy",
games=20)``, the same plan `accord run negotiation --agents cooperative,greedy --games 20`
builds. A plan also checks itself before play (`RunPlan.check`) and reads the traces a resumed
run already holds, once (`RunPlan.scan`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accord.core.errors import ConfigError
from accord.core.ids import slug
from accord.runner.config import Batch, Defaults, Experiment, expand, load_experiment
from accord.runner.scan import RunScan, scan_run
from accord.runner.specs import (
    AgentSpec,
    GameSpec,
    parse_agent,
    parse_agent_list,
    with_action_mode,
)
from accord.store import check_location, is_location
from accord.store.mirror import scratch_folder

AgentsArg = str | Sequence[str | Mapping[str, Any] | AgentSpec]
"""Seats: ``"mock/schema,greedy"``, or a list of model/agent names, mappings or specs."""


@dataclass
class RunPlan:
    """The games of a run and its directory."""

    specs: list[GameSpec]
    """Every game to play, in order (`accord.runner.config.expand`)."""
    out: Path
    """The run directory (``runs/<name>`` unless given)."""
    checked: bool = False
    """True once `check` passed: a run does not check again."""
    store: str | None = None
    """The object-store location the run is kept at (``s3://...``), when it is; `out` is then
    this process's local working copy of it (`accord.runner.stored`)."""
    _scan: RunScan | None = field(default=None, repr=False)

    def check(
        self,
        *,
        models: bool = True,
        cache: Path | None = None,
        estimate_from: Sequence[Path] = (),
    ) -> None:
        """Refuse, before any game or file, a plan whose models cannot run (a misspelt model,
        a missing extra, every missing API key at once: `accord.models.preflight`; the run
        and the seats: an unknown agent, a remote seat's missing program; the run then checks
        its games as it starts). With ``models=False`` (a dry run)
        everything a run checks before play is checked here, but the API keys: the seats,
        one game of each configuration, a `cache` that is a file, `estimate_from` folders
        that are not runs (`accord.runner.run.check_run`).

        Raises:
            ConfigError: one line naming what is wrong and what to do.
        """
        if self.store is None and self.out.exists() and not self.out.is_dir():
            raise ConfigError(
                f"out {self.out} is a file, not a directory; choose a directory.",
                cli=f"--out {self.out} is a file, not a directory; choose a directory.",
            )
        if models:
            from accord.models.preflight import check_models
            from accord.runner.run import check_seats

            check_models(
                (a.model, dict(a.options)) for s in self.specs for a in s.agents if a.model
            )
            check_seats(self.specs)  # agents, remote seats' programs: nothing is called
        else:
            from accord.runner.run import check_run

            check_run(self.specs, models=False, cache=cache, estimate_from=estimate_from)
        self.checked = True

    def scan(self) -> RunScan:
        """The traces already in `out`, each read once (and kept for the run to reuse)."""
        if self._scan is None:
            if self.store is not None:
                from accord.runner.stored import sync
                from accord.store import open_store

                sync(open_store(self.store), self.out)
            self._scan = scan_run(self.out)
        return self._scan

    def finished(self, *, skip_failed: bool = False) -> set[str]:
        """Ids of this plan's games a resumed run skips."""
        return self.scan().finished(include_failed=skip_failed) & {s.trace_id for s in self.specs}


def plan_run(
    target: str | Path | Experiment | RunPlan | None = None,
    *,
    game: str | None = None,
    agents: AgentsArg | None = None,
    model: str | None = None,
    games: int = 1,
    seed: int | None = None,
    options: Mapping[str, Any] | None = None,
    suite: str | None = None,
    task: str | None = None,
    swap_first_speaker: bool = False,
    temperature: float | None = None,
    max_tokens: int | None = None,
    prompts: str | Path | None = None,
    out: str | Path | None = None,
    action_mode: str | None = None,
) -> RunPlan:
    """The plan of a run.

    Args:
        target: an experiment file (``.yaml``), an `Experiment`, a game name (the quick form,
            as `game`), or a plan (returned as it is).
        game / agents / model / games / options / suite / task / swap_first_speaker /
            temperature / max_tokens: the quick form (`accord run GAME`); `agents` are the
            seats, `model` one model for every seat (default ``local/smollm2``).
        seed: the base seed (overrides an experiment's).
        prompts: a folder of prompt templates laid over the game's defaults.
        out: the run directory (default ``runs/<experiment name>`` or ``runs/<game>-quick``).
        action_mode: ``json``, ``tools`` or ``auto`` for every model seat that sets none
            itself (`accord.runner.specs.with_action_mode`).

    Raises:
        ConfigError: a missing file, quick-form settings given with an experiment, both
            `agents` and `model`, an unknown game or agent, bad options.
    """
    if isinstance(target, RunPlan):
        return target
    plan = _plan(
        target,
        game=game,
        agents=agents,
        model=model,
        games=games,
        seed=seed,
        options=options,
        suite=suite,
        task=task,
        swap_first_speaker=swap_first_speaker,
        temperature=temperature,
        max_tokens=max_tokens,
        prompts=prompts,
        out=out,
    )
    if action_mode is not None:
        plan.specs = [
            s.model_copy(update={"agents": with_action_mode(s.agents, action_mode)})
            for s in plan.specs
        ]
    return plan


def _plan(
    target: str | Path | Experiment | None,
    *,
    game: str | None,
    agents: AgentsArg | None,
    model: str | None,
    games: int,
    seed: int | None,
    options: Mapping[str, Any] | None,
    suite: str | None,
    task: str | None,
    swap_first_speaker: bool,
    temperature: float | None,
    max_tokens: int | None,
    prompts: str | Path | None,
    out: str | Path | None,
) -> RunPlan:
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ConfigError(f"seed must be a whole number (got {seed!r:.40})")
    if isinstance(games, bool) or not isinstance(games, int):
        raise ConfigError(f"games must be a whole number (got {games!r:.40})")
    if out is not None and not str(out).strip():
        raise ConfigError(
            'out is empty: name a directory, e.g. out="runs/mine"',
            cli="--out is empty: name a directory, e.g. --out runs/mine",
        )
    store = check_location(out) if isinstance(out, str) and is_location(out) else None
    if store is not None:
        out_dir: Path | None = scratch_folder("accord-run-")  # the working copy of this process
    else:
        out_dir = Path(out) if out is not None else None
    prompts_dir = Path(prompts).resolve() if prompts is not None else None
    quick = agents or model or options or suite or task
    if isinstance(target, Experiment):
        if quick:
            raise ConfigError(_QUICK_ONLY_API, cli=_QUICK_ONLY)
        exp = target.model_copy(deep=True)
        if prompts_dir is not None:
            exp.prompts = str(prompts_dir)
        if swap_first_speaker:
            _swap_everywhere(exp)
        return RunPlan(expand(exp, seed_override=seed), out_dir or _default_out(exp), store=store)
    if target is not None and game is not None:
        raise ConfigError("give the game once: as the target or as game=, not both")
    if target is not None:
        path = Path(target)
        if isinstance(target, Path) or path.suffix in {".yaml", ".yml"} or path.is_file():
            if not path.is_file():
                raise ConfigError(f"No experiment file {str(target)!r}. Check the path.")
            if quick:
                raise ConfigError(_QUICK_ONLY_API, cli=_QUICK_ONLY)
            exp = load_experiment(path)
            if prompts_dir is not None:  # --prompts wins over the file's prompts:
                exp.prompts = str(prompts_dir)
            if swap_first_speaker:
                _swap_everywhere(exp)
            return RunPlan(
                expand(exp, seed_override=seed), out_dir or _default_out(exp), store=store
            )
        game = str(target)
    if game is None:
        raise ConfigError(
            "name what to run: an experiment file, an Experiment, or a game (e.g. "
            "'negotiation') with its agents"
        )
    exp = quick_experiment(
        game,
        agents=agents,
        model=model,
        games=games,
        seed=seed,
        options=options,
        suite=suite,
        task=task,
        swap_first_speaker=swap_first_speaker,
        temperature=temperature,
        max_tokens=max_tokens,
    )
    if prompts_dir is not None:
        exp.prompts = str(prompts_dir)
    return RunPlan(expand(exp), out_dir or Path("runs") / f"{game}-quick", store=store)


_QUICK_ONLY = (
    "--agents, --model, --option, --suite and --task apply to the quick form only; "
    "put them in the experiment file instead"
)
_QUICK_ONLY_API = (
    "agents, model, options, suite and task apply to the quick form only (a game name); "
    "put them in the experiment file instead"
)


def _swap_everywhere(exp: Experiment) -> None:
    """``--swap-first-speaker`` with an experiment file: every batch (and grid point) plays
    each game twice, the first speaker swapped, whatever the file says; a batch whose game
    has no first speaker is refused by `expand`."""
    exp.defaults.swap_first_speaker = True
    for batch in exp.batches or []:
        batch.swap_first_speaker = True
    if exp.grid is not None and "swap_first_speaker" in exp.grid:
        exp.grid["swap_first_speaker"] = [True]


def _default_out(exp: Experiment) -> Path:
    # The name is a label: only its safe form may become the default directory.
    return Path("runs") / slug(exp.name, fallback="experiment")


def seat_specs(agents: AgentsArg | None, model: str | None) -> list[AgentSpec]:
    """The seats of the quick form: `agents`, else `model` for every seat."""
    if agents and model:
        raise ConfigError(
            "give either agents or model, not both", cli="give either --agents or --model, not both"
        )
    if agents is None or isinstance(agents, str):
        return parse_agent_list(agents or model or "local/smollm2")
    if not isinstance(agents, Sequence) or not all(
        isinstance(a, str | AgentSpec | Mapping) for a in agents
    ):
        raise ConfigError(
            f"agents must be one text ('cooperative,greedy') or a list of agent names, specs "
            f"or mappings, one per seat (got {agents!r:.60})"
        )
    return [parse_agent(a if isinstance(a, str | AgentSpec) else dict(a)) for a in agents]


def quick_experiment(
    game: str,
    *,
    agents: AgentsArg | None = None,
    model: str | None = None,
    games: int = 1,
    seed: int | None = None,
    options: Mapping[str, Any] | None = None,
    suite: str | None = None,
    task: str | None = None,
    swap_first_speaker: bool = False,
    temperature: float | None = None,
    max_tokens: int | None = None,
) -> Experiment:
    """The one-batch `Experiment` of the quick form (``accord run GAME --agents ...``)."""
    if games < 1:
        raise ConfigError(
            f"games must be at least 1 (got {games})",
            cli=f"--games must be at least 1 (got {games})",
        )
    seats = seat_specs(agents, model)
    if temperature is not None or max_tokens is not None:
        seats = [
            s.model_copy(update={"temperature": temperature, "max_tokens": max_tokens})
            if s.model
            else s
            for s in seats
        ]
    return Experiment(
        name=f"{game}-quick",
        defaults=Defaults(
            game=game,
            games=games,
            seed=seed or 0,
            options={**(options or {}), **({"task": task} if task else {})},
            agents=list(seats),
            swap_first_speaker=swap_first_speaker,
            suite=suite,
        ),
        batches=[Batch(name=game if suite is None else f"{game}-{Path(suite).stem}")],
    )
