"""The runs list of `accord serve` and of the static bundle marks a run `accord verify`
checked, and stops calling it verified once a trace changes."""

from __future__ import annotations

import base64
import gzip
import json
import re
import warnings
from pathlib import Path

import accord
from accord.web.app import create_app
from accord.web.bundle import bundle_key, write_bundle

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=r"Using `httpx` with `starlette.testclient`")
    from fastapi.testclient import TestClient


def _run(tmp_path: Path, name: str) -> Path:
    out = tmp_path / name
    accord.run(
        game="negotiation",
        agents="cooperative,greedy",
        games=2,
        options={"rounds": 2, "talk_turns": 1},
        out=out,
    )
    return out


def _marks(client: TestClient) -> dict[str, str]:
    runs = client.get("/api/runs").json()
    return {r["run"]: r["verified"]["state"] for r in runs}


def _bundled_runs(out: Path) -> list[dict[str, object]]:
    script = (out / "data" / f"{bundle_key('/api/runs')}.js").read_text(encoding="utf-8")
    packed = re.fullmatch(r'ACCORD_BUNDLE\.putGz\("(\w+)", "([^"]*)"\);\n', script)
    if packed:
        script = gzip.decompress(base64.b64decode(packed.group(2))).decode()
    plain = re.fullmatch(r'ACCORD_BUNDLE\.put\("\w+", (.*)\);\n', script, re.S)
    data = json.loads(plain.group(1) if plain else script)
    assert isinstance(data, list)
    return data


def test_serve_and_the_bundle_mark_verified_runs(tmp_path: Path) -> None:
    checked, unchecked = _run(tmp_path, "checked"), _run(tmp_path, "unchecked")
    assert accord.verify(checked).passed
    client = TestClient(create_app([checked, unchecked]))
    assert _marks(client) == {"checked": "verified", "unchecked": "none"}
    site = tmp_path / "site"
    write_bundle([checked, unchecked], site)
    bundled = {r["run"]: r["verified"] for r in _bundled_runs(site)}
    assert bundled["checked"]["state"] == "verified"  # type: ignore[index]
    assert bundled["unchecked"]["state"] == "none"  # type: ignore[index]
    # A trace edited after verification: the run is no longer shown as verified.
    trace = sorted((checked / "traces").glob("*.json"))[0]
    data = json.loads(trace.read_text(encoding="utf-8"))
    data["metrics"]["efficiency"] = 1.0
    trace.write_text(json.dumps(data), encoding="utf-8")
    assert _marks(client)["checked"] == "stale"
    # Verified again, it fails and the mark says so.
    assert not accord.verify(checked).passed
    assert _marks(client)["checked"] == "failed"
