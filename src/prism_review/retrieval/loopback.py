"""A loopback Semantic Scholar stand-in for tests and benchmarks (127.0.0.1, ephemeral port).

``S2Server(script)`` serves ``GET /graph/v1/paper/search``: ``script[query]`` is a list of
``(status, body)`` replies served in turn (the last one repeats); unknown queries get an empty
result. Every request is logged in ``server.log`` (path, params, ``x-api-key``, time).
:func:`recorded_script` loads ``{query: response_body}`` JSON recordings.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse


class S2Server:
    """``script[query]`` is a list of ``(status, body)`` served in turn (the last one repeats);
    unknown queries get an empty result. Every request is logged."""

    def __init__(self, script: dict[str, list[tuple[int, Any]]] | None = None) -> None:
        self.script = script or {}
        self.log: list[dict[str, Any]] = []
        self._served: dict[str, int] = {}
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                url = urlparse(self.path)
                qs = {k: v[0] for k, v in parse_qs(url.query).items()}
                query = qs.get("query", "")
                server.log.append({"path": url.path, "params": qs, "key": self.headers.get("x-api-key"),
                                   "t": time.monotonic()})
                steps = server.script.get(query, [(200, {"total": 0, "offset": 0, "data": []})])
                i = server._served.get(query, 0)
                server._served[query] = i + 1
                status, body = steps[min(i, len(steps) - 1)]
                payload = body if isinstance(body, bytes) else json.dumps(body).encode()
                if url.path != "/graph/v1/paper/search":
                    status, payload = 404, b'{"error": "not found"}'
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def base_url(self) -> str:
        port = self.httpd.server_address[1]
        return f"http://127.0.0.1:{port}/graph/v1"

    def __enter__(self) -> S2Server:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def recorded_script(path: str | Path) -> dict[str, list[tuple[int, Any]]]:
    """Recorded ``{query: body}`` responses, each served with status 200."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return {q: [(200, body)] for q, body in data.items()}
