"""Batch records in the run directory: what was submitted, under which id, and what came back.

``DIR/batches/<label>.json`` is written before a batch is submitted (its requests, state
``submitting``), again once the provider has accepted it (its id, state ``submitted``) and
when it is over (state ``done``); ``DIR/batches/<label>.results.jsonl`` holds one outcome per
request it was asked. A run killed at any point finds on ``--resume`` every batch it may
have paid for: finished ones answer their requests from the results file, unfinished ones are
followed to their end (one created just before the kill, whose id was never written, is found
again by its label, which the provider keeps as metadata), so no request is paid for twice.

Every read and write goes through the few functions of this module, so these records move with
the run's storage as one piece.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from accord.core.errors import AccordError
from accord.core.ids import check_id
from accord.core.inputs import read_text
from accord.models.batch import BatchOutcome, BatchRequest
from accord.traces.io import atomic_write_text

BATCH_RECORD_VERSION = 1
_MAX_RECORD_BYTES = 512 * 1024 * 1024


class BatchRecord(BaseModel):
    """One provider batch of a run."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    version: int = BATCH_RECORD_VERSION
    """Schema version of this record."""
    label: str
    """Accord's id for the batch (file stem; sent to the provider as metadata)."""
    api: dict[str, Any] = Field(default_factory=dict)
    """The endpoint: kind (openai, anthropic), base_url, model; never a credential."""
    requests: list[dict[str, Any]] = Field(default_factory=list)
    """``{custom_id, body}`` of every request in the batch."""
    state: Literal["submitting", "submitted", "done", "failed"] = "submitting"
    """Accord's view: written before submission, after it, and when the results are in."""
    batch_id: str | None = None
    """The provider's id, once it accepted the batch."""
    file_id: str | None = None
    """The provider's id of the uploaded input file."""
    status: str = ""
    """The provider's last status word."""
    counts: dict[str, int] = Field(default_factory=dict)
    """The provider's last request counts."""
    created_at: float = Field(default_factory=time.time)
    """Unix time the record was first written."""
    submitted_at: float | None = None
    """Unix time the provider accepted the batch."""
    finished_at: float | None = None
    """Unix time the results were read."""
    error: str | None = None
    """Why the batch failed as a whole, if it did."""
    resubmitted: int = 0
    """Requests of this batch that are second or later submissions of a call."""

    def ids(self) -> list[str]:
        """The custom ids of the batch's requests."""
        return [str(r["custom_id"]) for r in self.requests]

    def batch_requests(self) -> list[BatchRequest]:
        """The batch's requests as submitted."""
        return [BatchRequest(str(r["custom_id"]), dict(r["body"])) for r in self.requests]


def batches_dir(out: Path) -> Path:
    """Where a run keeps its batch records."""
    return out / "batches"


def save_record(folder: Path, record: BatchRecord) -> None:
    """Write `record` atomically (before, during and after submission)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{check_id(record.label)}.json"
    atomic_write_text(path, record.model_dump_json() + "\n")


def save_results(folder: Path, label: str, outcomes: list[BatchOutcome]) -> None:
    """Write the outcome of every request of batch `label`."""
    lines = [
        json.dumps(
            {
                "custom_id": o.custom_id,
                "body": o.body,
                "status": o.status,
                "error": o.error,
                "transient": o.transient,
                "queue_s": o.queue_s,
            },
            ensure_ascii=False,
        )
        for o in outcomes
    ]
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_text(folder / f"{check_id(label)}.results.jsonl", "\n".join(lines) + "\n")


def load_records(folder: Path) -> list[BatchRecord]:
    """Every batch record of a run, oldest first; an unreadable one is skipped (its
    requests are then asked again)."""
    if not folder.is_dir():
        return []
    records = []
    for path in sorted(folder.glob("*.json")):
        try:
            text = read_text(path, what="batch record", max_bytes=_MAX_RECORD_BYTES)
            records.append(BatchRecord.model_validate_json(text))
        except (AccordError, ValidationError, ValueError, OSError):
            continue
    records.sort(key=lambda r: r.created_at)
    return records


def load_results(folder: Path, label: str) -> list[BatchOutcome]:
    """The outcomes written for batch `label` (none if its results were never read)."""
    path = folder / f"{check_id(label)}.results.jsonl"
    if not path.is_file():
        return []
    out = []
    text = read_text(path, what="batch results", max_bytes=_MAX_RECORD_BYTES)
    for line in text.splitlines():
        try:
            row = json.loads(line)
            out.append(
                BatchOutcome(
                    custom_id=str(row["custom_id"]),
                    body=row.get("body") if isinstance(row.get("body"), dict) else None,
                    status=int(row.get("status") or 0),
                    error=row.get("error"),
                    transient=bool(row.get("transient")),
                    batch=label,
                    queue_s=float(row.get("queue_s") or 0.0),
                )
            )
        except (ValueError, KeyError, TypeError):
            continue
    return out
