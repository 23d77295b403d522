"""The verification record of a run (``RUN/verification.json``) and the mark a viewer shows.

`accord verify RUN` (`accord.analysis.verify`) writes what it checked of every game and
whether it passed, and a digest over all the run's trace files. A viewer (the leaderboard,
``accord serve``, the static bundle) calls `verified_mark`: a run is *verified* only while its
record passed and its trace files still hash to the recorded digest, so a trace edited, added
or removed after verification turns the mark to *stale* without anyone re-running the check.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

RECORD_NAME = "verification.json"
"""Where `accord verify` writes its record, inside the run directory."""

RECORD_VERSION = 1
"""Schema version of `Verification`: bumped when a field changes meaning or goes away."""

MAX_RECORD_BYTES = 64 * 1024 * 1024
"""A record larger than this is not read by a viewer (it is not one `accord verify` wrote)."""


class Check(BaseModel):
    """One thing that was checked, and what was found."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="What was checked: plan, replay, events, metrics, ...")
    passed: bool = Field(description="True when the check found nothing wrong.")
    detail: str = Field("", description="What was compared, or the first difference found.")


class GameVerification(BaseModel):
    """The checks of one game (one trace file)."""

    model_config = ConfigDict(extra="forbid")

    trace_id: str = Field(description="The trace's id (its file stem).")
    game_id: str = Field("", description="The trace's versioned game id ('' if unreadable).")
    sha256: str = Field(description="SHA-256 of the trace file as it was checked.")
    checks: list[Check] = Field(default_factory=list, description="Each check, in order.")

    @property
    def passed(self) -> bool:
        """Every check passed."""
        return all(c.passed for c in self.checks)

    def mismatches(self) -> list[str]:
        """One line per failed check, naming the game and the check."""
        return [f"{self.trace_id}: {c.name}: {c.detail}" for c in self.checks if not c.passed]


class Verification(BaseModel):
    """What `accord verify` found in one run directory."""

    model_config = ConfigDict(extra="forbid")

    version: int = Field(RECORD_VERSION, description="Schema version of this record.")
    run: str = Field(description="The run directory's name.")
    accord_version: str = Field(description="Version of Accord that re-played the games.")
    verified_at: str = Field(description="UTC ISO time the verification finished.")
    passed: bool = Field(description="True when every game and every run check passed.")
    traces_digest: str = Field(
        description="SHA-256 over the sorted lines 'file name, space, file SHA-256' of every "
        "file in traces/ (`traces_digest`)."
    )
    games: list[GameVerification] = Field(
        default_factory=list, description="Per trace file: what was checked, what passed."
    )
    run_checks: list[Check] = Field(
        default_factory=list,
        description="Checks of the run as a whole: the plan (no game removed or added), "
        "results.jsonl and summary.json against the traces.",
    )

    def mismatches(self) -> list[str]:
        """Every failed check as one line naming it (run checks first)."""
        out = [f"run: {c.name}: {c.detail}" for c in self.run_checks if not c.passed]
        for game in self.games:
            out.extend(game.mismatches())
        return out


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's bytes, read in blocks."""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def trace_files(run: Path) -> list[Path]:
    """The ``.json`` files of ``run/traces``, by name (links out of the folder left out)."""
    folder = run / "traces"
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []
    root = folder.resolve()
    return [
        folder / e.name
        for e in entries
        if e.name.endswith(".json") and e.is_file() and Path(e.path).resolve().parent == root
    ]


def traces_digest(hashes: dict[str, str]) -> str:
    """The digest over a run's traces, from each file name's SHA-256."""
    lines = "".join(f"{name} {digest}\n" for name, digest in sorted(hashes.items()))
    return hashlib.sha256(lines.encode()).hexdigest()


def current_digest(run: Path) -> str:
    """`traces_digest` of the run's trace files as they are now."""
    return traces_digest({p.name: file_sha256(p) for p in trace_files(run)})


def read_record(run: Path) -> Verification | None:
    """The run's verification record, or None when it has none (or one that is not valid)."""
    path = run / RECORD_NAME
    try:
        if not path.is_file() or path.stat().st_size > MAX_RECORD_BYTES:
            return None
        if not path.resolve().is_relative_to(run.resolve()):
            return None  # a link out of the run directory
        return Verification.model_validate_json(path.read_bytes())
    except (OSError, ValueError, ValidationError):
        return None


MarkState = Literal["verified", "failed", "stale", "none"]


def verified_mark(run: Path) -> dict[str, Any]:
    """What a viewer shows of a run's verification: ``{"state", "at", "games", "detail"}``.

    ``state`` is ``verified`` (the record passed and the traces are the ones it checked),
    ``failed`` (the record names mismatches), ``stale`` (the traces changed since: verify
    again) or ``none`` (never verified).
    """
    record = read_record(run)
    if record is None:
        return {"state": "none", "at": None, "games": 0, "detail": "not verified"}
    state: MarkState
    if current_digest(run) != record.traces_digest:
        state, detail = "stale", "traces changed since verification; run accord verify again"
    elif record.passed:
        state, detail = "verified", f"all {len(record.games)} games re-played and checked"
    else:
        found = record.mismatches()
        state, detail = "failed", f"{len(found)} mismatches, first: {found[0] if found else '?'}"
    return {"state": state, "at": record.verified_at, "games": len(record.games), "detail": detail}


def write_record(run: Path, record: Verification, out: Path | None = None) -> Path:
    """Write `record` (to ``run/verification.json`` unless `out` names another file)."""
    from accord.traces.io import atomic_write_text

    path = out if out is not None else run / RECORD_NAME
    atomic_write_text(path, json.dumps(record.model_dump(mode="json"), indent=1) + "\n")
    return path
