"""The negotiation judge: transcript, verdict validation with retries, prevalence, kappa."""

from __future__ import annotations

import asyncio
import csv
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.core.errors import ActionError
from accord.games.negotiation.judge import (
    agreement,
    cohen_kappa,
    judge_game,
    judge_trace,
    parse_verdict,
    prevalence,
    system_prompt,
)
from accord.games.negotiation.judge.taxonomy import AUX_KEYS, CORE_KEYS
from accord.games.negotiation.judge.verdicts import transcript, verdict_rows
from accord.models.mock import MockModel
from accord.runner.play import play_game
from accord.runner.run import run_sync
from accord.runner.specs import AgentSpec, GameSpec


def coop_trace(rounds: int = 2) -> Any:
    spec = GameSpec(
        trace_id="j1",
        game="negotiation",
        options={"rounds": rounds, "scenario": "0.5/gen_012", "theme": "medieval"},
        seed=0,
        agents=[AgentSpec(agent="cooperative"), AgentSpec(agent="greedy")],
    )
    return asyncio.run(play_game(spec))


def verdict(
    rounds: int, *, disclose: tuple[str, ...] = ("agent_a",), withdraw: bool = False
) -> str:
    rows = []
    for n in range(1, rounds + 1):
        core = dict.fromkeys(CORE_KEYS, False)
        core["coordination_withdrawal"] = withdraw
        aux = {k: {"present": False, "agents": []} for k in AUX_KEYS}
        aux["voluntary_project_disclosure"] = {"present": bool(disclose), "agents": list(disclose)}
        rows.append({"round_number": n, "core_labels": core, "auxiliary_tags": aux})
    return json.dumps({"rounds": rows})


def test_transcript_shows_talk_thinking_moves_and_outcome() -> None:
    text = transcript(coop_trace())
    assert "=== Round 2 ===" in text
    assert "[agent_a says] [coop]" in text and "stone" in text
    assert "[agent_b final purchase]" in text and "efficiency" in text


@pytest.mark.parametrize(
    ("mutate", "needle"),
    [
        (lambda v: v["rounds"].pop(), "exactly one entry for each round"),
        (lambda v: v["rounds"][0]["core_labels"].pop("domain_specialization"), "core_labels"),
        (
            lambda v: v["rounds"][0]["auxiliary_tags"]["fairness_appeal"].update(present=True),
            "present exactly when",
        ),
        (
            lambda v: v["rounds"][0]["auxiliary_tags"]["fairness_appeal"].update(
                present=True, agents=["agent_c"]
            ),
            "agents must be among",
        ),
    ],
)
def test_bad_verdicts_are_explained(mutate: Any, needle: str) -> None:
    v = json.loads(verdict(2))
    mutate(v)
    with pytest.raises(ActionError, match=None) as exc:
        parse_verdict(json.dumps(v), 2)
    assert needle in str(exc.value)


def test_judge_retries_then_labels_every_round() -> None:
    trace = coop_trace()
    model = MockModel(replies=['{"rounds": []}', verdict(2, withdraw=True)])
    labels = asyncio.run(judge_trace(model, trace))
    assert [lab.round for lab in labels] == [1, 2]
    assert labels[0].core["coordination_withdrawal"] is True
    assert "exactly one entry" in model.calls[1][-1]["content"]  # the error went back
    rows = verdict_rows(trace, labels)
    assert rows[0]["voluntary_project_disclosure:agent_a"] is True
    assert rows[0]["voluntary_project_disclosure:agent_b"] is False


def test_judge_that_never_answers_gives_no_labels() -> None:
    model = MockModel(replies=["nope"] * 4)
    assert asyncio.run(judge_trace(model, coop_trace())) == []


def test_prevalence_by_outcome() -> None:
    rows = [
        {"outcome": "optimal", "fairness_appeal": True},
        {"outcome": "optimal", "fairness_appeal": False},
        {"outcome": "overdrawn", "fairness_appeal": True},
        {"outcome": "suboptimal", "fairness_appeal": False},
    ]
    fair = next(r for r in prevalence(rows) if r["label"] == "fairness_appeal")
    assert fair["rounds"] == 2 and fair["all_pct"] == 50.0
    assert fair["optimal_pct"] == 50.0 and fair["overdrawn_pct"] == 100.0
    assert fair["suboptimal_pct"] == 0.0


