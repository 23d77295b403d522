"""Accord games as Inspect AI tasks, played offline with Inspect's mock model (mockllm).

The same scripted replies are played once through Inspect (each seat asking the Inspect model
bound to its role) and once through Accord's own runner (the Accord mock model): the metrics
must agree, every call must be a model event under the right role and model, and a game
whose model fails must be the sample's error (the eval fails when every game failed).
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai", reason="Inspect AI is not installed (the inspect extra)")

from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model

from accord.agents.llm import LLMAgent
from accord.core.errors import ConfigError
from accord.inspectai import accord_task
from accord.models.mock import MockModel
from accord.runner.play import play_game
from accord.runner.specs import AgentSpec, GameSpec

GAME = "negotiation-v3"

pytestmark = [
    # Inspect's retry helper passes tenacity an argument tenacity has deprecated, and its
    # in-memory streams are sometimes collected unclosed after an eval: not ours to fix.
    pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]


def scripted(system: str, last: str) -> str:
    """A negotiator that asks for one unit of the first resource the rules name."""
    if '"reflection"' in last:
        return json.dumps({"reflection": "Small asks never overdraw the supply."})
    found = re.search(r"Resources: ([a-z_]+)", system)
    assert found, "the negotiation rules name their resources"
    return json.dumps({"thinking": "", "speech": "One unit for me.", "action": {found[1]: 1}})


def mock_reply(
    messages: list[ChatMessage], tools: Any, tool_choice: Any, config: Any
) -> ModelOutput:
    del tools, tool_choice
    SCHEMAS.append(config.response_schema)
    out = ModelOutput.from_content("mockllm", scripted(messages[0].text, messages[-1].text))
    # Given usage keeps mockllm from counting tokens with a tokenizer it would download.
    out.usage = ModelUsage(input_tokens=11, output_tokens=7, total_tokens=18)
    return out


SCHEMAS: list[Any] = []
"""The structured-output schema of every mock call (None: sent without one)."""


def failing_reply(*args: Any) -> ModelOutput:
    raise RuntimeError("the mock provider is down")


def run(task: Any, tmp_path: Path, **roles: Any) -> Any:
    logs = inspect_eval(
        task,
        model=get_model("mockllm/model", custom_outputs=mock_reply),
        model_roles=roles or None,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert len(logs) == 1
    return logs[0]


async def accord_metrics(seed: int) -> dict[str, Any]:
    """The same game through Accord's runner, the same script answering both seats."""

    def reply(messages: list[Any]) -> str:
        return scripted(messages[0]["content"], messages[-1]["content"])

    seats = [LLMAgent(MockModel(replies=[reply] * 500), seed=seed) for _ in range(2)]
    spec = GameSpec(
        trace_id=f"accord-{seed}",
        game=GAME,
        seed=seed,
        agents=[AgentSpec(model="mock/scripted")] * 2,
    )
    trace = await play_game(spec, seats)
    assert trace.status == "complete"
    return trace.metrics


def test_seats_ask_their_roles_and_metrics_match_accord(tmp_path: Path) -> None:
    SCHEMAS.clear()
    other = get_model("mockllm/other", custom_outputs=mock_reply)
    log = run(accord_task(GAME, games=2, seed=5), tmp_path, B=other)
    assert log.status == "success"
    assert [s.id for s in log.samples] == [f"{GAME}-s5", f"{GAME}-s6"]
    for sample in log.samples:
        trace = sample.store["accord_trace"]
        assert trace["status"] == "complete", trace["error"]
        calls = [e for e in sample.events if e.event == "model"]
        # One Inspect model event per Accord model call, under the seat's role and model.
        assert {(e.role, e.model) for e in calls} == {
            ("A", "mockllm/model"),
            ("B", "mockllm/other"),
        }
        for role in ("A", "B"):
            assert sum(e.role == role for e in calls) == trace["usage"][role]["calls"] > 0
            assert trace["usage"][role]["input_tokens"] == 11 * trace["usage"][role]["calls"]
        assert [s["model"] for s in trace["seats"]] == [
            "inspect/mockllm/model",
            "inspect/mockllm/other",
        ]
        # The transcripts are the sample's messages, each tagged with its seat.
        seats = {m.metadata["seat"] for m in sample.messages if m.metadata}
        assert seats == {"A", "B"}
        assert sum(m.role == "system" for m in sample.messages) >= 2
        # Accord's metrics are the score; they match the game played by Accord's runner.
        value = sample.scores["accord_metrics"].value
        expected = asyncio.run(accord_metrics(int(sample.metadata["seed"])))
        assert set(value) == {"overdraw_rate", "efficiency", "optimum_rate", "early_decision_rate"}
        for key, got in value.items():
            want = expected[key]
            assert (math.isnan(got) and want is None) or got == pytest.approx(want)
        assert value["overdraw_rate"] == 0.0  # one unit each never exceeds the supply
    # The action's JSON schema reaches Inspect as structured output.
    assert SCHEMAS and all(s is not None for s in SCHEMAS)
    assert any("speech" in (s.json_schema.properties or {}) for s in SCHEMAS)
    means = {s.name: s.metrics["mean"].value for s in log.results.scores}
    first = [s.scores["accord_metrics"].value["efficiency"] for s in log.samples]
    assert means["efficiency"] == pytest.approx(sum(first) / len(first))


