"""The loopback server's HTTP side: one request handler for the chat, model-list and Batch API
routes of :class:`~prism_review.testing.llm_server.LLMServer`, which owns what is answered
(``Handler.owner``, set per server); this module only speaks HTTP."""

from __future__ import annotations

import json
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from prism_review.testing.llm_reply import RecordedRequest, Reply, context_error, error_body

if TYPE_CHECKING:
    from prism_review.testing.llm_server import LLMServer


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 512  # the listen backlog: many clients connect at once

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that hang up (timeouts, faults) are expected; stay quiet about them."""
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class Handler(BaseHTTPRequestHandler):
    owner: LLMServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as separate writes

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence stderr
        return

    def _send(self, code: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(payload)

    def _batch_api(self, method: str, raw: bytes) -> bool:
        """Serve the Batch API endpoints (:mod:`prism_review.testing.llm_batch`)."""
        answer = self.owner.batch_store.handle(method, self.path, self.headers, raw)
        if answer is None:
            return False
        code, payload = answer
        self._send(code, payload if isinstance(payload, bytes) else json.dumps(payload).encode())
        return True

    def do_GET(self) -> None:  # noqa: N802
        if self._batch_api("GET", b""):
            return
        if self.path.rstrip("/").endswith("/models"):
            data = [{"id": m, "object": "model", "owned_by": "loopback"} for m in self.owner.models]
            self._send(200, json.dumps({"object": "list", "data": data}).encode())
        else:
            self._send(404, b'{"error": {"message": "not found"}}')

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self._batch_api("POST", raw):
            return
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._send(400, b'{"error": {"message": "request body is not JSON"}}')
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, b'{"error": {"message": "not found"}}')
            return
        headers = {k.lower(): ("<redacted>" if k.lower() in ("authorization", "api-key")
                               else v) for k, v in self.headers.items()}
        rec = RecordedRequest(self.path, body, headers, headers.get("x-prism-step"))
        with self.owner._lock:
            self.owner.requests.append(rec)
        if self.owner.api_key is not None and (self.headers.get("Authorization")
                                               != f"Bearer {self.owner.api_key}"):
            rec.fault = "bad_key"
            self._error(401, "Incorrect API key provided")
            return
        rf = body.get("response_format") or {}
        if self.owner.reject_json_schema and rf.get("type") == "json_schema":
            rec.fault = "reject_json_schema"
            self._error(400, "response_format json_schema is not supported by this server")
            return
        too_long = context_error(self.owner, body)
        if too_long:  # checked before a reply is chosen, as vLLM validates before generating
            rec.fault = "context_length"
            self._error(400, too_long)
            return
        reply = self.owner._choose(body, rec.step)
        if self.owner.latency:
            time.sleep(self.owner.latency)
        self._answer(body, reply, rec)

    def _error(self, code: int, message: str, headers: dict[str, str] | None = None) -> None:
        self._send(code, json.dumps(error_body(code, message)).encode(), headers)

    def _answer(self, body: dict[str, Any], reply: Reply, rec: RecordedRequest) -> None:
        code, payload, headers = self.owner.render(body, reply, rec)
        if code == 0:  # hang or disconnect: no answer at all
            time.sleep(float(headers.get("hang", 0)))
            self.close_connection = True
            return
        self._send(code, payload if isinstance(payload, bytes) else json.dumps(payload).encode(),
                   headers)
