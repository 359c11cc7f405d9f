"""A loopback OpenAI-compatible chat server for tests and benchmarks.

The server listens on ``127.0.0.1`` on an ephemeral port, in a background thread, and answers
``POST /v1/chat/completions`` (plain, ``json_object`` and ``json_schema`` response formats) and
``GET /v1/models``, and the OpenAI Batch API (``/v1/files``, ``/v1/batches``, file content;
see :mod:`prism_review.testing.llm_batch`), whose lines go through the same chain as chat
requests. The real ``openai`` SDK talks to it over HTTP, so tests exercise the same
code path as a live provider.

What a request gets back is decided, in order, by:

1. the *script* — replies queued with :meth:`LLMServer.script` are served first, one per request;
2. a *recording* loaded with :meth:`LLMServer.replay`, matched by the exact request body;
3. the *responder* — a callable ``responder(request_json) -> Reply`` set with
   :meth:`LLMServer.set_responder` (called from server threads; keep it thread-safe);
4. *canned-by-step* replies set with ``canned(step, *replies)`` (served in turn, the last one
   repeating), keyed by the ``X-Prism-Step`` header the judge sends or the ``json_schema`` name;
5. the *schema-aware echo*: a minimal valid JSON instance of the requested ``json_schema``
   (or ``{}`` for JSON mode, or the last user message for plain requests); or, when the server
   is made with ``schema_seed=N``, a reply built from the sent schema only, as a server that
   decodes under the schema would make it (required fields filled, enum values chosen,
   non-empty arrays, strings of words; deterministic per request and seed; see
   :mod:`prism_review.testing.schema_fill`).

With ``context_seed=N`` (``--context-seed N``) the replies of 3-5 are *context-sensitive*: every
schema-bounded number in them (scores, grades) is redrawn from a hash of the whole request, so an
item's answer moves with everything else in its call, as a real model's does, while ids, labels
and list shapes stay the base reply's (:mod:`prism_review.testing.context_reply`). With
``faults=FaultMix(rate, seed=S)`` (``--faults RATE``) a seeded share of those replies is replaced
by 429s, 500s, dropped connections and unusable replies (:mod:`prism_review.testing.fault_mix`).

The replies, faults and chat-completion payloads are in :mod:`prism_review.testing.llm_reply`
(re-exported here); this module is the server: choosing a reply, HTTP and the Batch API routes.

A reply (``Reply``) is a ``str`` (the assistant content), a ``dict``/``list`` (serialised to
JSON), or a :class:`Fault`: ``Fault.status(429, retry_after=0.1)``, ``Fault.status(500)``,
``Fault.slow(0.5, reply)``, ``Fault.hang(5)`` (a timeout for the client), ``Fault.malformed()``,
``Fault.truncated(reply)``, ``Fault.empty()``, ``Fault.status(400, "bad")``,
``Fault.status(401)``, ``Fault.disconnect()`` and ``Fault.bad_body()`` (non-JSON HTTP body).
``server.latency`` delays every reply; ``server.reject_json_schema = True`` answers 400 to any
``json_schema`` request (to test the JSON-mode fallback); ``server.api_key = "k"`` answers 401
to a chat completion that does not carry ``Authorization: Bearer k``.
``server.max_output_tokens = N`` makes the server act as a model whose replies stop at an
output limit: a reply longer than ``N`` tokens (4 characters each, as its ``usage`` counts), or
than the request's ``max_tokens`` when ``server.enforce_max_tokens`` is set, is cut there and
answered with ``finish_reason="length"`` (``RecordedRequest.finish`` records it).
``server.context_length = N`` makes it a vLLM server of context length ``N``: a request whose
prompt (4-character tokens) and ``max_tokens`` exceed ``N`` is answered 400 with vLLM's message
("This model's maximum context length is N tokens. However, you requested M tokens (P in the
messages, C in the completion)..."), and every reply stops at the request's ``max_tokens``.

Every request is recorded in ``server.requests`` (``RecordedRequest`` with ``.body``,
``.headers`` — the ``Authorization`` header is redacted — ``.step`` and ``.reply``);
:meth:`LLMServer.save_recording` writes them as a JSONL fixture, and :meth:`LLMServer.replay`
answers from such a file by request body.

Example (pytest; the fixtures come from ``prism_review.testing.fixtures``)::

    async def test_my_step(llm_server, loopback_judge):
        llm_server.canned("depth.segment", {"segments": []})
        llm_server.script(Fault.status(429, retry_after=0.05))   # first request only
        judge = loopback_judge()          # LLMJudge on llm_server, per-test cache, fast retries
        res = await judge.run(SegmentStep(), SegmentIn(text="..."))
        assert res.ok and len(llm_server.requests) == 2
        assert llm_server.requests[-1].step == "depth.segment"

Outside pytest: ``with LLMServer(latency=0.2) as server: make_judge(
f"openai-compatible/test-model@{server.base_url}", ...)``, or from a shell
``python -m prism_review.testing.llm_server --latency 0.2`` (prints the base URL; add
``--schema-seed 7`` for schema-built replies).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import deque
from pathlib import Path
from typing import Any

from prism_review.testing.context_reply import context_sensitive
from prism_review.testing.fault_mix import FaultMix
from prism_review.testing.llm_batch import BatchStore
from prism_review.testing.llm_http import Handler, Server
from prism_review.testing.llm_reply import (
    Fault,
    RecordedRequest,
    Reply,
    Responder,
    context_error,
    default_reply,
    error_body,
    render_reply,
)

__all__ = ["Fault", "LLMServer", "RecordedRequest", "Reply", "Responder", "main", "render_reply"]


def _body_key(body: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


class LLMServer:
    """An OpenAI-compatible chat-completions server on 127.0.0.1 (see the module docstring)."""

    def __init__(self, responder: Responder | None = None, *, latency: float = 0.0,
                 models: list[str] | None = None, schema_seed: int | None = None,
                 context_seed: int | None = None, port: int = 0,
                 faults: FaultMix | None = None) -> None:
        self.latency = latency
        #: build default replies from the sent schema only (constrained decoding), seeded
        self.schema_seed = schema_seed
        #: redraw the numbers of every responder/canned/default reply from a hash of the whole
        #: request (:mod:`prism_review.testing.context_reply`); None: off
        self.context_seed = context_seed
        #: replace a seeded share of the chosen replies by faults; None: off
        self.faults = faults
        self.port = port
        self.reject_json_schema = False
        #: a model's output limit and whether the request's ``max_tokens`` also cuts replies
        #: (see the module docstring); off by default
        self.max_output_tokens: int | None = None
        self.enforce_max_tokens = False
        #: a vLLM server's context length (prompt plus output budget; see the module docstring)
        self.context_length: int | None = None
        #: when set, a chat completion whose ``Authorization`` is not ``Bearer <api_key>`` is
        #: answered 401, as a provider answers a wrong key
        self.api_key: str | None = None
        #: report ``usage.prompt_tokens_details.cached_tokens`` as a provider with automatic
        #: prompt caching does: the longest prefix (whole messages, in 4-char tokens, at least
        #: ``prompt_cache_min`` of them) shared with an earlier request
        self.prompt_cache = False
        #: a thinking model behind a server that counts its reasoning in ``total_tokens`` only:
        #: a reply cut at its budget reports the visible text as ``completion_tokens``
        self.reasoning_outside_completion = False
        self.prompt_cache_min = 1024
        self._prefixes: list[str] = []
        self.models = models or ["test-model"]
        self.requests: list[RecordedRequest] = []
        #: the Batch API (see :mod:`prism_review.testing.llm_batch`): lines answered, endpoint
        #: calls, seconds a batch stays in progress, and a switch that holds every batch
        self.batch_lines: list[RecordedRequest] = []
        self.batch_calls: list[tuple[str, str]] = []
        self.batch_delay = 0.0
        self.hold_batches = False
        self.batch_store = BatchStore(self)
        self._responder = responder
        self._script: deque[Reply] = deque()
        self._canned: dict[str, list[Reply]] = {}
        self._replay: dict[str, str] = {}
        self._lock = threading.Lock()
        self._httpd: Server | None = None
        self._thread: threading.Thread | None = None

    def cached_prefix_tokens(self, body: dict[str, Any]) -> int:
        """Tokens (4 chars each) of the longest prefix of this request's message contents that
        an earlier request sent too (0 below ``prompt_cache_min``); remembers this request."""
        text = "\x00".join(str(m.get("content", "")) for m in body.get("messages", []))
        with self._lock:
            best = 0
            for prev in self._prefixes:
                lo, hi = 0, min(len(prev), len(text))  # longest common prefix, by bisection
                while lo < hi:
                    mid = (lo + hi + 1) // 2
                    if prev[:mid] == text[:mid]:
                        lo = mid
                    else:
                        hi = mid - 1
                best = max(best, lo)
            self._prefixes.append(text)
        tokens = best // 4
        return tokens if tokens >= self.prompt_cache_min else 0

    # -- configuration -------------------------------------------------------------------
    def script(self, *replies: Reply) -> LLMServer:
        """Queue replies served one per request, before the responder is consulted."""
        with self._lock:
            self._script.extend(replies)
        return self

    def set_responder(self, responder: Responder | None) -> LLMServer:
        """Answer every unscripted request with ``responder(request_json)``."""
        self._responder = responder
        return self

    def canned(self, step: str, *replies: Reply) -> LLMServer:
        """Answer requests of ``step`` with ``replies`` in turn (the last one repeats)."""
        self._canned[step] = list(replies)
        return self

    def replay(self, path: str | Path) -> LLMServer:
        """Answer requests from a recording made with :meth:`save_recording` (by request body)."""
        for line in Path(path).read_text().split("\n"):
            if line.strip():
                rec = json.loads(line)
                if rec.get("reply") is not None:
                    self._replay[_body_key(rec["body"])] = rec["reply"]
        return self

    def save_recording(self, path: str | Path) -> None:
        """Write every recorded exchange as JSONL (no keys: ``Authorization`` is never stored)."""
        with open(path, "w", encoding="utf-8") as fh:
            for r in self.requests:
                fh.write(json.dumps({"body": r.body, "step": r.step, "reply": r.reply,
                                     "fault": r.fault}) + "\n")

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``."""
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    # -- lifecycle -----------------------------------------------------------------------
    def start(self) -> LLMServer:
        """Bind an ephemeral port and serve in a daemon thread."""
        handler = type("_Handler", (Handler,), {"owner": self})
        self._httpd = Server(("127.0.0.1", self.port), handler)
        self.port = self._httpd.server_address[1]  # a restart binds the same port again
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> LLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- answering -----------------------------------------------------------------------
    def _choose(self, body: dict[str, Any], step: str | None) -> Reply:
        with self._lock:
            if self._script:
                return self._script.popleft()
        if self._replay:
            hit = self._replay.get(_body_key(body))
            if hit is not None:
                return hit
        reply = self._base_reply(body, step)
        if self.context_seed is not None:
            reply = context_sensitive(body, reply, self.context_seed)
        return reply if self.faults is None else self.faults.apply(body, reply)

    def _base_reply(self, body: dict[str, Any], step: str | None) -> Reply:
        if self._responder is not None:
            return self._responder(body)
        rf = body.get("response_format") or {}
        name = step or (rf.get("json_schema") or {}).get("name")
        if name in self._canned:
            canned = self._canned[name]
            with self._lock:
                return canned.pop(0) if len(canned) > 1 else canned[0]
        return self.default_reply(body)

    def render(self, body: dict[str, Any], reply: Reply,
               rec: RecordedRequest) -> tuple[int, Any, dict[str, str]]:
        """See :func:`render_reply` (the chat endpoint and batch lines share it)."""
        return render_reply(self, body, reply, rec)

    def answer_line(self, body: dict[str, Any]) -> tuple[int, Any]:
        """Answer one batch line's chat body through the same script/responder/echo chain as
        the chat endpoint; recorded in ``batch_lines``, not in ``requests``."""
        rf = body.get("response_format") or {}
        step = (rf.get("json_schema") or {}).get("name")
        rec = RecordedRequest("batch", body, {}, step)
        with self._lock:
            self.batch_lines.append(rec)
        if self.reject_json_schema and rf.get("type") == "json_schema":
            rec.fault = "reject_json_schema"
            return 400, error_body(400, "response_format json_schema is not supported")
        too_long = context_error(self, body)
        if too_long:
            rec.fault = "context_length"
            return 400, error_body(400, too_long)
        code, payload, _ = self.render(body, self._choose(body, step), rec)
        return code, payload

    def default_reply(self, body: dict[str, Any]) -> str:
        """See :func:`~prism_review.testing.llm_reply.default_reply` (with ``schema_seed``)."""
        return default_reply(body, self.schema_seed)


