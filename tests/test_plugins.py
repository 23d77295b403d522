"""Games, agents, providers and reports from other packages (`accord.core.plugins`).

Each test installs small fake distributions (a ``.dist-info`` folder with ``entry_points.txt``
and the modules it names) into a temporary folder on ``sys.path``: exactly what an installed
package looks like to `importlib.metadata`. Broken ones must be skipped with their package
name and a fix, and never break the built-in games.
"""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.agents.reference import make_reference, reference_names
from accord.analysis.report import report_builder
from accord.cli.main import app
from accord.core import plugins
from accord.core.errors import (
    AccordError,
    ConfigError,
    ProviderNotFoundError,
    UnknownGameError,
)
from accord.core.registry import game_class, game_ids, make, resolve
from accord.games.negotiation.engine import NegotiationGame
from accord.models import MockModel, get_model, known_providers

BUILTIN = ["calendar-v2", "negotiation-v3", "sorting-v3"]

GOOD_GAME = """
from accord.games.negotiation.engine import NegotiationGame

class FakeGame(NegotiationGame):
    game_id = "fake-negotiation-v1"
"""


class Site:
    """A folder on sys.path that fake distributions are installed into."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.modules: list[str] = []

    def install(
        self, dist: str, entry_points: dict[str, dict[str, str]], modules: dict[str, str]
    ) -> None:
        info = self.root / f"{dist.replace('-', '_')}-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
        lines = []
        for group, eps in entry_points.items():
            lines.append(f"[{group}]")
            lines += [f"{name} = {value}" for name, value in eps.items()]
        (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
        for module, source in modules.items():
            (self.root / f"{module}.py").write_text(textwrap.dedent(source))
            self.modules.append(module)
        importlib.invalidate_caches()
        plugins.refresh()


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Site]:
    monkeypatch.syspath_prepend(str(tmp_path))
    plugins.refresh()
    fake = Site(tmp_path)
    yield fake
    monkeypatch.undo()
    for module in fake.modules:  # the next test's module of the same name is another file
        sys.modules.pop(module, None)
    plugins.refresh()


def problem_of(package: str) -> plugins.PluginProblem:
    found = [p for p in plugins.problems() if p.package == package]
    assert len(found) == 1, plugins.problems()
    return found[0]


# -- Accord's own games come through the same door ---------------------------------------------
def test_the_built_in_games_are_entry_points_of_accord() -> None:
    games = {ep.name: ep for ep in metadata.entry_points(group=plugins.GAMES)}
    assert {"calendar", "negotiation", "sorting"} <= set(games)
    assert plugins.package_of(games["negotiation"]) == "accord"
    assert set(BUILTIN) <= set(game_ids())
    assert resolve("negotiation") == "negotiation-v3"
    assert reference_names("calendar-v2") and "oracle-follower" in reference_names("calendar-v2")
    assert {"mock", "local", "openai-compatible", "litellm", "openai"} <= set(known_providers())
    assert report_builder("sorting-v3").__module__ == "accord.games.sorting.report"
    assert report_builder("negotiation-v1") is report_builder("negotiation-v3")
    assert plugins.problems() == []


def test_a_stale_install_without_our_entry_points_says_to_reinstall(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(metadata, "entry_points", lambda **_: [])
    with pytest.raises(AccordError, match="reinstall Accord"):
        plugins.entry_points(plugins.GAMES)


# -- a working plugin ---------------------------------------------------------------------------
def test_a_plugin_game_agents_provider_and_report_are_found(site: Site) -> None:
    site.install(
        "fake-games",
        {
            plugins.GAMES: {"fake": "fake_game:FakeGame"},
            plugins.AGENTS: {
                "fake-negotiation-v1": "fake_agents:AGENTS",
                "negotiation-v3": "fake_agents:EXTRA",  # adds an agent to a built-in game
            },
            plugins.MODELS: {"fakeprov": "fake_provider:build"},
            plugins.REPORTS: {"fake-negotiation-v1": "fake_report:build"},
        },
        {
            "fake_game": GOOD_GAME,
            "fake_agents": """
                from accord.games.negotiation.protocols import REFERENCE_AGENTS
                AGENTS = {"copycat": REFERENCE_AGENTS["greedy"]}
                EXTRA = {"stubborn": REFERENCE_AGENTS["greedy"]}
            """,
            "fake_provider": """
                from accord.models import MockModel
                def build(model, spec, options):
                    return MockModel(model="schema", options=options)
            """,
            "fake_report": "def build(traces, out):\n    return []\n",
        },
    )
    assert set(game_ids()) == {*BUILTIN, "fake-negotiation-v1"}
    assert resolve("fake") == "fake-negotiation-v1"
    assert make("fake").game_id == "fake-negotiation-v1"
    assert reference_names("fake-negotiation-v1") == ["copycat"]
    assert "stubborn" in reference_names("negotiation-v3")
    assert make_reference("fake-negotiation-v1", "copycat").spec == "copycat"
    assert isinstance(get_model("fakeprov/anything"), MockModel)
    assert report_builder("fake-negotiation-v1").__module__ == "fake_report"
    assert plugins.problems() == []


def test_a_game_registered_in_code_survives_a_refresh() -> None:
    from accord.core.registry import _FROM_CODE, register

    class CodeGame(NegotiationGame):
        game_id = "code-negotiation-v1"

    register(CodeGame, "codegame")
    try:
        plugins.refresh()
        assert resolve("codegame") == "code-negotiation-v1"
        assert set(BUILTIN) <= set(game_ids())
    finally:
        del _FROM_CODE["code-negotiation-v1"]
        plugins.refresh()
    assert "code-negotiation-v1" not in game_ids()


# -- broken plugins -----------------------------------------------------------------------------
def test_an_import_error_is_reported_and_the_other_games_still_load(site: Site) -> None:
    site.install(
        "broken-import",
        {plugins.GAMES: {"brokenimp": "broken_imp:Game"}},
        {"broken_imp": "import a_dependency_nobody_installed\n"},
    )
    site.install("fake-games", {plugins.GAMES: {"fake": "fake_game:FakeGame"}}, {
        "fake_game": GOOD_GAME})  # fmt: skip
    assert set(game_ids()) == {*BUILTIN, "fake-negotiation-v1"}
    problem = problem_of("broken-import")
    assert (
        "ModuleNotFoundError" in problem.error and "a_dependency_nobody_installed" in problem.error
    )
    assert "import broken_imp" in problem.fix
    line = problem.line()
    assert line.startswith("package 'broken-import': entry point 'brokenimp'") and "Fix:" in line
    with pytest.raises(UnknownGameError, match="It was skipped: package 'broken-import'"):
        resolve("brokenimp")
    with pytest.raises(UnknownGameError, match=r"1 game plugin\(s\) were skipped"):
        resolve("chess")


def test_a_game_id_taken_by_accord_is_refused_and_ours_kept(site: Site) -> None:
    site.install(
        "clashing-games",
        {plugins.GAMES: {"mynego": "clash:Clash", "calendar": "clash:Renamed"}},
        {
            "clash": """
                from accord.games.negotiation.engine import NegotiationGame
                class Clash(NegotiationGame):
                    pass  # keeps game_id = "negotiation-v3"
                class Renamed(NegotiationGame):
                    game_id = "renamed-v1"  # but its alias is calendar's
            """
        },
    )
    assert set(game_ids()) == set(BUILTIN)
    assert game_class("negotiation-v3") is NegotiationGame
    assert resolve("calendar") == "calendar-v2"
    found = {p.name: p for p in plugins.problems()}
    assert "'negotiation-v3' is already taken by a game from package 'accord'" in (
        found["mynego"].error
    )
    assert "'calendar' is already taken" in found["calendar"].error
    assert "another game_id" in found["mynego"].fix


def test_between_two_plugins_the_first_package_wins(site: Site) -> None:
    for dist in ("zeta-games", "alpha-games"):
        module = dist.replace("-", "_")
        site.install(dist, {plugins.GAMES: {f"{module}": f"{module}:FakeGame"}}, {
            module: GOOD_GAME})  # fmt: skip
    assert game_class("fake-negotiation-v1").__module__ == "alpha_games"
    problem = problem_of("zeta-games")
    assert "taken by a game from package 'alpha-games'" in problem.error


@pytest.mark.parametrize(
    ("source", "error", "fix"),
    [
        ("Bad = len\n", "is not a subclass of accord.core.Game", "point the entry point"),
        (
            "from accord.core.game import Game\nclass Bad(Game):\n    game_id = 'half-v1'\n",
            "leaves abstract methods unimplemented: done, num_seats, pending",
            "implement every method",
        ),
        (
            "from accord.games.negotiation.engine import NegotiationGame\n"
            "class Bad(NegotiationGame):\n    game_id = 'Unversioned Game'\n",
            "not a versioned id",
            "e.g. 'my-game-v1'",
        ),
        (
            "from pydantic import BaseModel\n"
            "from accord.games.negotiation.engine import NegotiationGame\n"
            "class Needs(BaseModel):\n    size: int\n"
            "class Bad(NegotiationGame):\n    game_id = 'needy-v1'\n    config_model = Needs\n",
            "cannot be built without options (needs size)",
            "give every option a default",
        ),
    ],
    ids=["not-a-game", "abstract", "unversioned", "config-without-defaults"],
)
def test_a_class_that_breaks_the_contract_is_skipped(
    site: Site, source: str, error: str, fix: str
) -> None:
    site.install("bad-contract", {plugins.GAMES: {"bad": "bad_contract:Bad"}}, {
        "bad_contract": source})  # fmt: skip
    assert set(game_ids()) == set(BUILTIN)
    problem = problem_of("bad-contract")
    assert error in problem.error
    assert fix in problem.fix


def test_bad_agent_tables_are_skipped_and_builtin_agents_kept(site: Site) -> None:
    site.install(
        "bad-agents",
        {
            plugins.AGENTS: {
                "no-such-game-v1": "bad_agents:TABLE",
                "negotiation-v3": "bad_agents:CLASH",
                "sorting-v3": "bad_agents:NOT_A_TABLE",
            }
        },
        {
            "bad_agents": """
                TABLE = {"x": object}
                CLASH = {"greedy": object}
                NOT_A_TABLE = [1, 2]
            """
        },
    )
    greedy = make_reference("negotiation-v3", "greedy")
    assert type(greedy).__module__ == "accord.games.negotiation.protocols"
    assert reference_names("sorting-v3") == ["local-sort", "share-all"]
    errors = {p.name: p.error for p in plugins.problems()}
    assert "already provided by package 'accord'" in errors["negotiation-v3"]
    assert "not a mapping of agent names" in errors["sorting-v3"]
    assert "'no-such-game-v1' is not an installed game" in errors["no-such-game-v1"]


def test_bad_providers_are_skipped_and_the_others_work(site: Site) -> None:
    site.install(
        "bad-providers",
        {plugins.MODELS: {"mock": "bad_prov:build", "broken": "bad_prov_missing:build"}},
        {"bad_prov": "def build(model, spec, options):\n    raise AssertionError\n"},
    )
    assert isinstance(get_model("mock/schema"), MockModel)
    assert "broken" not in known_providers()
    with pytest.raises(ProviderNotFoundError, match="Unknown model provider 'broken'"):
        get_model("broken/x")
    errors = {p.name: p.error for p in plugins.problems()}
    assert "already provided by package 'accord'" in errors["mock"]
    assert "ModuleNotFoundError" in errors["broken"]


def test_a_provider_that_builds_something_else_is_named_when_used(site: Site) -> None:
    site.install(
        "odd-provider",
        {plugins.MODELS: {"odd": "odd_prov:build"}},
        {"odd_prov": "def build(model, spec, options):\n    return object()\n"},
    )
    with pytest.raises(ConfigError, match="provider 'odd' \\(package 'odd-provider'\\) returned"):
        get_model("odd/x")
    result = CliRunner().invoke(app, ["games"], env={"COLUMNS": "400"})
    assert result.exit_code == 0 and "skipped" not in result.output


def test_accord_games_lists_a_skipped_provider(site: Site) -> None:
    site.install("bad-providers", {plugins.MODELS: {"mock": "x:build"}}, {})
    result = CliRunner().invoke(app, ["games"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert "skipped: package 'bad-providers': entry point 'mock' in group 'accord.models'" in (
        result.output
    )


def test_a_report_that_cannot_load_falls_back_to_the_summary(site: Site) -> None:
    from accord.analysis.report import generic_report

    site.install(
        "bad-report",
        {plugins.REPORTS: {"fake-negotiation-v1": "bad_report:build", "nope-v1": "bad_rep:X"}},
        {"bad_report": "raise RuntimeError('boom')\n", "bad_rep": "X = 3\n"},
    )
    assert report_builder("fake-negotiation-v1") is generic_report
    assert report_builder("nope-v1") is generic_report
    errors = {p.name: p.error for p in plugins.problems()}
    assert errors["fake-negotiation-v1"] == "importing it raised RuntimeError: boom"
    assert errors["nope-v1"] == "3 is not callable"


def test_accord_games_lists_the_skipped_plugin_with_its_fix(site: Site) -> None:
    site.install(
        "broken-import",
        {plugins.GAMES: {"brokenimp": "broken_imp:Game"}},
        {"broken_imp": "import a_dependency_nobody_installed\n"},
    )
    result = CliRunner().invoke(app, ["games"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert "negotiation-v3" in result.output
    assert "skipped: package 'broken-import': entry point 'brokenimp'" in result.output
    run = CliRunner().invoke(app, ["run", "brokenimp"], env={"COLUMNS": "400"})
    assert run.exit_code == 2
    assert "Unknown game 'brokenimp'" in run.output and "broken-import" in run.output
    assert "Traceback" not in run.output
