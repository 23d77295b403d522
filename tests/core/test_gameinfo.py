"""One declaration per game (`accord.core.gameinfo.GameInfo`): lookup, lazy parts, the older
bare-class entry point, and a plugin's declaration reaching every consumer."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.test_plugins import Site

from accord.core import plugins
from accord.core.errors import AccordError, UnknownGameError
from accord.core.gameinfo import GameInfo, Lazy, all_infos, info_for, info_for_trace
from accord.core.registry import game_ids, resolve

DECLARED = """
from accord.core.gameinfo import (
    Board, Dimension, GameInfo, HumanSeat, Lazy, Outcome, TalkValue, metric,
)
from accord.games.negotiation.engine import NegotiationGame


class TwinGame(NegotiationGame):
    game_id = "twin-v1"


def messages(events, seats):
    return [(i, e["seat"], "twin", None, e.get("speech", ""), True)
            for i, e in enumerate(events) if e.get("type") == "message"]


def adapter(request, line):
    return {"thinking": "", "speech": line, "decision": None}


def help_line(request):
    return "say anything"


INFO = GameInfo(
    game=TwinGame,
    alias="twin",
    agents={"greedy": Lazy("accord.games.negotiation.protocols:GreedyAgent").get()},
    board=Board("teams", (Dimension("eff", "eff", True, 0.2, game_score=metric("efficiency")),)),
    value=TalkValue(outcomes=(Outcome("eff", "eff", 1.0, metric("efficiency")),)),
    messages=messages,
    human=HumanSeat(adapter=adapter, help=help_line),
)
"""


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Site]:
    monkeypatch.syspath_prepend(str(tmp_path))
    plugins.refresh()
    fake = Site(tmp_path)
    yield fake
    monkeypatch.undo()
    for module in fake.modules:
        sys.modules.pop(module, None)
    plugins.refresh()


def test_built_in_games_are_found_by_id_alias_and_older_ids() -> None:
    assert [i.game_id for i in all_infos()] == sorted(game_ids())
    assert info_for("negotiation") is info_for("negotiation-v3")
    assert info_for("negotiation-v1").game_id == "negotiation-v3"  # its report still reads v1
    assert info_for("sorting-v2").alias == "sorting"
    assert info_for_trace("nobody-v1", "nobody") is None


def test_an_unknown_name_gets_the_registrys_suggestion() -> None:
    with pytest.raises(UnknownGameError, match="Did you mean 'negotiation'"):
        info_for("negotation")


def test_lazy_references_load_on_use_and_say_what_is_wrong() -> None:
    assert Lazy("accord.core.gameinfo:GameInfo").get() is GameInfo
    with pytest.raises(AccordError, match="not 'module:attribute'"):
        Lazy("no colon here")
    with pytest.raises(AccordError, match=re.escape("cannot load 'accord.core.gameinfo:Missing'")):
        Lazy("accord.core.gameinfo:Missing").get()


def test_the_alias_defaults_to_the_id_without_its_version() -> None:
    from accord.games.sorting.engine import SortingGame

    assert GameInfo(game=SortingGame).alias == "sorting"
    assert GameInfo.of(SortingGame, "sort").alias == "sort"


def test_a_bare_game_class_entry_point_still_works(site: Site) -> None:
    site.install(
        "bare-game",
        {"accord.games": {"bare": "bare_mod:BareGame"}},
        {
            "bare_mod": """
            from accord.games.negotiation.engine import NegotiationGame

            class BareGame(NegotiationGame):
                game_id = "bare-v1"
            """
        },
    )
    assert resolve("bare") == "bare-v1"
    info = info_for("bare")
    assert info.alias == "bare" and info.board is None and info.judges == ()
    assert plugins.problems() == []


def test_a_declaration_that_names_no_game_class_is_skipped_with_the_fix(site: Site) -> None:
    site.install(
        "broken-decl",
        {"accord.games": {"broken": "broken_mod:INFO"}},
        {"broken_mod": "INFO = {'game': 'not a class'}\n"},
    )
    assert "broken" not in game_ids()
    (problem,) = plugins.problems(plugins.GAMES)
    assert problem.package == "broken-decl" and "GameInfo" in problem.fix


def test_a_plugin_declaration_reaches_every_consumer(site: Site, tmp_path: Path) -> None:
    """Leaderboard, value of talk, query messages, reference agents and the terminal seat all
    read the plugin's one declaration; none of them names the game."""
    from accord.agents.human import human_adapter
    from accord.agents.reference import reference_names
    from accord.analysis.query import run_query
    from accord.analysis.value import value_of_communication
    from accord.ratings import board_for
    from accord.runner.run import run_sync
    from accord.runner.specs import AgentSpec, GameSpec
    from accord.traces.io import iter_traces

    site.install("twin-game", {"accord.games": {"twin": "twin_mod:INFO"}}, {"twin_mod": DECLARED})
    assert resolve("twin") == "twin-v1" and plugins.problems() == []
    assert reference_names("twin-v1") == ["greedy"]
    adapter = human_adapter("twin-v1")
    assert adapter is not None and adapter[1](None) == "say anything"  # type: ignore[arg-type]

    def spec(i: int, talk: bool) -> GameSpec:
        return GameSpec(
            trace_id=f"g{i}-{talk}",
            game="twin-v1",
            options={"rounds": 1, "cheap_talk": talk},
            seed=i,
            agents=[AgentSpec(agent="greedy")] * 2,
        )

    run_sync([spec(i, True) for i in range(3)], tmp_path / "run", concurrency=1)
    traces = list(iter_traces(tmp_path / "run" / "traces"))
    board = board_for("twin", traces)
    assert board is not None and board.game == "twin" and board.dimensions[0].key == "eff"
    rows = value_of_communication(traces)
    # No baseline declared (is_baseline is never true): every talk game is unmatched.
    assert [(r["game"], r["outcome"], r["unmatched"]) for r in rows] == [("twin", "eff", 3)]
    said = sum(e.get("type") == "message" for t in traces for e in t.events)
    _, _, got = run_query(
        [tmp_path / "run"], "select channel, count(*) from messages group by 1", cache=False
    )
    assert said > 0 and got == [("twin", said)]  # the declared extractor's channel
