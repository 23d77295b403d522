"""The public Python API (`accord.run`, `run_async`, `play`, `load`, `plan`): the same plans,
files and errors as the ``accord`` command, typed reports, and a resumed run that reads each
kept trace once before play."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import accord
import accord.runner
import accord.traces.reader as trace_reader
from accord.cli.main import app
from accord.core.errors import AccordError, ConfigError, UnknownGameError
from accord.runner.results import RUN_FILES_VERSION, write_outputs

OPTIONS = {"rounds": 2, "talk_turns": 1}


def quick(out: Path, **kwargs: Any) -> accord.RunReport:
    args: dict[str, Any] = {"agents": "cooperative,greedy", "games": 3, "options": OPTIONS}
    return accord.run("negotiation", out=out, **{**args, **kwargs})


def test_quick_form_writes_what_the_command_writes(tmp_path: Path) -> None:
    report = quick(tmp_path / "api", seed=5)
    cli = CliRunner().invoke(
        app,
        [
            *("run", "negotiation", "--agents", "cooperative,greedy", "--games", "3"),
            *("--seed", "5", "-o", "rounds=2", "-o", "talk_turns=1"),
            *("--out", str(tmp_path / "cli")),
        ],
    )
    assert cli.exit_code == 0, cli.output
    for name in ("experiment.json", "results.jsonl", "summary.json"):
        assert (tmp_path / "api" / name).read_text() == (tmp_path / "cli" / name).read_text()
    for path in sorted((tmp_path / "cli" / "traces").glob("*.json")):
        a = json.loads((tmp_path / "api" / "traces" / path.name).read_text())
        b = json.loads(path.read_text())
        for key in ("started_at", "ended_at"):
            a.pop(key), b.pop(key)
        assert a == b
    assert report.played == report.planned == 3 and report.failed == []
    assert report.statuses == {f"negotiation-p00-g00{i}": "complete" for i in range(3)}
    assert report.summary_path == tmp_path / "api" / "summary.json"
    assert report.results_path.is_file() and report.traces_dir.is_dir()
    assert report.failures == []


def test_run_files_carry_a_schema_version(tmp_path: Path) -> None:
    quick(tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["schema_version"] == RUN_FILES_VERSION
    rows = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 6 and {r["schema_version"] for r in rows} == {RUN_FILES_VERSION}
    plan = json.loads((tmp_path / "experiment.json").read_text())
    assert plan["schema_version"] == RUN_FILES_VERSION and len(plan["games"]) == 3


def test_a_directory_an_older_accord_planned_still_resumes(tmp_path: Path) -> None:
    quick(tmp_path)
    path = tmp_path / "experiment.json"
    path.write_text(json.dumps(json.loads(path.read_text())["games"], indent=2))  # bare list
    report = quick(tmp_path, resume=True)
    assert report.skipped == 3 and report.played == 0
    assert json.loads(path.read_text())["schema_version"] == RUN_FILES_VERSION


def test_experiment_object_file_and_plan_give_the_same_games(tmp_path: Path) -> None:
    exp = accord.Experiment.model_validate(
        {
            "name": "two",
            "defaults": {"game": "negotiation", "games": 2, "options": OPTIONS},
            "grid": {"agents": [["cooperative", "greedy"], ["greedy", "greedy"]]},
        }
    )
    file = tmp_path / "two.yaml"
    file.write_text(json.dumps(exp.model_dump(exclude_none=True)))  # JSON is YAML
    by_object = accord.plan(exp, out=tmp_path / "a")
    by_file = accord.plan(file, out=tmp_path / "a")
    assert by_object.specs == by_file.specs and len(by_object.specs) == 4
    assert accord.plan(exp).out == Path("runs") / "two"
    report = accord.run(by_object, concurrency=2)
    assert report.played == 4 and set(report.statuses.values()) == {"complete"}
    assert accord.plan(by_object) is by_object


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"agents": "cooperative,nobody"}, ConfigError, "Unknown agent 'nobody'"),
        ({"agents": "greedy", "model": "mock/schema"}, ConfigError, "not both"),
        ({"game": "no-such-game"}, UnknownGameError, "Unknown game"),
        ({"model": "nosuchprovider/x"}, ConfigError, "nosuchprovider"),
        ({"concurrency": 0}, ConfigError, "^concurrency must be at least 1"),
    ],
)
def test_bad_input_raises_the_typed_error_before_any_file(
    tmp_path: Path, kwargs: dict[str, Any], error: type[AccordError], words: str
) -> None:
    target = None if "game" in kwargs else "negotiation"
    with pytest.raises(error, match=words):
        accord.run(target, out=tmp_path / "run", **kwargs)
    assert not (tmp_path / "run").exists()


def test_bad_targets_and_a_finished_directory_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="No experiment file"):
        accord.run(tmp_path / "missing.yaml")
    with pytest.raises(ConfigError, match="name what to run"):
        accord.run()
    with pytest.raises(ConfigError, match="quick form only"):
        accord.plan(accord.Experiment(), agents="greedy,greedy")
    quick(tmp_path)
    before = (tmp_path / "summary.json").read_text()
    with pytest.raises(ConfigError, match="already holds 3 traces") as refused:
        quick(tmp_path)
    # The API names its argument; the command prints its flag instead.
    assert "resume=True" in str(refused.value) and "--" not in str(refused.value)
    cli = CliRunner().invoke(
        app,
        [
            *("run", "negotiation", "--agents", "cooperative,greedy", "--games", "3"),
            *("--option", "rounds=2", "--option", "talk_turns=1", "--out", str(tmp_path)),
        ],
    )
    assert cli.exit_code == 2 and "Use --resume" in cli.output and "resume=True" not in cli.output
    assert (tmp_path / "summary.json").read_text() == before  # nothing computed is lost


def test_resume_reads_each_kept_trace_once_before_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    quick(tmp_path, games=4, agents="mock/schema,greedy")
    kept = sorted(p.name for p in (tmp_path / "traces").glob("*.json"))[:2]
    for path in sorted((tmp_path / "traces").glob("*.json"))[2:]:
        path.unlink()
    reads: Counter[str] = Counter()
    at_first_game: list[Counter[str]] = []
    original = trace_reader.trace_bytes

    def counting(path: Path) -> bytes:
        reads[Path(path).name] += 1
        return original(path)

    monkeypatch.setattr(trace_reader, "trace_bytes", counting)
    # max_cost needs the kept games' cost and the skip list their status: from one read.
    report = quick(
        tmp_path,
        games=4,
        agents="mock/schema,greedy",
        resume=True,
        max_cost=5.0,
        on_game=lambda spec, trace: at_first_game.append(Counter(reads)),
    )
    assert report.skipped == 2 and report.played == 2
    assert {name: at_first_game[0][name] for name in kept} == {name: 1 for name in kept}
    # results.jsonl and summary.json are rebuilt from what that read kept: no second read.
    assert {name: reads[name] for name in kept} == {name: 1 for name in kept}
    resumed = {f: (tmp_path / f).read_bytes() for f in ("results.jsonl", "summary.json")}
    write_outputs(
        tmp_path,
        [
            s.trace_id
            for s in accord.plan(
                "negotiation", agents="mock/schema,greedy", games=4, options=OPTIONS, out=tmp_path
            ).specs
        ],
    )
    assert resumed == {f: (tmp_path / f).read_bytes() for f in resumed}  # a fresh rebuild


def test_play_returns_a_trace_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    trace = accord.play("negotiation", ["cooperative", "greedy"], seed=4, options=OPTIONS)
    assert isinstance(trace, accord.Trace) and trace.status == "complete"
    assert trace.seed == 4 and trace.config["rounds"] == 2
    again = accord.play("negotiation", "cooperative,greedy", seed=4, options=OPTIONS)
    assert again.events == trace.events and again.metrics == trace.metrics
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ConfigError, match="Unknown agent"):
        accord.play("negotiation", "greedy,nobody")
    with pytest.raises(ConfigError):
        accord.play("negotiation", "greedy,greedy", options={"rounds": "many"})


def test_run_and_play_work_inside_a_running_event_loop(tmp_path: Path) -> None:
    async def notebook_cell() -> tuple[accord.RunReport, accord.Trace, accord.RunReport]:
        report = quick(tmp_path / "sync", games=1)
        trace = accord.play("negotiation", "greedy,greedy", options=OPTIONS)
        awaited = await accord.run_async(
            "negotiation", agents="greedy,greedy", options=OPTIONS, out=tmp_path / "async"
        )
        return report, trace, awaited

    report, trace, awaited = asyncio.run(notebook_cell())
    assert report.played == 1 and trace.status == "complete" and awaited.played == 1


def test_load_gives_games_seats_and_events(tmp_path: Path) -> None:
    report = quick(tmp_path)
    (tmp_path / "traces" / "junk.json").write_text("{not json")
    data = accord.load(tmp_path)
    traces = [accord.read_trace(p) for p in sorted(report.traces_dir.glob("negotiation*.json"))]
    assert [g["trace_id"] for g in data.games] == [t.trace_id for t in traces]
    assert len(data.seats) == 6 and {s["agent"] for s in data.seats} == {"cooperative", "greedy"}
    assert len(data.events) == sum(len(t.events) for t in traces)
    first = data.games[0]
    assert first["efficiency"] == traces[0].metrics["efficiency"]
    assert first["pairing"] == "cooperative vs greedy" and first["status"] == "complete"
    assert [e["index"] for e in data.events[: len(traces[0].events)]] == list(
        range(len(traces[0].events))
    )
    assert len(data.skipped) == 1 and "junk.json" in data.skipped[0]
    frame = data.to_pandas("seats")
    assert list(frame["seat"]) == [s["seat"] for s in data.seats]
    assert data.to_pandas().shape[0] == 3
    with pytest.raises(ConfigError, match="no table"):
        data.table("nope")  # type: ignore[arg-type]


def test_load_refuses_what_is_not_a_run(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a run directory"):
        accord.load(tmp_path / "nowhere")
    with pytest.raises(ConfigError, match="not a run directory"):
        accord.load(tmp_path)


def test_data_frames_name_the_extra_when_the_library_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    quick(tmp_path, games=1)
    data = accord.load(tmp_path)
    real = importlib.import_module

    def without_frames(name: str, package: str | None = None) -> Any:
        if name in ("pandas", "polars"):
            raise ImportError(f"No module named {name!r}")
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", without_frames)
    for convert, name in ((data.to_pandas, "pandas"), (data.to_polars, "polars")):
        with pytest.raises(ImportError, match=rf"{name} is not installed.*accord\[frames\]"):
            convert()


def test_public_names_resolve_and_import_accord_stays_light() -> None:
    for name in accord.__all__:
        assert getattr(accord, name) is not None
    for name in accord.runner.__all__:
        assert getattr(accord.runner, name) is not None
    with pytest.raises(AttributeError):
        accord.no_such_name  # noqa: B018
    code = "import accord, sys; print(sorted(m for m in sys.modules if m.startswith('accord')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['accord']"


def test_run_takes_every_keyword_run_async_takes() -> None:
    from accord.api import RunOptions

    keywords = {
        name
        for name, p in inspect.signature(accord.run_async).parameters.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    }
    assert set(RunOptions.__annotations__) == keywords


def test_seats_may_be_mappings_or_specs(tmp_path: Path) -> None:
    report = accord.run(
        "negotiation",
        agents=[{"agent": "cooperative", "label": "coop"}, accord.runner.AgentSpec(agent="greedy")],
        options=OPTIONS,
        out=tmp_path,
    )
    assert report.played == 1
    assert accord.load(tmp_path).games[0]["pairing"] == "coop vs greedy"
    with pytest.raises(ConfigError, match="exactly one of 'model'"):
        accord.play("negotiation", [{"label": "nobody"}, "greedy"])