def test_reference_seat_makes_no_model_calls(tmp_path: Path) -> None:
    log = run(accord_task(GAME, games=1, agents="model,cooperative"), tmp_path)
    sample = log.samples[0]
    roles = {e.role for e in sample.events if e.event == "model"}
    assert roles == {"A"}
    trace = sample.store["accord_trace"]
    assert trace["seats"][1]["agent"] == "cooperative" and trace["seats"][1]["model"] is None


def test_a_game_whose_model_fails_is_a_sample_error_and_every_game_failed_fails_the_eval(
    tmp_path: Path,
) -> None:
    broken = get_model("mockllm/broken", custom_outputs=failing_reply)
    log = run(accord_task(GAME, games=1), tmp_path, A=broken)
    assert log.status == "error"  # every game failed: never "success" with NaN metrics
    sample = log.samples[0]
    assert sample.store["accord_trace"]["status"] == "failed"
    assert sample.error is not None
    assert "could not reach its model" in sample.error.message
    assert "the mock provider is down" in sample.error.message
    assert not sample.scores


def test_one_failed_game_of_two_is_listed_and_kept_out_of_the_means(tmp_path: Path) -> None:
    poisoned: list[str] = []

    def one_game_down(messages: list[ChatMessage], *rest: Any) -> ModelOutput:
        system = messages[0].text
        if not poisoned:
            poisoned.append(system)
        if system == poisoned[0]:
            raise RuntimeError("the mock provider is down")
        return mock_reply(messages, *rest)

    log = run(
        accord_task(GAME, games=2, options={"rounds": 1}),
        tmp_path,
        A=get_model("mockllm/flaky", custom_outputs=one_game_down),
    )
    assert log.status == "success"
    errors = [s for s in log.samples if s.error is not None]
    assert len(errors) == 1 and "the mock provider is down" in errors[0].error.message
    assert all(s.scored_samples == 1 for s in log.results.scores)


def test_accords_own_models_answer_inspect_offline(tmp_path: Path) -> None:
    """``--model accord/mock/schema``: no tokenizer download, schema-valid replies."""
    logs = inspect_eval(
        accord_task(GAME, games=1, options={"rounds": 1}),
        model="accord/mock/schema",
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    (log,) = logs
    assert log.status == "success", log.error
    sample = log.samples[0]
    assert sample.store["accord_trace"]["status"] == "complete"
    calls = [e for e in sample.events if e.event == "model"]
    assert calls and all(e.model == "accord/mock/schema" for e in calls)
    assert all(e.output.usage is not None and e.output.usage.input_tokens > 0 for e in calls)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"game": "nope-v1"}, "Unknown game"),
        ({"agents": "model"}, "has 2 seats but agents names 1"),
        ({"agents": "model,openai/gpt-x"}, "is 'model'"),
        ({"agents": "model,nobody"}, "Reference agents: cooperative"),
        ({"options": "{rounds"}, "options must be a JSON object"),
        ({"options": '{"no_such_option": 1}'}, "no_such_option"),
        ({"games": 0}, "games must be at least 1"),
    ],
)
def test_bad_task_arguments_say_what_to_do(kwargs: dict[str, Any], message: str) -> None:
    args = {"game": GAME, **kwargs}
    with pytest.raises(ConfigError, match=re.escape(message)):
        accord_task(**args)


