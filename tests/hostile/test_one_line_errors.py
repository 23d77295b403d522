"""Issue 25, "Errors that should be one clear line, exit 2": hand-edited traces, flags that
name a file or an unwritable place, and plugins that misbehave. Each case ends in one line and
exit code 2 (or is handled), never in a traceback."""

from __future__ import annotations

import importlib
import json
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from accord.analysis.query import run_query
from accord.core import plugins
from accord.core.errors import ConfigError
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec


def edit(run_dir: Path, change: Callable[[dict[str, Any]], object], name: str = "b-g000") -> Path:
    """Hand-edit one trace of `run_dir` in place."""
    path = run_dir / "traces" / f"{name}.json"
    trace = json.loads(path.read_text("utf-8"))
    change(trace)
    path.write_text(json.dumps(trace), "utf-8")
    return run_dir


def deep_events(run_dir: Path) -> Path:
    """Events nested 100,000 levels deep (written as text: json.dumps would recurse)."""
    path = run_dir / "traces" / "b-g000.json"
    text = path.read_text("utf-8").replace('"events": [', '"events": [' + "[" * 100_000, 1)
    text = text.replace('"final_state"', "]" * 100_000 + ', "final_state"', 1)
    path.write_text(text, "utf-8")
    return run_dir


@pytest.mark.parametrize("command", ["query", "export"])
@pytest.mark.parametrize(
    ("damage", "needle"),
    [
        (lambda d: edit(d, lambda t: t.update(events={"type": "message"})), "events"),
        (deep_events, "nests deeper than 100 levels"),
        (lambda d: edit(d, lambda t: t.update(seats=[{"agent": "x"}])), "seat"),
        (lambda d: edit(d, lambda t: t.update(usage=[1])), "usage"),
    ],
    ids=["events-object", "deep-nesting", "seat-without-number", "usage-list"],
)
def test_query_and_export_of_a_damaged_trace_are_one_line(
    cli, run_dir: Path, tmp_path: Path, command: str, damage, needle: str
) -> None:
    damage(run_dir)
    args = ["SELECT count(*) FROM events"] if command == "query" else ["--out", tmp_path / "x"]
    # One damaged trace is listed with its reason and the rest of the run is still read
    # (skip and list, as every command that reads a run does); alone, it is an error.
    cli.skipped(cli.invoke(command, run_dir, *args), "b-g000.json", needle)


def test_a_trace_without_trace_id_is_called_that(cli, run_dir: Path) -> None:
    edit(run_dir, lambda t: t.pop("trace_id"))
    result = cli.invoke("query", run_dir, "SELECT count(*) FROM games")
    cli.skipped(result, "b-g000.json", "field trace_id")
    assert "schema version" not in result.output


def test_pivot_is_a_read_only_query(run_dir: Path) -> None:
    names, _, rows = run_query([run_dir], "PIVOT events ON type USING count(*) GROUP BY trace_id")
    assert "message" in names and len(rows) == 2
    sql = "SELECT * FROM (PIVOT (SELECT status FROM games) ON status USING count(*))"
    names, _, rows = run_query([run_dir], sql)
    assert names == ["complete"] and rows == [(2,)]


@pytest.mark.parametrize(
    "sql",
    [
        "COPY (PIVOT events ON type USING count(*)) TO '{out}'",
        "CREATE TABLE t AS PIVOT events ON type USING count(*)",
        "INSERT INTO t PIVOT events ON type USING count(*)",
    ],
)
def test_a_pivot_inside_a_write_is_still_refused(run_dir: Path, tmp_path: Path, sql: str) -> None:
    out = tmp_path / "leak.csv"
    with pytest.raises(ConfigError, match="read-only"):
        run_query([run_dir], sql.format(out=out))
    assert not out.exists()


# -- leaderboard and cost on hand-edited seats ---------------------------------------------------


@pytest.fixture
def model_run(tmp_path: Path) -> Path:
    """Two mock-model games, one of them copied on the same task with its seats emptied."""
    models = [AgentSpec(model="mock/schema"), AgentSpec(model="mock/random")]
    specs = [
        GameSpec(
            trace_id=f"b-g{i:03d}",
            game="negotiation",
            options={"rounds": 2, "talk_turns": 1},
            seed=i,
            agents=models,
        )
        for i in range(2)
    ]
    out = tmp_path / "models"
    run_sync(specs, out)
    return out