def test_cohen_kappa_by_hand() -> None:
    # 10 items: agree on 4 positives and 4 negatives, disagree on 2 -> po = 0.8;
    # p(a)=0.5, p(b)=0.5 -> pe = 0.5 -> kappa = 0.6.
    a = [True] * 5 + [False] * 5
    b = [True] * 4 + [False] + [True] + [False] * 4
    assert cohen_kappa(a, b) == pytest.approx(0.6)
    assert cohen_kappa([False] * 3, [False] * 3) is None
    table = agreement(
        [{"trace_id": "t", "round": i, "x": v} for i, v in enumerate(b)],
        [{"trace_id": "t", "round": i, "x": v} for i, v in enumerate(a)],
    )
    assert table[0]["kappa"] == pytest.approx(0.6) and table[0]["human_pct"] == 50.0


def test_judge_command_writes_labels_prevalence_and_agreement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = tmp_path / "run"
    spec = GameSpec(
        trace_id="g0",
        game="negotiation",
        options={"rounds": 2},
        seed=1,
        agents=[AgentSpec(agent="cooperative")] * 2,
    )
    run_sync([spec], run_dir)
    import accord.models

    monkeypatch.setattr(accord.models, "get_model", lambda _spec: MockModel(replies=[verdict(2)]))
    human = tmp_path / "human.jsonl"
    human.write_text(
        "\n".join(
            json.dumps({"trace_id": "g0", "round": r, "voluntary_project_disclosure": True})
            for r in (1, 2)
        )
    )
    result = CliRunner().invoke(
        app, ["judge", str(run_dir), "--model", "mock/x", "--human", str(human)]
    )
    assert result.exit_code == 0, result.output
    assert "Judged 1/1 games (2 rounds)" in result.output
    labels = (run_dir / "judge" / "labels.jsonl").read_text().splitlines()
    assert len(labels) == 2
    agree = (run_dir / "judge" / "agreement.csv").read_text()
    assert "voluntary_project_disclosure" in agree


def test_rubric_carries_definitions_rules_and_examples() -> None:
    from accord.games.negotiation.judge.taxonomy import AUXILIARY, CORE

    prompt = system_prompt()
    for label in (*CORE, *AUXILIARY):
        assert label.examples and label.definition in prompt
        for text in (*label.include, *label.exclude, *label.examples):
            assert text in prompt


def test_unjudged_games_say_why() -> None:
    trace = coop_trace()
    bad = asyncio.run(judge_game(MockModel(replies=['{"rounds": []}'] * 4), trace))
    assert bad.labels == [] and bad.reason is not None
    assert "no valid verdict" in bad.reason and "exactly one entry" in bad.reason
    empty = trace.model_copy(update={"final_state": {**trace.final_state, "rounds": []}})
    assert asyncio.run(judge_game(MockModel(replies=[verdict(2)]), empty)).reason == (
        "the trace has no resolved rounds"
    )


