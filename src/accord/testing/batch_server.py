"""A fake OpenAI Batch API server on 127.0.0.1, for tests and demos of batch mode.

It speaks the endpoints the ``openai`` SDK uses for batches (``POST /v1/files``,
``GET /v1/files/{id}/content``, ``POST /v1/batches``, ``GET /v1/batches[/{id}]``,
``POST /v1/batches/{id}/cancel``) and live chat completions (``POST /v1/chat/completions``),
and answers every request with the same deterministic reply whichever way it came: a
schema-valid sample for a ``response_format`` schema, a tool call for ``tools``, else a sentence,
drawn from a digest of the messages, schema, tools and seed (`mock_reply`). So a game played
live against it and the same game played in batch mode get the same replies.

What can be set: how many retrieves a batch takes to finish (``turnaround_polls``), holding
every batch unfinished until `FakeBatchServer.release` (``hold``), failing the first requests it
answers (``fail_first``: HTTP 500 lines in the error file), writing malformed output lines
(``malformed_first``), and letting chosen batches expire with only half their requests answered
(``expire``). It counts what it was asked: files uploaded, batches created, live calls, and
each request it answered (``paid``: a request id answered twice is a request paid twice).
"""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import default as default_policy
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from accord.testing.batch_replies import mock_anthropic_reply, mock_reply
from accord.testing.wire import send_json


