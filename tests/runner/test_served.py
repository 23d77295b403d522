"""What the provider said it served: recorded per call, summarised per seat, a change flagged."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from accord.cli.main import app
from accord.testing.batch_server import batch_server
from accord.traces.schema import Trace

ARGS = ["run", "negotiation", "--model", "openai-compatible/fake", "--games", "2"]


def run(tmp_path: Path, swap_after: int) -> tuple[dict, str, list[dict]]:
    out = tmp_path / "run"
    with batch_server(swap_after=swap_after) as server:
        args = [*ARGS, "--model-base-url", server.url, "--out", str(out)]
        result = CliRunner(env={"COLUMNS": "200"}).invoke(app, args)
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    calls = [
        e
        for p in sorted((out / "traces").glob("*.json"))
        for e in json.loads(p.read_text())["events"]
        if e["type"] == "model_call"
    ]
    return summary, result.output, calls


def test_served_model_and_fingerprint_are_recorded_and_summarised(tmp_path: Path) -> None:
    summary, output, calls = run(tmp_path, swap_after=0)
    assert calls and all(e["served_model"] == "fake" for e in calls)
    assert all(e["fingerprint"] == "fp_fake" for e in calls)
    served = summary["served"]["openai-compatible/fake"]
    assert served == {
        "models": {"fake": len(calls)},
        "fingerprints": {"fp_fake": len(calls)},
        "versions": {"x-model-version: fake-1": len(calls)},
        "changed": False,
    }
    assert "served more than one model" not in output
    # Version headers per call; a request id is not a version and is never kept.
    assert all(e["versions"] == {"x-model-version": "fake-1"} for e in calls)


def test_a_model_swapped_mid_run_is_flagged(tmp_path: Path) -> None:
    summary, output, _ = run(tmp_path, swap_after=5)
    served = summary["served"]["openai-compatible/fake"]
    assert served["changed"] is True
    assert set(served["models"]) == {"fake", "fake-swapped"}
    assert served["fingerprints"]["fp_fake"] == 5
    assert "served more than one model" in output and "fake-swapped" in output
    assert served["versions"] == {
        "x-model-version: fake-1": 5,
        "x-model-version: fake-2": sum(served["models"].values()) - 5,
    }


def test_accord_report_names_a_change_of_what_was_served(tmp_path: Path) -> None:
    run(tmp_path, swap_after=5)
    result = CliRunner(env={"COLUMNS": "200"}).invoke(app, ["report", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    assert "changed what it served" in result.output
    table = (tmp_path / "run" / "report" / "served.md").read_text()
    assert "fake-swapped" in table and "model, fingerprint, version x-model-version" in table


def test_old_traces_without_served_fields_stay_readable(tmp_path: Path) -> None:
    from accord.runner.served import served_counts

    run(tmp_path, swap_after=0)
    data = json.loads(next((tmp_path / "run" / "traces").glob("*.json")).read_text())
    for event in data["events"]:
        event.pop("served_model", None)
        event.pop("fingerprint", None)
        event.pop("versions", None)
    trace = Trace.model_validate(data)  # a trace written before the fields existed
    assert any(e["type"] == "model_call" for e in trace.events)
    assert served_counts(trace) == ()
