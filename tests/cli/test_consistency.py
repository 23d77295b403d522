"""Consistent names and up-front refusals across commands (issue 27, "Consistency").

Every bad input here is one line, exit code 2, and nothing written: not in the current
directory, not in the run directory.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from accord.cli.main import app

runner = CliRunner(env={"COLUMNS": "300"})
REFS = ["--agents", "cooperative,greedy", "-o", "rounds=1", "-o", "talk_turns=1"]


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args))


def refused(result: Result, *needles: str) -> str:
    """Exit 2, one error line (no traceback), naming every needle; returns the line."""
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    errors = [ln for ln in result.output.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1, result.output
    assert "Traceback" not in result.output
    for needle in needles:
        assert needle in errors[0], (needle, errors[0])
    return errors[0]


def nothing_in(folder: Path) -> None:
    assert sorted(p.name for p in folder.iterdir()) == []


@pytest.fixture
def empty_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    return here


@pytest.mark.parametrize("value", ["", "  "])
def test_run_refuses_an_empty_out(empty_cwd: Path, value: str) -> None:
    refused(invoke("run", "negotiation", *REFS, "--out", value), "--out is empty")
    nothing_in(empty_cwd)


@pytest.mark.parametrize(
    "args",
    [
        ["play", "negotiation", "--out", ""],
        ["reproduce", "calbench", "--table", "2", "--dry-run", "--out", ""],
        ["new", "game", "my_game", "--out", ""],
    ],
)
def test_other_commands_refuse_an_empty_out(empty_cwd: Path, args: list[str]) -> None:
    refused(invoke(*args), "--out is empty")
    nothing_in(empty_cwd)


def test_a_misspelt_local_model_is_refused_before_any_game(empty_cwd: Path) -> None:
    line = refused(
        invoke("run", "negotiation", "--model", "local/smollm3", "--games", "3"),
        "local/smollm3",
        "model_path",
    )
    assert "smollm2" in line  # the bundled one is named
    nothing_in(empty_cwd)


def test_a_missing_local_extra_is_one_line_naming_the_install(
    empty_cwd: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("accord.models.preflight.has_llama_cpp", lambda: False)
    refused(
        invoke("run", "negotiation", "--model", "local/smollm2", "--games", "3"),
        "local/smollm2",
        "accord[local]",
    )
    nothing_in(empty_cwd)


def test_every_missing_api_key_is_listed_at_once(
    empty_cwd: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    line = refused(
        invoke(
            "run",
            "negotiation",
            "--agents",
            "openai/gpt-x,anthropic/claude-y",
            "--games",
            "2",
        ),
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "openai/gpt-x",
        "anthropic/claude-y",
    )
    assert line.count("OPENAI_API_KEY") >= 1
    nothing_in(empty_cwd)


def test_the_preflight_joins_keys_and_is_silent_for_good_models(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from accord.core.errors import ConfigError
    from accord.models.preflight import check_models

    check_models([("mock/schema", {}), ("mock/schema", {})])
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(ConfigError) as info:
        check_models([("openai/a", {}), ("anthropic/b", {}), ("gemini/c", {}), ("openai/d", {})])
    text = str(info.value)
    assert re.search(r"OPENAI_API_KEY \(for openai/a, openai/d\)", text), text
    assert "ANTHROPIC_API_KEY" in text and "GEMINI_API_KEY" in text
    assert "\n" not in text


def test_play_refuses_a_misspelt_opponent_model(empty_cwd: Path) -> None:
    refused(invoke("play", "negotiation", "--against", "local/smollm3"), "local/smollm3")
    nothing_in(empty_cwd)


def test_scenario_takes_format_json_and_keeps_json() -> None:
    new = invoke("scenario", "negotiation", "--id", "0.5/gen_012", "--format", "json")
    old = invoke("scenario", "negotiation", "--id", "0.5/gen_012", "--json")
    assert new.exit_code == 0 and old.exit_code == 0, (new.output, old.output)
    assert json.loads(new.output) == json.loads(old.output)
    table = invoke("scenario", "negotiation", "--id", "0.5/gen_012")
    assert table.exit_code == 0 and "M/C=" in table.output
    bad = invoke("scenario", "negotiation", "--format", "yaml")
    assert bad.exit_code == 2


def test_fork_takes_model_options_as_M_and_o_only_with_a_note(
    tmp_path: Path, cli_help: Callable[..., str]
) -> None:
    shown = cli_help("fork")
    assert "-M" in shown and "--option" not in shown
    golden = Path(__file__).parents[1] / "golden" / "negotiation-coop-0.5.json"
    result = invoke(
        "fork", str(golden), "--at", "1", "--seat", "A", "--agent", "greedy", "-o", "timeout_s=5",
        "--out", str(tmp_path / "f"),
    )  # fmt: skip
    refused(result, "need --model")
    assert "deprecated" in result.output and "-M" in result.output
    assert not (tmp_path / "f").exists()


def test_new_game_takes_out_and_keeps_dir(tmp_path: Path) -> None:
    made = invoke("new", "game", "meeting_a", "--out", str(tmp_path / "a"))
    assert made.exit_code == 0, made.output
    assert (tmp_path / "a" / "meeting_a" / "pyproject.toml").is_file()
    old = invoke("new", "game", "meeting_b", "--dir", str(tmp_path / "b"))
    assert old.exit_code == 0, old.output
    assert (tmp_path / "b" / "meeting_b" / "pyproject.toml").is_file()


@pytest.mark.parametrize(
    ("name", "paper"),
    [
        ("negotiation", "grounding"),
        ("grounding", "grounding"),
        ("calendar", "calbench"),
        ("sorting", "mas-bench"),
    ],
)
def test_reproduce_takes_the_game_name_for_its_paper(name: str, paper: str) -> None:
    from accord.cli.reproduce_cmd import paper_id

    assert paper_id(name) == paper


def test_reproduce_negotiation_plans_the_grounding_paper(tmp_path: Path) -> None:
    args = ["--model", "mock/schema", "--smoke", "--dry-run"]
    by_game = invoke("reproduce", "negotiation", *args, "--out", str(tmp_path / "a"))
    by_paper = invoke("reproduce", "grounding", *args, "--out", str(tmp_path / "b"))
    assert by_game.exit_code == 0, by_game.output
    assert by_game.output.replace("/a", "/b") == by_paper.output
    refused(invoke("reproduce", "chess", *args), "unknown paper 'chess'", "negotiation")


def test_the_transcript_example_names_a_trace_make_run_writes(cli_help: Callable[..., str]) -> None:
    from accord.runner.config import expand, load_experiment

    root = Path(__file__).parents[2]
    make = (root / "Makefile").read_text()
    demo = re.search(r"accord run (\S+\.yaml) --out (\S+)", make)
    assert demo is not None
    ids = {s.trace_id for s in expand(load_experiment(root / demo.group(1)))}
    shown = cli_help("transcript")
    named = re.findall(r"accord transcript (\S+)/traces/(\S+)\.json", shown)
    assert named
    for folder, trace_id in named:
        assert folder == demo.group(2)
        assert trace_id in ids, (trace_id, sorted(ids)[:5])