@dataclass
class FakeBatchServer:
    """The running fake: its address, its settings and what it counted.

    Attributes:
        url: the base URL to give as ``base_url`` (ends with ``/v1``).
        turnaround_polls: retrieves of a batch before it is finished.
        hold: while true, no batch finishes (a test's "pending batch").
        hold_from: when above 0, batches from this number on (1-based) do not finish until
            `release` (a run killed a few steps in).
        fail_first: the first this many requests answered go to the error file (HTTP 500).
        malformed_first: the first this many answered lines of output files are not JSON.
        expire: numbers (1-based, in creation order) of the batches that expire half done.
        swap_after: when above 0, OpenAI-style replies after this many name another model
            (``<model>-swapped``) and fingerprint (``fp_swapped``), and live ones the version
            header ``x-model-version: fake-2`` instead of ``fake-1``: a provider that changed
            the model behind a name mid-run.
        uploads / creates / cancels / live_calls: requests of each kind received.
        probes: live calls with ``max_tokens: 1`` (the runner's context-size check).
        live_bodies: the body of every live call (chat completions and Anthropic messages).
        paid: how often each request id was answered (billed) by a batch.
        batches: every batch object, by id.
    """

    url: str = ""
    turnaround_polls: int = 1
    hold: bool = False
    hold_from: int = 0
    fail_first: int = 0
    malformed_first: int = 0
    expire: set[int] = field(default_factory=set)
    swap_after: int = 0
    uploads: int = 0
    creates: int = 0
    cancels: int = 0
    live_calls: int = 0
    probes: int = 0
    paid: Counter[str] = field(default_factory=Counter)
    live_bodies: list[dict[str, Any]] = field(default_factory=list)
    batches: dict[str, dict[str, Any]] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)
    _polls: Counter[str] = field(default_factory=Counter)
    _answered: int = 0
    _malformed: int = 0
    _replies: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def release(self) -> None:
        """Let held batches finish on their next retrieve."""
        with self.lock:
            self.hold, self.hold_from = False, 0

    def paid_twice(self) -> list[str]:
        """Request ids a batch answered more than once."""
        return [cid for cid, n in self.paid.items() if n > 1]

    # -- the handlers' work (called under the lock) ---------------------------------------

    def _file(self, data: bytes, purpose: str, name: str) -> dict[str, Any]:
        file_id = f"file-{len(self.files) + 1:05d}"
        self.files[file_id] = data
        return {
            "id": file_id,
            "object": "file",
            "bytes": len(data),
            "created_at": int(time.time()),
            "filename": name,
            "purpose": purpose,
            "status": "processed",
        }

    def _create(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        input_id = str(body.get("input_file_id", ""))
        if input_id not in self.files:
            return 400, {"error": {"message": f"no file {input_id}", "type": "invalid_request"}}
        self.creates += 1
        lines = [ln for ln in self.files[input_id].splitlines() if ln.strip()]
        batch = {
            "id": f"batch_{self.creates:05d}",
            "object": "batch",
            "endpoint": body.get("endpoint", "/v1/chat/completions"),
            "input_file_id": input_id,
            "completion_window": body.get("completion_window", "24h"),
            "status": "validating",
            "created_at": int(time.time()),
            "output_file_id": None,
            "error_file_id": None,
            "errors": None,
            "metadata": body.get("metadata") or {},
            "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
            "_number": self.creates,
        }
        self.batches[batch["id"]] = batch
        return 200, _public(batch)

    def _retrieve(self, batch_id: str) -> tuple[int, dict[str, Any]]:
        batch = self.batches.get(batch_id)
        if batch is None:
            return 404, {"error": {"message": f"no batch {batch_id}", "type": "not_found"}}
        if batch["status"] in ("validating", "in_progress", "cancelling"):
            self._polls[batch_id] += 1
            if batch["status"] == "cancelling":
                self._run(batch, final="cancelled")
            elif not self._held(batch) and self._polls[batch_id] >= self.turnaround_polls:
                expired = batch["_number"] in self.expire
                self._run(batch, final="expired" if expired else "completed")
            else:
                batch["status"] = "in_progress"
        return 200, _public(batch)

    def _reply(self, body: dict[str, Any]) -> dict[str, Any]:
        self._replies += 1
        if 0 < self.swap_after < self._replies:
            return mock_reply(
                body, served=f"{body.get('model', 'fake')}-swapped", fingerprint="fp_swapped"
            )
        return mock_reply(body)

    def _held(self, batch: dict[str, Any]) -> bool:
        return self.hold or (0 < self.hold_from <= batch["_number"])

    def _fates(self, requests: list[dict[str, Any]], final: str) -> list[tuple[str, str]]:
        """What happens to each request ``{custom_id, body}`` of a batch ending `final`:
        ``answered``, ``failed`` (a server error), ``malformed`` (answered, line broken) or
        ``unrun`` (the batch expired or was cancelled first: only its first half ran)."""
        cut = len(requests) if final in ("completed", "ended") else len(requests) // 2
        fates = []
        for i, request in enumerate(requests):
            cid = str(request["custom_id"])
            if i >= cut:
                fates.append((cid, "unrun"))
                continue
            self._answered += 1
            if self._answered <= self.fail_first:
                fates.append((cid, "failed"))
                continue
            self.paid[cid] += 1
            if self._malformed < self.malformed_first:
                self._malformed += 1
                fates.append((cid, "malformed"))
            else:
                fates.append((cid, "answered"))
        return fates

    def _run(self, batch: dict[str, Any], *, final: str) -> None:
        """Answer an OpenAI batch's requests and write its output and error files."""
        lines = [
            json.loads(ln) for ln in self.files[batch["input_file_id"]].splitlines() if ln.strip()
        ]
        bodies = {str(line["custom_id"]): line["body"] for line in lines}
        out: list[str] = []
        errors: list[str] = []
        for i, (cid, fate) in enumerate(self._fates(lines, final)):
            if fate == "unrun":
                code = "batch_expired" if final == "expired" else "batch_cancelled"
                errors.append(_error_line(cid, code, f"request not run: batch {final}"))
            elif fate == "failed":
                errors.append(_error_line(cid, "server_error", "the server had an error", 500))
            elif fate == "malformed":
                out.append('{"custom_id": "' + cid + '", "response": {"status_code": 200, "bo')
            else:
                reply = {
                    "status_code": 200,
                    "request_id": f"req_{i}",
                    "body": self._reply(bodies[cid]),
                }
                out.append(json.dumps({"id": f"br_{i}", "custom_id": cid, "response": reply}))
        if out:
            batch["output_file_id"] = self._file(("\n".join(out) + "\n").encode(), "out", "o")["id"]
        if errors:
            data = ("\n".join(errors) + "\n").encode()
            batch["error_file_id"] = self._file(data, "err", "e")["id"]
        batch["status"] = final
        batch["request_counts"] = {
            "total": len(lines),
            "completed": len(out),
            "failed": len(errors),
        }

    # -- Anthropic Message Batches --------------------------------------------------------

    def _create_anthropic(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        requests = body.get("requests")
        if not isinstance(requests, list) or not requests:
            return 400, {"type": "error", "error": {"type": "invalid_request_error"}}
        self.creates += 1
        batch_id = f"msgbatch_{self.creates:05d}"
        batch: dict[str, Any] = {
            "id": batch_id,
            "type": "message_batch",
            "processing_status": "in_progress",
            "request_counts": {
                "processing": len(requests),
                "succeeded": 0,
                "errored": 0,
                "canceled": 0,
                "expired": 0,
            },
            "created_at": _iso(time.time()),
            "ended_at": None,
            "results_url": None,
            "_number": self.creates,
            "_kind": "anthropic",
            "_requests": [{"custom_id": r["custom_id"], "body": r["params"]} for r in requests],
        }
        self.batches[batch_id] = batch
        return 200, _public(batch)

    def _retrieve_anthropic(self, batch_id: str) -> tuple[int, dict[str, Any]]:
        batch = self.batches.get(batch_id)
        if batch is None or batch.get("_kind") != "anthropic":
            return 404, {"type": "error", "error": {"type": "not_found_error"}}
        if batch["processing_status"] != "ended":
            self._polls[batch_id] += 1
            if batch["processing_status"] == "canceling":
                self._run_anthropic(batch, final="canceled")
            elif not self._held(batch) and self._polls[batch_id] >= self.turnaround_polls:
                expired = batch["_number"] in self.expire
                self._run_anthropic(batch, final="expired" if expired else "ended")
        return 200, _public(batch)

    def _run_anthropic(self, batch: dict[str, Any], *, final: str) -> None:
        requests = batch["_requests"]
        bodies = {str(r["custom_id"]): r["body"] for r in requests}
        lines: list[str] = []
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        for cid, fate in self._fates(requests, final):
            if fate == "unrun":
                kind = "expired" if final == "expired" else "canceled"
                counts[kind] += 1
                lines.append(json.dumps({"custom_id": cid, "result": {"type": kind}}))
            elif fate == "failed":
                counts["errored"] += 1
                error = {"type": "error", "error": {"type": "api_error", "message": "failed"}}
                lines.append(
                    json.dumps({"custom_id": cid, "result": {"type": "errored", "error": error}})
                )
            elif fate == "malformed":
                counts["succeeded"] += 1
                lines.append('{"custom_id": "' + cid + '", "result": {"type": "succ')
            else:
                counts["succeeded"] += 1
                message = mock_anthropic_reply(bodies[cid])
                result = {"type": "succeeded", "message": message}
                lines.append(json.dumps({"custom_id": cid, "result": result}))
        batch["_results"] = ("\n".join(lines) + "\n").encode()
        batch["processing_status"] = "ended"
        batch["request_counts"] = counts
        batch["ended_at"] = _iso(time.time())
        batch["results_url"] = (
            f"{self.url.removesuffix('/v1')}/v1/messages/batches/{batch['id']}/results"
        )


def _error_line(cid: str, code: str, message: str, status: int | None = None) -> str:
    response = {"status_code": status, "body": {"error": {"message": message}}} if status else None
    return json.dumps(
        {"custom_id": cid, "response": response, "error": {"code": code, "message": message}}
    )


def _route(target: str) -> str:
    """The endpoint of a request path without its ``/v1`` prefix: clients that add ``/v1``
    to a base URL already ending in it (LiteLLM's Anthropic client) reach the same one."""
    path = target.split("?", 1)[0]
    while path.startswith("/v1/"):
        path = path[3:]
    return path


def _iso(stamp: float) -> str:
    return dt.datetime.fromtimestamp(stamp, dt.UTC).isoformat()


def _public(batch: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in batch.items() if not k.startswith("_")}


def _multipart(content_type: str, data: bytes) -> dict[str, tuple[str, bytes]]:
    """The fields of a multipart/form-data body: name -> (file name, bytes)."""
    message = BytesParser(policy=default_policy).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + data
    )
    fields: dict[str, tuple[str, bytes]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        if isinstance(name, str) and isinstance(payload, bytes):
            fields[name] = (part.get_filename() or "", payload)
    return fields


@contextmanager
def batch_server(
    *,
    turnaround_polls: int = 1,
    hold: bool = False,
    hold_from: int = 0,
    fail_first: int = 0,
    malformed_first: int = 0,
    expire: set[int] | None = None,
    swap_after: int = 0,
) -> Iterator[FakeBatchServer]:
    """Serve a fake OpenAI Batch API on a free port of 127.0.0.1 until the block ends."""
    state = FakeBatchServer(
        turnaround_polls=turnaround_polls,
        hold=hold,
        hold_from=hold_from,
        fail_first=fail_first,
        malformed_first=malformed_first,
        expire=set(expire or ()),
        swap_after=swap_after,
    )

    class Handler(BaseHTTPRequestHandler):
        def _body(self) -> bytes:
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def do_POST(self) -> None:
            raw = self._body()
            path = _route(self.path)
            headers: dict[str, str] = {}
            with state.lock:
                if path == "/messages/batches":
                    status, body = state._create_anthropic(json.loads(raw or b"{}"))
                elif path.startswith("/messages/batches/") and path.endswith("/cancel"):
                    batch = state.batches.get(path.split("/")[3])
                    state.cancels += 1
                    if batch is None:
                        status, body = 404, {"type": "error", "error": {"type": "not_found"}}
                    else:
                        if batch["processing_status"] == "in_progress":
                            batch["processing_status"] = "canceling"
                        status, body = 200, _public(batch)
                elif path == "/messages":
                    state.live_calls += 1
                    asked = json.loads(raw or b"{}")
                    state.live_bodies.append(asked)
                    status, body = 200, mock_anthropic_reply(asked)
                elif path == "/files":
                    fields = _multipart(self.headers.get("Content-Type", ""), raw)
                    name, data = fields.get("file", ("", b""))
                    purpose = fields.get("purpose", ("", b"batch"))[1].decode()
                    state.uploads += 1
                    status, body = 200, state._file(data, purpose, name)
                elif path == "/batches":
                    status, body = state._create(json.loads(raw or b"{}"))
                elif path.startswith("/batches/") and path.endswith("/cancel"):
                    batch = state.batches.get(path.split("/")[2])
                    state.cancels += 1
                    if batch is None:
                        status, body = 404, {"error": {"message": "no such batch"}}
                    else:
                        if batch["status"] in ("validating", "in_progress"):
                            batch["status"] = "cancelling"
                        status, body = 200, _public(batch)
                elif path == "/chat/completions":
                    asked = json.loads(raw or b"{}")
                    if asked.get("max_tokens") == 1:  # a context-size probe, not a game's call
                        state.probes += 1
                        status, body = 200, mock_reply(asked)
                    else:
                        state.live_calls += 1
                        state.live_bodies.append(asked)
                        status, body = 200, state._reply(asked)
                        swapped = 0 < state.swap_after < state._replies
                        headers = {
                            "x-model-version": "fake-2" if swapped else "fake-1",
                            "x-request-id": f"req_{state._replies}",  # not a version
                        }
                else:
                    status, body = 404, {"error": {"message": f"no endpoint {path}"}}
            send_json(self, status, headers, body)

        def do_GET(self) -> None:
            path = _route(self.path)
            with state.lock:
                if path == "/messages/batches":
                    data = [_public(b) for b in reversed(state.batches.values()) if "_kind" in b]
                    status, body = 200, {"data": data, "has_more": False}
                elif path.startswith("/messages/batches/") and path.endswith("/results"):
                    batch = state.batches.get(path.split("/")[3])
                    if batch is None or "_results" not in batch:
                        status, body = 404, {"type": "error", "error": {"type": "not_found"}}
                    else:
                        self._raw(batch["_results"])
                        return
                elif path.startswith("/messages/batches/"):
                    status, body = state._retrieve_anthropic(path.split("/")[3])
                elif path == "/batches":
                    data = [_public(b) for b in reversed(state.batches.values())]
                    status, body = 200, {"object": "list", "data": data, "has_more": False}
                elif path.startswith("/batches/"):
                    status, body = state._retrieve(path.split("/")[2])
                elif path.startswith("/files/") and path.endswith("/content"):
                    content = state.files.get(path.split("/")[2])
                    if content is None:
                        status, body = 404, {"error": {"message": "no such file"}}
                    else:
                        self._raw(content)
                        return
                else:
                    status, body = 404, {"error": {"message": f"no endpoint {path}"}}
            send_json(self, status, {}, body)

        def _raw(self, content: bytes) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