def test_task_is_registered_for_inspect_command_line() -> None:
    from importlib.metadata import entry_points

    from inspect_ai._util.registry import registry_info

    from accord.inspectai.registry import accord_game

    (point,) = [e for e in entry_points(group="inspect_ai") if e.name == "accord"]
    assert point.value == "accord.inspectai.registry"
    # "accord/accord_game" once installed; a bare source tree on the path has no namespace.
    assert registry_info(accord_game).name.endswith("accord_game")
    task = accord_game(game=GAME, games=3, options={"rounds": 2})
    assert len(task.dataset) == 3


def test_inspect_eval_command_plays_accord_games(tmp_path: Path) -> None:
    """`inspect eval accord/accord_game` as a user types it (reference seats: no model calls,
    so no network): share-all sorts every list (MAS-Bench SR = 1)."""
    import os
    import subprocess
    import sys

    from inspect_ai.log import read_eval_log

    inspect_cli = Path(sys.executable).with_name("inspect")
    if not inspect_cli.exists():
        pytest.skip("the inspect command is not installed beside this Python")
    # The installed package (not a source tree on PYTHONPATH) carries the entry point name.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [str(inspect_cli), "eval", "accord/accord_game", "-T", "game=sorting", "-T", "games=2",
         "-T", "agents=share-all,share-all,share-all", "--model", "mockllm/model",
         "--log-dir", str(tmp_path), "--display", "none"],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    (path,) = tmp_path.glob("*.eval")
    log = read_eval_log(str(path))
    assert log.eval.task == "accord_sorting_v3" and log.eval.dataset.samples == 2
    # The action's JSON schema reaches Inspect as structured output.
    assert SCHEMAS and all(s is not None for s in SCHEMAS)
    assert any("speech" in (s.json_schema.properties or {}) for s in SCHEMAS)
    means = {s.name: s.metrics["mean"].value for s in log.results.scores}
    assert means["sr"] == 1.0 and means["success"] == 1.0


def test_calendar_scores_only_its_cost_setting(tmp_path: Path) -> None:
    """CalBench's Table 2 metrics are reported per cost setting: a game scores under its own
    setting and leaves the other setting unscored (NaN), never zero. The oracle-follower team
    (the game's `oracle_agent`) schedules every meeting."""
    log = run(
        accord_task("calendar", games=2, agents="oracle-follower," * 2 + "oracle-follower"),
        tmp_path,
    )
    assert log.samples is not None and len(log.samples) == 2
    for sample in log.samples:
        value = sample.scores["accord_metrics"].value
        metrics = sample.store["accord_trace"]["metrics"]
        scored = {
            k.split("_", 1)[0]
            for k, v in value.items()
            if k.endswith("success_rate") and not math.isnan(v)
        }
        assert len(scored) == 1
        mine = scored.pop()
        assert value[f"{mine}_success_rate"] == metrics["success_rate"] == 1.0
        assert value[f"{mine}_excess_cost"] == pytest.approx(metrics["excess_cost"])
        other = "varied" if mine == "uniform" else "uniform"
        assert math.isnan(value[f"{other}_success_rate"])
    assert not [e for s in log.samples for e in s.events if e.event == "model"]


def test_a_key_a_model_echoes_is_scrubbed_from_the_stored_trace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-test-Hq27LmXv90PdQe4TsWz"
    monkeypatch.setenv("OPENAI_API_KEY", secret)

    def leaky(messages: list[ChatMessage], *rest: Any) -> ModelOutput:
        out = mock_reply(messages, *rest)
        reply = json.loads(out.completion)
        if "speech" in reply:
            reply["speech"] = f"my key is {secret}"
        out = ModelOutput.from_content("mockllm", json.dumps(reply))
        out.usage = ModelUsage(input_tokens=11, output_tokens=7, total_tokens=18)
        return out

    log = run(
        accord_task(GAME, games=1), tmp_path, A=get_model("mockllm/leaky", custom_outputs=leaky)
    )
    sample = log.samples[0]
    stored = json.dumps(sample.store["accord_trace"])
    shown = " ".join(m.text for m in sample.messages)
    assert secret not in stored and secret not in shown
    assert "[redacted:OPENAI_API_KEY]" in stored and "[redacted:OPENAI_API_KEY]" in shown