def main(argv: list[str] | None = None) -> None:
    """``python -m prism_review.testing.llm_server --latency 0.2``: serve until interrupted.

    Prints the base URL on the first line of stdout (for benchmarks and manual trials).
    """
    import argparse
    import sys

    parser = argparse.ArgumentParser(description="loopback OpenAI-compatible chat server")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per reply")
    parser.add_argument("--schema-seed", type=int, default=None,
                        help="build replies from the sent JSON schema only, with this seed")
    parser.add_argument("--context-seed", type=int, default=None,
                        help="context-sensitive replies: numbers drawn from a hash of the whole request")
    parser.add_argument("--api-key", default=None,
                        help="answer 401 to a request whose bearer token is not this key")
    parser.add_argument("--faults", type=float, default=None,
                        help="replace this share of the replies by faults of every kind")
    parser.add_argument("--fault-seed", type=int, default=0, help="the seed of --faults")
    args = parser.parse_args(argv)
    mix = None if args.faults is None else FaultMix(args.faults, seed=args.fault_seed)
    server = LLMServer(latency=args.latency, schema_seed=args.schema_seed,
                       context_seed=args.context_seed, faults=mix)
    server.api_key = args.api_key
    server.start()
    print(server.base_url, flush=True)
    try:
        sys.stdin.read()  # serve until stdin closes or the process is interrupted
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
