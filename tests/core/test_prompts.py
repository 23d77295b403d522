"""Prompt templates: overrides, checks, the trace record and `accord prompts`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.core.errors import ConfigError
from accord.games.negotiation.prompts import TEMPLATES, templates
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec
from accord.traces.io import read_trace

runner = CliRunner(env={"COLUMNS": "200"})


def _dump(tmp_path: Path) -> Path:
    folder = tmp_path / "wording"
    result = runner.invoke(app, ["prompts", "negotiation", "--dump", str(folder)])
    assert result.exit_code == 0, result.output
    assert sorted(p.stem for p in folder.glob("*.j2")) == sorted(TEMPLATES)
    return folder


def _play(tmp_path: Path, prompts: Path | None, name: str = "run") -> Path:
    seat = AgentSpec(model="mock/schema")
    options: dict[str, object] = {"rounds": 2}
    if prompts is not None:
        options["prompts"] = str(prompts)
    spec = GameSpec(trace_id="g", game="negotiation", options=options, seed=3, agents=[seat, seat])
    run_sync([spec], tmp_path / name)
    return tmp_path / name / "traces" / "g.json"


def test_dumped_defaults_play_exactly_as_the_built_in_ones(tmp_path: Path) -> None:
    folder = _dump(tmp_path)
    built_in = read_trace(_play(tmp_path, None, "a"))
    dumped = read_trace(_play(tmp_path, folder, "b"))
    assert built_in.transcripts == dumped.transcripts
    assert {r["source"] for r in built_in.prompt_templates.values()} == {"default"}
    assert {r["source"] for r in dumped.prompt_templates.values()} == {"override"}
    # Same text, same hash: the record says which wording was used, not where it came from.
    assert {k: v["sha256"] for k, v in built_in.prompt_templates.items()} == {
        k: v["sha256"] for k, v in dumped.prompt_templates.items()
    }


def test_an_override_changes_what_the_model_is_sent_and_the_trace_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "intro.j2").write_text("You and a partner share a market. Bargain well.\n")
    trace = read_trace(_play(tmp_path, folder))
    system = trace.transcripts["A"].messages[0]
    assert system["role"] == "system"
    assert system["content"].startswith("You and a partner share a market. Bargain well.\n\n")
    assert trace.prompt_templates["intro"]["source"] == "override"
    assert trace.prompt_templates["rules"]["source"] == "default"
    assert "## Rules of the game" in system["content"]  # the other sections stay


@pytest.mark.parametrize(
    ("file", "text", "needle"),
    [
        ("projects.j2", "## Projects\n{{ count }} of them.\n", "project_lines"),
        ("talk_opening.j2", "Talk now. {{ thinking }} {{ intervention }}\n", "partner_said"),
        ("rules.j2", "{% if %}broken\n", "rules.j2"),
        ("nonsense.j2", "hello\n", "not a template of negotiation"),
        ("intro.txt", "hello\n", "intro.txt"),
    ],
)
def test_bad_overrides_are_one_clear_error(
    tmp_path: Path, file: str, text: str, needle: str
) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / file).write_text(text)
    with pytest.raises(ConfigError, match=needle.replace("{", "\\{")):
        templates(folder)
    # Through the command line: exit 2 before any game is played.
    result = runner.invoke(
        app,
        ["run", "negotiation", "--model", "mock/schema", "--prompts", str(folder), "--out",
         str(tmp_path / "out")],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert needle.split(".")[0] in result.output
    assert not (tmp_path / "out" / "traces").exists()


def test_a_missing_folder_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="accord prompts negotiation --dump"):
        templates(tmp_path / "nowhere")


def test_experiment_prompts_are_relative_to_the_file_and_refused_for_games_without(
    tmp_path: Path,
) -> None:
    _dump(tmp_path)
    exp = tmp_path / "exp.yaml"
    exp.write_text(
        "prompts: wording\ndefaults:\n  game: negotiation\n  games: 1\n  options: {rounds: 1}\n"
        "  agents: [mock/schema, greedy]\n"
    )
    result = runner.invoke(app, ["run", str(exp), "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    (trace,) = (tmp_path / "run" / "traces").glob("*.json")
    data = json.loads(trace.read_text())
    assert data["config"]["prompts"] == str((tmp_path / "wording").resolve())
    assert data["prompt_templates"]["system"]["source"] == "override"
    # Every game has templates: a calendar experiment takes the same key (its own folder).
    cal_dump = runner.invoke(app, ["prompts", "calendar", "--dump", str(tmp_path / "cal")])
    assert cal_dump.exit_code == 0, cal_dump.output
    calendar = tmp_path / "cal.yaml"
    calendar.write_text("prompts: cal\ndefaults:\n  game: calendar\n  agents: [imap]\n")
    played = runner.invoke(app, ["run", str(calendar), "--out", str(tmp_path / "calrun")])
    assert played.exit_code == 0, played.output
    (cal_trace,) = (tmp_path / "calrun" / "traces").glob("*.json")
    recorded = json.loads(cal_trace.read_text())["prompt_templates"]
    assert recorded["round_start"]["source"] == "override"


def test_listing_shows_variables_and_what_must_stay() -> None:
    result = runner.invoke(app, ["prompts", "negotiation"])
    assert result.exit_code == 0, result.output
    assert "talk_opening.j2" in result.output and "partner_said" in result.output
    other = runner.invoke(app, ["prompts", "chess"])
    assert other.exit_code == 2 and "Unknown game" in other.output


def test_sorting_templates_dump_override_and_check(tmp_path: Path) -> None:
    from accord.games.sorting.prompts import templates as sorting_templates

    folder = tmp_path / "sorting"
    dumped = runner.invoke(app, ["prompts", "sorting", "--dump", str(folder)])
    assert dumped.exit_code == 0, dumped.output
    (folder / "first_observation.j2").write_text("Begin. Send your first commands.\n")
    for other in folder.glob("*.j2"):
        if other.name != "first_observation.j2":
            other.unlink()
    seat = AgentSpec(model="mock/schema")
    spec = GameSpec(
        trace_id="s",
        game="sorting",
        options={"n": 2, "k": 2, "max_rounds": 1, "prompts": str(folder)},
        seed=1,
        agents=[seat, seat],
    )
    run_sync([spec], tmp_path / "run")
    trace = read_trace(tmp_path / "run" / "traces" / "s.json")
    first_user = trace.transcripts["Agent-0"].messages[1]
    assert first_user == {"role": "user", "content": "Begin. Send your first commands."}
    assert trace.prompt_templates["first_observation"]["source"] == "override"
    assert trace.prompt_templates["header"]["source"] == "default"
    (folder / "header.j2").write_text("You are Agent-{{ agent }}. Sort.\n")
    with pytest.raises(ConfigError, match="own_list"):
        sorting_templates(folder)


@pytest.mark.parametrize("game", ["negotiation", "calendar", "sorting"])
async def test_default_templates_send_exactly_the_recorded_prompts(game: str) -> None:
    """The templates replaced prompts built in code: over every condition of
    `accord.testing.prompt_cases`, each seat is sent byte for byte what it was sent before."""
    from accord.testing.prompt_cases import cases, transcripts

    golden = Path(__file__).parents[1] / "games" / game / "data" / "prompt_transcripts.json"
    expected = json.loads(golden.read_text())
    fresh = json.loads(json.dumps(await transcripts(game), ensure_ascii=False))
    assert sorted(fresh) == sorted(expected) == sorted(cases(game).cases)
    for case in expected:
        for seat in expected[case]:
            got = [m["content"] for m in fresh[case][seat]["messages"]]
            want = [m["content"] for m in expected[case][seat]["messages"]]
            assert got == want, (game, case, seat)
    assert fresh == expected
