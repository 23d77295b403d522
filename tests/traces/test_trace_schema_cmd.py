"""`accord trace-schema`: the JSON schema of a trace, checked against every golden trace."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.core.errors import AccordError
from accord.traces.io import read_trace

runner = CliRunner(env={"COLUMNS": "200"})
ROOT = Path(__file__).parents[1]
GOLDEN = sorted((ROOT / "golden").glob("*.json"))
OLD = sorted((ROOT / "traces" / "data").glob("*.json"))


def _schema(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["trace-schema", *args])
    assert result.exit_code == 0, result.output
    schema: dict[str, Any] = json.loads(result.output)
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


@pytest.fixture(scope="module")
def generic() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(_schema())


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_every_golden_trace_is_valid_against_the_schema(
    path: Path, generic: jsonschema.Draft202012Validator
) -> None:
    data = json.loads(path.read_text())
    generic.validate(data)
    game = data["game"]
    jsonschema.Draft202012Validator(_schema("--game", game)).validate(data)


@pytest.mark.parametrize("path", OLD, ids=[p.stem for p in OLD])
def test_upgraded_old_traces_with_model_events_are_valid(
    path: Path, generic: jsonschema.Draft202012Validator
) -> None:
    data = read_trace(path).model_dump(mode="json")
    assert any(e["type"] == "model_call" for e in data["events"])
    generic.validate(data)


def test_the_schema_refuses_a_broken_trace(generic: jsonschema.Draft202012Validator) -> None:
    data = read_trace(OLD[-1]).model_dump(mode="json")
    call = next(e for e in data["events"] if e["type"] == "model_call")
    call["input_tokens"] = "many"
    assert not generic.is_valid(data)
    call["input_tokens"] = 3
    data["status"] = "half-done"
    assert not generic.is_valid(data)


def test_a_game_schema_checks_that_games_events(tmp_path: Path) -> None:
    data = json.loads((ROOT / "golden" / "negotiation-coop-0.5.json").read_text())
    decision = next(e for e in data["events"] if e["type"] == "decision")
    decision["fallback"] = "sometimes"
    out = tmp_path / "negotiation.schema.json"
    result = runner.invoke(app, ["trace-schema", "--game", "negotiation", "--out", str(out)])
    assert result.exit_code == 0 and str(out) in result.output
    strict = jsonschema.Draft202012Validator(json.loads(out.read_text()))
    assert not strict.is_valid(data)
    # The generic schema lets a game's own fields be anything.
    jsonschema.Draft202012Validator(_schema()).validate(data)


def test_an_unknown_game_is_one_line_and_exit_2() -> None:
    result = runner.invoke(app, ["trace-schema", "--game", "chess"])
    assert result.exit_code == 2
    assert "Unknown game 'chess'" in result.output


def _refused_by_both(data: dict[str, Any], generic: Any, tmp_path: Path, why: str) -> None:
    """The schema and the one reader agree: `data` is not a trace."""
    assert not generic.is_valid(data), why
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data))
    with pytest.raises(AccordError):
        read_trace(path)


def test_the_schema_pins_what_the_reader_requires(
    generic: jsonschema.Draft202012Validator, tmp_path: Path
) -> None:
    data = read_trace(OLD[-1]).model_dump(mode="json")
    generic.validate(data)
    _refused_by_both({**data, "schema_version": 99}, generic, tmp_path, "an unknown version")
    _refused_by_both({**data, "surplus": 1}, generic, tmp_path, "a field no trace has")
    seatless = json.loads(json.dumps(data))
    call = next(e for e in seatless["events"] if e["type"] == "model_call")
    del call["seat"]
    _refused_by_both(seatless, generic, tmp_path, "a model call without its seat")


def test_in_band_provenance_is_refused_in_a_version_3_trace_only(
    generic: jsonschema.Draft202012Validator, tmp_path: Path
) -> None:
    old = next(p for p in OLD if p.name.startswith("v2-"))
    raw = json.loads(old.read_text())
    fallback = next(e for e in raw["events"] if e["type"] == "heuristic_fallback")
    fallback["action"] = {**fallback.get("action", {}), "_fallback": True}
    path = tmp_path / "v2.json"
    path.write_text(json.dumps(raw))
    upgraded = read_trace(path).model_dump(mode="json")  # version 2: dropped as it is read
    fell = next(e for e in upgraded["events"] if e["type"] == "heuristic_fallback")
    assert "_fallback" not in fell["action"]
    generic.validate(upgraded)
    fell["action"]["_fallback"] = True  # the same key, claimed to be version 3
    _refused_by_both(upgraded, generic, tmp_path, "in-band provenance in version 3")