def test_leaderboard_leaves_out_a_seatless_trace(cli, model_run: Path) -> None:
    trace = json.loads((model_run / "traces" / "b-g000.json").read_text("utf-8"))
    trace.update(trace_id="seatless", seats=[])
    (model_run / "traces" / "seatless.json").write_text(json.dumps(trace), "utf-8")
    result = cli.invoke("leaderboard", model_run)
    assert result.exit_code == 0, result.output
    assert "mock/schema" in result.output and "Traceback" not in result.output


def test_cost_skips_a_seat_whose_model_is_not_provider_model(cli, model_run: Path) -> None:
    edit(model_run, lambda t: t["seats"][0].update(model="gpt4"))
    result = cli.invoke("cost", model_run)
    assert result.exit_code == 0, (result.output, result.exception)
    text = " ".join(result.output.split())
    assert "skipped: Trace b-g000: seat A's model 'gpt4' is not provider/model" in text
    assert "b-g001" in text  # the other game is still counted


def test_cost_of_only_unpriceable_seats_is_one_line(cli, model_run: Path) -> None:
    for name in ("b-g000", "b-g001"):
        edit(model_run, lambda t: t["seats"][0].update(model="gpt4"), name)
        edit(model_run, lambda t: t["seats"][1].update(model="nope"), name)
    cli.error(cli.invoke("cost", model_run), "No model calls")


# -- flags naming a file or a place that cannot be written ---------------------------------------


@pytest.mark.parametrize("command", ["report", "export"])
def test_out_that_is_a_file_is_one_line(cli, run_dir: Path, tmp_path: Path, command: str) -> None:
    target = tmp_path / "a-file"
    target.write_text("mine")
    cli.error(cli.invoke(command, run_dir, "--out", target), "--out", "is a file")
    cli.error(cli.invoke(command, run_dir, "--out", target / "sub"), "--out", "which is a file")
    assert target.read_text() == "mine"


@pytest.mark.parametrize("where", ["file", "proc", "proc-deep"])
def test_new_game_dir_that_cannot_be_written_is_one_line(cli, tmp_path: Path, where: str) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("mine")
    directory = {"file": a_file, "proc": Path("/proc/accord-x"), "proc-deep": Path("/proc/1/x")}
    cli.error(cli.invoke("new", "game", "meeting", "--out", directory[where]), "--out")


# -- plugins -------------------------------------------------------------------------------------


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """Install a fake distribution (entry points and modules) on sys.path."""
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    modules: list[str] = []

    def install(dist: str, group: str, entry: str, module: str, source: str) -> None:
        info = root / f"{dist.replace('-', '_')}-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
        (info / "entry_points.txt").write_text(f"[{group}]\n{entry}\n")
        (root / f"{module}.py").write_text(textwrap.dedent(source))
        modules.append(module)
        importlib.invalidate_caches()
        plugins.refresh()

    yield install
    monkeypatch.undo()
    for module in modules:
        sys.modules.pop(module, None)
    plugins.refresh()


def test_games_lists_a_plugin_game_without_docstrings(cli, site) -> None:
    source = """
        from accord.games.negotiation.engine import NegotiationGame
        class G(NegotiationGame):
            game_id = "nodoc-v1"
    """
    site("nodoc-game", plugins.GAMES, "nodoc = nodoc_game:G", "nodoc_game", source)
    result = cli.invoke("games")
    assert result.exit_code == 0, (result.output, result.exception)
    assert "nodoc-v1" in result.output and "negotiation-v3" in result.output


def test_a_provider_builder_that_raises_is_one_line_naming_its_package(cli, site) -> None:
    source = 'def build(model, spec, options):\n    raise RuntimeError("no GPU here")\n'
    site("boom-provider", plugins.MODELS, "boom = boom_prov:build", "boom_prov", source)
    from accord.models import get_model

    with pytest.raises(ConfigError, match=r"'boom-provider'.*RuntimeError: no GPU here"):
        get_model("boom/x")


@pytest.mark.parametrize(
    ("source", "said"),
    [("import sys\nsys.exit(3)\n", "sys.exit(3)"), ("raise KeyboardInterrupt\n", "Keyboard")],
    ids=["sys-exit", "keyboard-interrupt"],
)
def test_a_plugin_that_exits_at_import_is_skipped_not_fatal(cli, site, source, said) -> None:
    site("exit-plugin", plugins.GAMES, "bye = bye_game:G", "bye_game", source)
    result = cli.invoke("games")
    assert result.exit_code == 0, (result.output, result.exception)
    text = " ".join(result.output.split())
    assert "negotiation-v3" in text
    assert "skipped: package 'exit-plugin'" in text and said in text
