"""The drift sentinel against a fake model server whose model is a seeded policy: an unchanged
model raises no alarm, a swapped one is found from its metrics (with or without a new
fingerprint), and bad input is one line with exit code 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import accord
from accord.analysis.drift import drift_report
from accord.cli.main import app
from accord.testing.policy_server import PolicyServer, policy_server

MODEL = "openai-compatible/policy"
GAME = "calendar"
OPTIONS = {"num_agents": 2, "num_meetings": 1, "num_slots": 4, "max_turns_per_round": 4}
SWAP = 5.0
"""The swapped model's lean (the baseline's is 1: uniform choices)."""


def baseline(server: PolicyServer, out: Path, games: int = 10) -> Path:
    seat = {"model": MODEL, "options": {"base_url": server.url}}
    report = accord.run(
        GAME, agents=[seat, seat], games=games, seed=11, options=OPTIONS, out=out,
        live=False,
    )  # fmt: skip
    assert report.failed == []
    return out


@pytest.fixture
def server() -> Any:
    # No noise: a reply is a function of the request and the policy, so the test is exact.
    with policy_server(noise=False) as state:
        yield state


def test_an_unchanged_model_is_no_drift(server: PolicyServer, tmp_path: Path) -> None:
    base = baseline(server, tmp_path / "base")
    calls = server.calls
    result = accord.drift(base, out=tmp_path / "canary")
    assert server.calls == 2 * calls  # the canary asked the same server again, call for call
    assert result.drifted is False and result.exit_code == 0
    assert result.games_canary == result.games_baseline == 10
    assert result.served == [] and result.served_unknown == []
    assert not any(m.drifted for m in result.metrics)
    saved = json.loads((tmp_path / "canary" / "drift.json").read_text())
    assert saved["version"] == 1 and saved["drifted"] is False


def test_a_silent_swap_is_found_from_the_metrics_alone(
    server: PolicyServer, tmp_path: Path
) -> None:
    base = baseline(server, tmp_path / "base")
    server.swap(SWAP)  # same name, same fingerprint, same version headers
    result = accord.drift(base, out=tmp_path / "canary")
    assert result.served == []
    drifted = result.drifted_metrics()
    assert drifted and result.drifted and result.exit_code == 1
    for m in drifted:
        assert m.mode == "paired" and m.pairs == 10 and m.p_holm <= 0.05
        assert m.mdd is not None and "paired differences" in m.mdd_from


def test_a_swap_that_names_a_new_fingerprint_and_version_is_reported(
    server: PolicyServer, tmp_path: Path
) -> None:
    base = baseline(server, tmp_path / "base", games=4)
    server.swap(1.0, fingerprint="fp_new", version="2026-06-01")  # same policy, new labels
    result = accord.drift(base, out=tmp_path / "canary")
    kinds = {c.kind: c for c in result.served}
    assert set(kinds) == {"fingerprint", "version x-model-version"}
    assert kinds["fingerprint"].baseline == ["fp_policy"]
    assert kinds["fingerprint"].canary == ["fp_new"]
    assert result.drifted and not result.drifted_metrics()
    # Request ids are not versions: never recorded.
    event = next(
        e
        for p in (tmp_path / "canary" / "traces").glob("*.json")
        for e in json.loads(p.read_text())["events"]
        if e["type"] == "model_call"
    )
    assert event["versions"] == {"openai-version": "2020-10-01", "x-model-version": "2026-06-01"}


def test_the_noise_floor_of_a_repeated_baseline_sets_the_mdd(tmp_path: Path) -> None:
    with policy_server(noise=True, seed=1) as server:
        seat = {"model": MODEL, "options": {"base_url": server.url}}
        experiment = {
            "version": 1,
            "name": "floor",
            "defaults": {"game": GAME, "games": 6, "seed": 2, "repeats": 2},
            "batches": [{"name": "self", "options": OPTIONS, "agents": [seat, seat]}],
        }
        path = tmp_path / "floor.yaml"
        path.write_text(json.dumps(experiment))
        accord.run(path, out=tmp_path / "base", live=False)
        server.reseed(2)
        accord.drift(tmp_path / "base", out=tmp_path / "canary")
    result = drift_report(tmp_path / "base", tmp_path / "canary")
    assert result.games_baseline == result.games_canary == 12
    assert result.metrics
    for m in result.metrics:
        assert m.pairs == 6
        assert "noise floor" in m.mdd_from or "paired differences" in m.mdd_from
    assert any("noise floor (6 scenarios played 2 times)" in m.mdd_from for m in result.metrics)


def test_drift_on_the_command_line(server: PolicyServer, tmp_path: Path) -> None:
    base = baseline(server, tmp_path / "base", games=8)
    cli = CliRunner(env={"COLUMNS": "200"})
    same = cli.invoke(app, ["drift", str(base), "--out", str(tmp_path / "c1"), "--games", "6"])
    assert same.exit_code == 0, same.output
    assert "No drift detected" in same.output and "6 canary games" in same.output
    server.swap(SWAP, fingerprint="fp_swapped")
    swapped = cli.invoke(app, ["drift", str(base), "--out", str(tmp_path / "c2")])
    assert swapped.exit_code == 1, swapped.output
    assert "Drift detected" in swapped.output and "fp_swapped" in swapped.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["drift", "{tmp}/missing"], "not a run directory"),
        (["drift", "{tmp}/empty"], "experiment.json"),
        (["drift", "{tmp}/base", "--out", "{tmp}/base"], "baseline itself"),
        (["drift", "{tmp}/base", "--out", "{tmp}/full"], "already holds files"),
        (["drift", "{tmp}/base", "--alpha", "2"], "alpha"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(
    server: PolicyServer, tmp_path: Path, args: list[str], message: str
) -> None:
    baseline(server, tmp_path / "base", games=2)
    (tmp_path / "empty").mkdir()
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x.txt").write_text("x")
    before = sorted(p.name for p in tmp_path.iterdir())
    result = CliRunner().invoke(app, [a.format(tmp=tmp_path) for a in args])
    assert result.exit_code == 2, result.output
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == before
