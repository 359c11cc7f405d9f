"""The OpenAI Batch API endpoints of the loopback server (:mod:`prism_review.testing.llm_server`).

* ``POST /v1/files`` (multipart: ``purpose``, ``file``) stores a JSONL file: ``{"id": "file-…"}``;
* ``POST /v1/batches`` (``input_file_id``, ``endpoint``, ``completion_window``) answers every line
  at once through the chat endpoint's own chain (script, recording, responder, canned replies,
  schema echo) and returns the batch ``in_progress``;
* ``GET /v1/batches/{id}`` is ``in_progress`` until ``server.batch_delay`` seconds have passed
  and no ``server.hold_batches`` is set, then ``completed`` with ``output_file_id`` (200 lines)
  and ``error_file_id`` (lines that got an error status or no answer);
* ``GET /v1/files/{id}/content`` returns a file's bytes.

``server.batch_lines`` records every line answered (never ``server.requests``, which holds chat
calls only), ``server.batch_calls`` every batch-endpoint request as ``(method, path)``, and
``server.batches`` the batch objects by id.
"""

from __future__ import annotations

import json
import time
from email.parser import BytesParser
from email.policy import HTTP
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from prism_review.testing.llm_server import LLMServer


def _multipart(content_type: str, raw: bytes) -> dict[str, bytes]:
    msg = BytesParser(policy=HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + raw)
    parts: dict[str, bytes] = {}
    for part in msg.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        if name:
            parts[str(name)] = payload if isinstance(payload, bytes) else b""
    return parts


class BatchStore:
    """Files and batches of one loopback server (see the module docstring)."""

    def __init__(self, owner: LLMServer) -> None:
        self.owner = owner
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self._ready_at: dict[str, float] = {}
        self._n = 0

    def _id(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}-loopback-{self._n}"

    def upload(self, content_type: str, raw: bytes) -> tuple[int, dict[str, Any]]:
        parts = _multipart(content_type, raw)
        if "file" not in parts or parts.get("purpose", b"") != b"batch":
            return 400, {"error": {"message": "need a 'file' part and purpose=batch"}}
        with self.owner._lock:
            fid = self._id("file")
            self.files[fid] = parts["file"]
        return 200, {"id": fid, "object": "file", "bytes": len(parts["file"]),
                     "created_at": int(time.time()), "filename": "batch.jsonl",
                     "purpose": "batch", "status": "processed"}

    def create(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        data = self.files.get(str(body.get("input_file_id")))
        if data is None:
            return 404, {"error": {"message": "no such input file"}}
        out: list[str] = []
        err: list[str] = []
        for n, raw in enumerate(data.decode("utf-8").splitlines()):
            if not raw.strip():
                continue
            line = json.loads(raw)
            code, payload = self.owner.answer_line(line.get("body") or {})
            item = {"id": f"batch_req_{n}", "custom_id": line.get("custom_id"), "error": None,
                    "response": {"status_code": code or 500, "request_id": f"req_{n}",
                                 "body": payload if isinstance(payload, dict) else {}}}
            if code == 0:
                item["response"] = None
                item["error"] = {"code": "no_response", "message": "the model did not answer"}
            (out if code == 200 else err).append(json.dumps(item))
        with self.owner._lock:
            bid = self._id("batch")
            out_id = self._id("file") if out else None
            err_id = self._id("file") if err else None
            if out_id:
                self.files[out_id] = ("\n".join(out) + "\n").encode()
            if err_id:
                self.files[err_id] = ("\n".join(err) + "\n").encode()
            batch = {"id": bid, "object": "batch", "endpoint": body.get("endpoint"),
                     "input_file_id": body.get("input_file_id"),
                     "completion_window": body.get("completion_window", "24h"),
                     "status": "in_progress", "created_at": int(time.time()),
                     "output_file_id": None, "error_file_id": None,
                     "request_counts": {"total": len(out) + len(err), "completed": len(out),
                                        "failed": len(err)},
                     "_files": (out_id, err_id)}
            self.batches[bid] = batch
            self._ready_at[bid] = time.monotonic() + self.owner.batch_delay
        return 200, self._public(batch)

    def retrieve(self, bid: str) -> tuple[int, dict[str, Any]]:
        batch = self.batches.get(bid)
        if batch is None:
            return 404, {"error": {"message": "no such batch"}}
        if (not self.owner.hold_batches and batch["status"] == "in_progress"
                and time.monotonic() >= self._ready_at[bid]):
            batch["status"] = "completed"
            batch["output_file_id"], batch["error_file_id"] = batch["_files"]
        return 200, self._public(batch)

    @staticmethod
    def _public(batch: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in batch.items() if not k.startswith("_")}

    def handle(self, method: str, path: str, headers: Any, raw: bytes
               ) -> tuple[int, dict[str, Any] | bytes] | None:
        """Answer a batch-endpoint request, or None when ``path`` is not one."""
        parts = path.split("?", 1)[0].rstrip("/").split("/")
        if "files" not in parts and "batches" not in parts:
            return None
        self.owner.batch_calls.append((method, path))
        tail = parts[parts.index("files" if "files" in parts else "batches"):]
        if method == "POST" and tail == ["files"]:
            return self.upload(headers.get("Content-Type", ""), raw)
        if method == "POST" and tail == ["batches"]:
            return self.create(json.loads(raw or b"{}"))
        if method == "GET" and len(tail) == 2 and tail[0] == "batches":
            return self.retrieve(tail[1])
        if method == "GET" and len(tail) == 3 and tail[0] == "files" and tail[2] == "content":
            data = self.files.get(tail[1])
            return (200, data) if data is not None else (404, {"error": {"message": "no file"}})
        return 404, {"error": {"message": "not found"}}
