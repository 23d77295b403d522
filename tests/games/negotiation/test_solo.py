"""The §3.1 oracle filter: one model alone, full information, one attempt (pass@1)."""

from __future__ import annotations

import asyncio
import json

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.games.negotiation.oracle import solve
from accord.games.negotiation.pool import get_scenario
from accord.games.negotiation.scenario import Market
from accord.games.negotiation.solo import NAMES, filter_scenario, score, solo_prompt
from accord.models.mock import MockModel

SC = get_scenario("0.5/gen_012")
MARKET = Market()


def optimum_answer() -> str:
    best = solve(MARKET, SC).joint_optima[0].as_dict()
    return json.dumps(
        {
            seat: {NAMES[r]: q for r, q in best["purchases"][i].items()}
            for i, seat in enumerate(("A", "B"))
        }
    )


def test_prompt_holds_both_portfolios() -> None:
    text = solo_prompt(SC, MARKET)
    assert "Projects of A:" in text and "Projects of B:" in text and "pays 9 per run" in text


@pytest.mark.parametrize(
    ("answer", "passed", "needle"),
    [
        (optimum_answer(), True, ""),
        ('{"A": {"stone": 10}, "B": {"stone": 10}}', False, "exceed the supply"),
        ('{"A": {"wood": 1}, "B": {"wood": 1}}', False, "below the optimum 29"),
        ("no idea", False, "not a valid JSON object"),
        ('{"A": {"gold": 7}, "B": {}}', False, "exceeds your budget"),
    ],
)
def test_pass_at_1(answer: str, passed: bool, needle: str) -> None:
    model = MockModel(replies=[answer])
    checked = asyncio.run(filter_scenario([model], SC, MARKET))
    (check,) = checked.oracle_checks
    assert check.passed is passed and needle in check.detail
    assert len(model.calls) == 1  # one attempt, no retry


def test_score_of_the_optimum_is_m() -> None:
    assert score(optimum_answer(), SC, MARKET) == (29, "")


def test_cli_filter_records_the_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    import accord.models
    from accord.games.negotiation import solo

    def any_model(_spec: str, **_options: object) -> MockModel:
        return MockModel(replies=["{}"] * 3)

    monkeypatch.setattr(accord.models, "get_model", any_model)
    monkeypatch.setattr(
        solo, "score", lambda text, scenario, market: (solve(market, scenario).m, "")
    )
    args = ["scenario", "negotiation", "--generate", "--ratio", "0.8", "--seed", "3"]
    result = CliRunner().invoke(app, [*args, "--filter-model", "mock/a", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["oracle_checks"] == [
        {
            "model": "mock/scripted",
            "passed": True,
            "joint_reward": data["oracle"]["M"],
            "detail": "",
        }
    ]
    monkeypatch.setattr(solo, "score", lambda text, scenario, market: (0, "bad answer"))
    result = CliRunner().invoke(app, [*args, "--filter-model", "mock/a", "--filter-tries", "2"])
    assert (
        result.exit_code == 2 and "no generated scenario passed the oracle filter" in result.output
    )
    result = CliRunner().invoke(app, ["scenario", "negotiation", "--filter-model", "mock/a"])
    assert result.exit_code == 2 and "add --generate" in result.output