def test_specialist_labels_replace_their_keys_and_kappa_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = tmp_path / "run"
    specs = [
        GameSpec(trace_id=f"g{i}", game="negotiation", options={"rounds": 2}, seed=i,
                 agents=[AgentSpec(agent="cooperative")] * 2)
        for i in range(2)
    ]  # fmt: skip
    run_sync(specs, run_dir)
    import accord.models

    judges = {
        "mock/general": MockModel(replies=[verdict(2, withdraw=False)] * 2),
        "mock/special": MockModel(replies=[verdict(2, withdraw=True, disclose=())] * 2),
    }
    monkeypatch.setattr(accord.models, "get_model", lambda spec: judges[spec])
    args = ["judge", str(run_dir), "--model", "mock/general", "--specialist-model", "mock/special"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    merged = [json.loads(x) for x in (run_dir / "judge" / "labels.jsonl").read_text().splitlines()]
    assert len(merged) == 4 and all(r["specialist"] for r in merged)
    assert all(
        r["coordination_withdrawal"] and not r["voluntary_project_disclosure"] for r in merged
    )
    assert all(r["voluntary_project_disclosure:agent_b"] is False for r in merged)
    text = (run_dir / "judge" / "inter_judge.csv").read_text().splitlines()
    kappa = {r["label"]: r for r in csv.DictReader(text)}
    # The judges disagree on every round for these two labels and agree elsewhere.
    assert kappa["coordination_withdrawal"]["general_pct"] == "0.0"
    assert kappa["coordination_withdrawal"]["specialist_pct"] == "100.0"
    assert kappa["fairness_appeal"]["kappa"] == ""  # both all-negative: undefined


def test_judge_command_lists_unjudged_games_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = tmp_path / "run"
    spec = GameSpec(trace_id="g0", game="negotiation", options={"rounds": 2}, seed=1,
                    agents=[AgentSpec(agent="cooperative")] * 2)  # fmt: skip
    run_sync([spec], run_dir)
    import accord.models

    monkeypatch.setattr(accord.models, "get_model", lambda _s: MockModel(replies=["nope"] * 4))
    result = CliRunner().invoke(app, ["judge", str(run_dir), "--model", "mock/x"])
    assert result.exit_code == 1, result.output  # nothing could be judged
    assert "Judged 0/1 games" in result.output and "not judged g0" in result.output
    assert "judged 0 of 1 negotiation games" in result.output
    assert "no valid verdict" in result.output
    row = json.loads((run_dir / "judge" / "unjudged.jsonl").read_text())
    assert row["trace_id"] == "g0" and "no valid verdict" in row["reason"]


def test_rubric_restates_all_71_rules_of_app_g4() -> None:
    from accord.games.negotiation.judge.taxonomy import AUXILIARY, CORE, RULE_COUNTS

    labels = (*CORE, *AUXILIARY)
    assert [lbl.key for lbl in labels] == list(RULE_COUNTS)
    for label in labels:
        assert (len(label.include), len(label.exclude)) == RULE_COUNTS[label.key], label.key
    assert sum(len(lbl.include) + len(lbl.exclude) for lbl in labels) == 71


@pytest.mark.parametrize("rounds", [1, 2, 4])
def test_every_verdict_the_schema_allows_parses(rounds: int) -> None:
    import random

    from accord.games.negotiation.judge.verdicts import verdict_schema
    from accord.models.grammar import schema_to_grammar
    from accord.models.mock import sample_valid

    schema = verdict_schema(rounds)
    for i in range(200):
        labels = parse_verdict(json.dumps(sample_valid(schema, random.Random(i))), rounds)
        assert [lab.round for lab in labels] == list(range(1, rounds + 1))
    gbnf = schema_to_grammar(schema).gbnf  # grammar-constrained decoding can use it
    for n in range(1, rounds + 1):  # each entry's round number is fixed in the grammar
        assert f'round_number\\":" "{n}" ' in gbnf


def test_schema_sampling_judge_labels_every_game() -> None:
    from accord.models import get_model

    trace = coop_trace(3)
    judged = asyncio.run(judge_game(get_model("mock/schema"), trace))
    assert judged.reason is None and [lab.round for lab in judged.labels] == [1, 2, 3]


def test_transcript_never_shows_undelivered_speech_as_said() -> None:
    spec = GameSpec(
        trace_id="u1",
        game="negotiation",
        options={"rounds": 1, "scenario": "0.5/gen_012", "theme": "medieval", "talk_turns": 1},
        seed=0,
        agents=[AgentSpec(agent="cooperative"), AgentSpec(agent="cooperative")],
    )
    trace = asyncio.run(play_game(spec))
    messages = trace.final_state["rounds"][0]["messages"]
    hidden = [m for m in messages if not m["delivered"] and m["speech"]]
    assert hidden, "the scenario should produce speech sent with a decision nobody read"
    text = transcript(trace)
    for m in hidden:
        who = ("agent_a", "agent_b")[m["seat"]]
        assert f"[{who} says] {m['speech'][:40]}" not in text
        assert f"[{who} wrote, never delivered" in text
    # A v2 trace has no flag: speech with a decision that was not early was never delivered.
    old = {**messages[-1]}
    old.pop("delivered")
    rec = {**trace.final_state["rounds"][0], "messages": [{**old, "decided": True}]}
    rec["early_decision"] = [False, False]
    v2 = trace.model_copy(update={"final_state": {**trace.final_state, "rounds": [rec]}})
    assert "says]" not in transcript(v2)


def test_specialist_judge_with_more_games_than_concurrency(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = tmp_path / "run"
    specs = [
        GameSpec(trace_id=f"g{i}", game="negotiation", options={"rounds": 1}, seed=i,
                 agents=[AgentSpec(agent="cooperative")] * 2)
        for i in range(4)
    ]  # fmt: skip
    run_sync(specs, run_dir)
    import accord.models

    class Slow(MockModel):
        async def complete(self, *args: Any, **kwargs: Any) -> Any:
            await asyncio.sleep(0.001)  # a real await, so games queue at the semaphore
            return await super().complete(*args, **kwargs)

    judges = {k: Slow(replies=[verdict(1)] * 4) for k in ("mock/general", "mock/special")}
    monkeypatch.setattr(accord.models, "get_model", lambda spec: judges[spec])
    args = ["judge", str(run_dir), "--model", "mock/general", "--specialist-model",
            "mock/special", "--concurrency", "1"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "Judged 4/4 games" in result.output
