"""``DIR/experiment.json``, the expanded plan of a run, written and compared one game at a time.

The file is a JSON object, ``{"schema_version": 1, "games": [...]}`` (the version is
`accord.runner.results.RUN_FILES_VERSION`), listing the game specs (``indent=1``), secrets
scrubbed; a file an older Accord wrote is the bare list, still compared on resume. It is
streamed: a
20,000-game plan is 12 MB of text, and building it whole (plus parsing the previous one for
``--resume``) used to be the peak of a run's memory. A resumed run compares its plan with the
file by a hash of the text, falling back to comparing the parsed documents only when the text
differs (a file written with other formatting).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from pathlib import Path

from accord.core.errors import ConfigError
from accord.core.secrets import scrub_secrets
from accord.runner.results import RUN_FILES_VERSION
from accord.runner.specs import GameSpec
from accord.traces.io import atomic_writer


def plan_chunks(specs: Sequence[GameSpec]) -> Iterator[str]:
    """The text of the plan file in pieces (identical to ``json.dumps(plan, indent=1)``)."""
    yield f'{{\n "schema_version": {RUN_FILES_VERSION},\n "games": ['
    for i, spec in enumerate(specs):
        text = scrub_secrets(json.dumps(spec.model_dump(mode="json"), indent=1, ensure_ascii=False))
        yield ("," if i else "") + "\n  " + text.replace("\n", "\n  ")
    yield "\n ]\n}\n" if specs else "]\n}\n"


def _digest(chunks: Iterator[str]) -> str:
    h = hashlib.sha256()
    for chunk in chunks:
        h.update(chunk.encode())
    return h.hexdigest()


def _file_digest(path: Path) -> str | None:
    h = hashlib.sha256()
    try:
        with path.open("rb") as fh:
            while block := fh.read(1 << 20):
                h.update(block)
    except OSError:
        return None
    return h.hexdigest()


def same_plan(path: Path, specs: Sequence[GameSpec]) -> bool:
    """Whether the plan file at `path` holds `specs` (True if the file is missing or bad)."""
    previous = _file_digest(path)
    if previous is None or previous == _digest(plan_chunks(specs)):
        return True
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return True  # unreadable: nothing to compare with, as before
    new = json.loads("".join(plan_chunks(specs)))
    if isinstance(old, list):  # written before the file had a schema version
        return bool(old == new["games"])
    return bool(old == new)


def check_plan(path: Path, specs: Sequence[GameSpec]) -> None:
    """Refuse to resume a run directory whose plan file holds another experiment."""
    if path.exists() and not same_plan(path, specs):
        other = f"{path.parent} was started with a different experiment;"
        raise ConfigError(
            f"{other} resume=True needs the same config and options (or use another out).",
            cli=f"{other} --resume needs the same config and options (or use another --out).",
        )


def write_plan(path: Path, specs: Sequence[GameSpec], *, resume: bool = False) -> None:
    """Write the plan file; with `resume`, first `check_plan`."""
    if resume:
        check_plan(path, specs)
    with atomic_writer(path) as fh:
        for chunk in plan_chunks(specs):
            fh.write(chunk)
