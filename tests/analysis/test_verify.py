"""`accord.verify`: untouched runs of every built-in game pass, each tampering case fails and
names its cause (an edited metric, reply or prompt, a swapped scenario, a removed game, a
trace from another run)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import accord
from accord.analysis.verify_record import read_record, verified_mark

GAMES: dict[str, dict[str, Any]] = {
    "negotiation": {"options": {"rounds": 3, "talk_turns": 1}},
    "sorting": {"options": {"n": 2, "k": 2, "max_rounds": 4}},
    "calendar": {"options": {"num_meetings": 2}},
}
REFERENCE = {"negotiation": "cooperative,greedy", "sorting": "share-all", "calendar": "imap"}
MODEL = "mock/schema"


def _make(root: Path, game: str, agents: str | None, model: str | None, seed: int) -> Path:
    out = root / f"{game}-{'model' if model else 'ref'}-{seed}"
    accord.run(
        game=game,
        agents=agents,
        model=model,
        games=2,
        seed=seed,
        options=GAMES[game]["options"],
        out=out,
    )
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    """A reference-agent run and a mock-model run of each game (seed 1), and a second mock
    run of each (seed 5) to take a foreign trace from."""
    root = tmp_path_factory.mktemp("verify")
    made: dict[tuple[str, str], Path] = {}
    for game in GAMES:
        made[(game, "ref")] = _make(root, game, REFERENCE[game], None, 1)
        made[(game, "model")] = _make(root, game, None, MODEL, 1)
        made[(game, "other")] = _make(root, game, None, MODEL, 5)
    return made


def _copy(run: Path, tmp_path: Path) -> Path:
    target = tmp_path / run.name
    shutil.copytree(run, target)
    (target / "verification.json").unlink(missing_ok=True)
    return target


def _traces(run: Path) -> list[Path]:
    return sorted((run / "traces").glob("*.json"))


def _edit(path: Path, change: Any) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def _failed(record: accord.Verification) -> set[str]:
    """Names of the failed checks, each prefixed by where (``run:`` or the trace id)."""
    return {line.split(": ")[0] + ": " + line.split(": ")[1] for line in record.mismatches()}


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("kind", ["ref", "model"])
def test_an_untouched_run_is_verified_and_marked(
    runs: dict[tuple[str, str], Path], tmp_path: Path, game: str, kind: str
) -> None:
    run = _copy(runs[(game, kind)], tmp_path)
    record = accord.verify(run)
    assert record.passed, record.mismatches()
    assert len(record.games) == 2
    names = [c.name for c in record.games[0].checks]
    assert names == ["plan", "replay", "events", "metrics", "scenario", "prompts", "record"]
    assert [c.name for c in record.run_checks] == ["plan", "results.jsonl", "summary.json"]
    assert read_record(run) == record
    assert verified_mark(run)["state"] == "verified"
    # A trace changed after verification makes the mark stale, not verified.
    _edit(_traces(run)[0], lambda d: d.update(ended_at="2000-01-01T00:00:00Z"))
    assert verified_mark(run)["state"] == "stale"


def _first_number(metrics: dict[str, Any]) -> str:
    return next(
        k for k, v in metrics.items() if isinstance(v, int | float) and not isinstance(v, bool)
    )


@pytest.mark.parametrize("game", list(GAMES))
def test_an_edited_metric_is_named(
    runs: dict[tuple[str, str], Path], tmp_path: Path, game: str
) -> None:
    run = _copy(runs[(game, "ref")], tmp_path)
    path = _traces(run)[0]
    key = ""

    def bump(d: dict[str, Any]) -> None:
        nonlocal key
        key = _first_number(d["metrics"])
        d["metrics"][key] = d["metrics"][key] + 7

    _edit(path, bump)
    record = accord.verify(run)
    assert not record.passed
    game_record = next(g for g in record.games if f"{g.trace_id}.json" == path.name)
    failed = {c.name: c.detail for c in game_record.checks if not c.passed}
    assert set(failed) == {"metrics"}, failed
    assert f"metrics.{key}" in failed["metrics"]
    assert verified_mark(run)["state"] == "failed"


def _replies(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        m
        for t in data["transcripts"].values()
        for m in t["messages"]
        if m["role"] == "assistant" and isinstance(m.get("content"), str) and m["content"]
    ]


@pytest.mark.parametrize("game", list(GAMES))
def test_an_edited_reply_is_named(
    runs: dict[tuple[str, str], Path], tmp_path: Path, game: str
) -> None:
    run = _copy(runs[(game, "model")], tmp_path)
    path = _traces(run)[0]

    def garble(d: dict[str, Any]) -> None:
        replies = _replies(d)
        assert replies, "the mock seat stored no reply"
        replies[0]["content"] = "I will not answer in JSON."

    _edit(path, garble)
    record = accord.verify(run)
    assert not record.passed
    lines = [m for m in record.mismatches() if m.startswith(path.stem + ": ")]
    assert lines, record.mismatches()
    # The changed reply changes what the seat did (or what it was asked next).
    assert {line.split(": ")[1] for line in lines} & {"events", "replay"}, lines


def _prompts(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        m
        for t in data["transcripts"].values()
        for m in t["messages"]
        if m["role"] in ("system", "user") and isinstance(m.get("content"), str)
    ]


@pytest.mark.parametrize("game", list(GAMES))
def test_an_edited_prompt_is_named(
    runs: dict[tuple[str, str], Path], tmp_path: Path, game: str
) -> None:
    run = _copy(runs[(game, "model")], tmp_path)
    first, second = _traces(run)
    _edit(first, lambda d: _prompts(d)[0].update(content=_prompts(d)[0]["content"] + " Lie."))

    def rehash(d: dict[str, Any]) -> None:
        name = sorted(d["prompt_templates"])[0]
        d["prompt_templates"][name]["sha256"] = "0" * 64

    _edit(second, rehash)
    record = accord.verify(run)
    failed = _failed(record)
    assert f"{first.stem}: replay" in failed, record.mismatches()
    assert "differs from the recorded one" in " ".join(record.mismatches())
    assert f"{second.stem}: prompts" in failed, record.mismatches()


@pytest.mark.parametrize("game", list(GAMES))
def test_a_swapped_scenario_is_named(
    runs: dict[tuple[str, str], Path], tmp_path: Path, game: str
) -> None:
    run = _copy(runs[(game, "ref")], tmp_path)
    first = _traces(run)[0]
    # Another seed's scenario (a run's games may share one scenario, seats swapped).
    other = json.loads(_traces(runs[(game, "other")])[0].read_text(encoding="utf-8"))["scenario"]
    assert other != json.loads(first.read_text(encoding="utf-8"))["scenario"]
    _edit(first, lambda d: d.update(scenario=other))
    record = accord.verify(run)
    assert f"{first.stem}: scenario" in _failed(record), record.mismatches()


@pytest.mark.parametrize("game", list(GAMES))
def test_a_removed_game_is_named(
    runs: dict[tuple[str, str], Path], tmp_path: Path, game: str
) -> None:
    run = _copy(runs[(game, "ref")], tmp_path)
    gone = _traces(run)[1]
    gone.unlink()
    record = accord.verify(run)
    assert not record.passed
    plan = next(c for c in record.run_checks if c.name == "plan")
    assert not plan.passed and gone.stem in plan.detail and "removed" in plan.detail


@pytest.mark.parametrize("game", list(GAMES))
def test_a_trace_from_another_run_is_named(
    runs: dict[tuple[str, str], Path], tmp_path: Path, game: str
) -> None:
    run = _copy(runs[(game, "model")], tmp_path)
    foreign = _traces(runs[(game, "other")])[0]
    target = run / "traces" / foreign.name
    shutil.copyfile(foreign, target)  # the same trace id, played from another seed
    record = accord.verify(run)
    game_record = next(g for g in record.games if f"{g.trace_id}.json" == foreign.name)
    plan = next(c for c in game_record.checks if c.name == "plan")
    assert not plan.passed and "another run" in plan.detail, plan
    # The foreign trace is itself honest: only its place in this run is wrong.
    assert [c.name for c in game_record.checks if not c.passed] == ["plan"]


def test_a_directory_without_traces_is_refused(tmp_path: Path) -> None:
    with pytest.raises(accord.core.errors.ConfigError, match="not a run directory"):
        accord.verify(tmp_path)


def test_a_suite_task_is_checked_against_the_named_suite(tmp_path: Path) -> None:
    """A game played from a named suite: its scenario is rebuilt from that suite's task, so
    the untouched run passes and another task's scenario in its place fails."""
    runs = []
    for task in ("canonical-uniform-easy-01", "canonical-uniform-easy-02"):
        out = tmp_path / task
        accord.run(game="calendar", agents="oracle-follower", suite="canonical", task=task, out=out)
        runs.append(out)
    record = accord.verify(runs[0])
    assert record.passed, record.mismatches()
    assert "suite" in json.dumps(json.loads(_traces(runs[0])[0].read_text())["config"])
    other = json.loads(_traces(runs[1])[0].read_text(encoding="utf-8"))["scenario"]
    target = _traces(runs[0])[0]
    _edit(target, lambda d: d.update(scenario=other))
    assert f"{target.stem}: scenario" in _failed(accord.verify(runs[0]))
