"""What the loopback server (:mod:`prism_review.testing.llm_server`) answers, apart from HTTP:
the scripted misbehaviours (:class:`Fault`), the record of each exchange (:class:`RecordedRequest`),
the default reply built from the request's schema (:func:`default_reply`), and how a chosen reply
becomes an OpenAI chat-completion payload (:func:`render_reply`, shared by the chat endpoint and
the Batch API's lines).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from prism_review.testing.schema_echo import example_for_schema
from prism_review.testing.schema_fill import fill_schema, seed_for


@dataclass(frozen=True)
class Fault:
    """A scripted misbehaviour. Build with the class methods."""

    kind: str
    status_code: int = 200
    message: str = ""
    retry_after: float | None = None
    delay: float = 0.0
    then: Any = None

    @classmethod
    def status(cls, code: int, message: str = "", retry_after: float | None = None) -> Fault:
        """An HTTP error reply (429, 500, 400, 401, ...), optionally with ``retry-after``."""
        return cls("status", status_code=code, message=message or f"scripted {code}",
                   retry_after=retry_after)

    @classmethod
    def slow(cls, seconds: float, then: Any = None) -> Fault:
        """Wait ``seconds`` and then answer ``then`` (or the default reply)."""
        return cls("slow", delay=seconds, then=then)

    @classmethod
    def hang(cls, seconds: float = 5.0) -> Fault:
        """Hold the connection ``seconds`` (longer than the client timeout), then close it."""
        return cls("hang", delay=seconds)

    @classmethod
    def malformed(cls, text: str = 'Sure! {"answer": oops, unquoted ') -> Fault:
        """A 200 reply whose content is not JSON."""
        return cls("content", then=text)

    @classmethod
    def truncated(cls, reply: Any = None, keep: float = 0.5) -> Fault:
        """A 200 reply cut at ``keep`` of its length, with ``finish_reason="length"``, as a
        model cut at its budget sends it: ``usage`` counts the request's whole ``max_tokens``."""
        return cls("truncated", then=reply, delay=keep)

    @classmethod
    def early_length(cls, reply: Any = None, keep: float = 0.5) -> Fault:
        """A reply cut at ``keep`` of its length with ``finish_reason="length"`` although its
        budget was not spent (``usage`` counts the text sent): a server's fault."""
        return cls("early_length", then=reply, delay=keep)

    @classmethod
    def empty(cls) -> Fault:
        """A 200 reply with empty content."""
        return cls("content", then="")

    @classmethod
    def disconnect(cls) -> Fault:
        """Close the connection without answering (a connection error for the client)."""
        return cls("disconnect")

    @classmethod
    def bad_body(cls) -> Fault:
        """A 200 reply whose HTTP body is not JSON at all."""
        return cls("bad_body")


Reply = str | dict[str, Any] | list[Any] | Fault
Responder = Callable[[dict[str, Any]], Reply]


@dataclass
class RecordedRequest:
    """One request the server received (``Authorization`` redacted) and what it answered."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    step: str | None
    reply: str | None = None
    fault: str | None = None
    finish: str | None = None
    time: float = field(default_factory=time.monotonic)

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The chat messages of the request."""
        return list(self.body.get("messages", []))


def _as_text(reply: Any) -> str:
    return reply if isinstance(reply, str) else json.dumps(reply)


class ReplyOwner(Protocol):
    """What :func:`render_reply` reads of the server (``LLMServer``)."""

    requests: list[RecordedRequest]
    prompt_cache: bool
    reasoning_outside_completion: bool
    max_output_tokens: int | None
    enforce_max_tokens: bool
    context_length: int | None

    def default_reply(self, body: dict[str, Any]) -> str: ...

    def cached_prefix_tokens(self, body: dict[str, Any]) -> int: ...


def default_reply(body: dict[str, Any], schema_seed: int | None = None) -> str:
    """The schema-aware echo (a minimal valid instance of the requested schema), or with
    ``schema_seed`` set, an instance built from the schema as constrained decoding does."""
    rf = body.get("response_format") or {}
    if rf.get("type") == "json_schema":
        schema = (rf.get("json_schema") or {}).get("schema", {})
        if schema_seed is not None:
            return json.dumps(fill_schema(schema, seed_for(body, schema_seed)))
        return json.dumps(example_for_schema(schema))
    if rf.get("type") == "json_object":
        return "{}"
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    return str(users[-1]["content"]) if users else ""


def prompt_tokens(body: dict[str, Any]) -> int:
    """The prompt's tokens as the server's ``usage`` counts them (4 characters each, plus 1)."""
    return sum(len(str(m.get("content", ""))) for m in body.get("messages", [])) // 4 + 1


def requested_tokens(body: dict[str, Any]) -> int | None:
    """The output budget a chat-completion body asks for (either parameter name)."""
    asked = body.get("max_completion_tokens") or body.get("max_tokens")
    return None if asked is None else int(asked)


def context_error(owner: ReplyOwner, body: dict[str, Any]) -> str | None:
    """vLLM's 400 message for a request whose prompt and ``max_tokens`` together exceed the
    server's ``context_length`` (its wording, vLLM ``serving_engine._validate_input``); None
    when the request fits or no context length is set."""
    if owner.context_length is None:
        return None
    asked = requested_tokens(body)
    prompt = prompt_tokens(body)
    if asked is None or prompt + asked <= owner.context_length:
        return None
    return (f"This model's maximum context length is {owner.context_length} tokens. However, "
            f"you requested {prompt + asked} tokens ({prompt} in the messages, {asked} in "
            "the completion). Please reduce the length of the messages or completion.")


def error_body(code: int, message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "scripted", "code": code}}


def render_reply(owner: ReplyOwner, body: dict[str, Any], reply: Reply,
                 rec: RecordedRequest) -> tuple[int, Any, dict[str, str]]:
    """What the chat endpoint answers to ``body`` given the chosen ``reply``: ``(status, JSON
    payload or raw bytes, headers)``; status 0 means no answer (a hang or a disconnect)."""
    finish, spent = "stop", False
    if isinstance(reply, Fault):
        rec.fault = reply.kind
        if reply.kind == "status":
            hdrs = {} if reply.retry_after is None else {"retry-after": f"{reply.retry_after:g}"}
            return reply.status_code, error_body(reply.status_code, reply.message), hdrs
        if reply.kind == "hang":
            return 0, None, {"hang": str(reply.delay)}
        if reply.kind == "disconnect":
            return 0, None, {}
        if reply.kind == "bad_body":
            return 200, b"<html>gateway error</html>", {}
        if reply.kind == "slow":
            time.sleep(reply.delay)
            reply = reply.then if reply.then is not None else owner.default_reply(body)
        elif reply.kind in ("truncated", "early_length"):
            spent = reply.kind == "truncated"
            full = _as_text(reply.then if reply.then is not None else owner.default_reply(body))
            reply, finish = full[: max(1, int(len(full) * reply.delay))], "length"
        else:  # "content": malformed or empty
            reply = reply.then
    text = _as_text(reply)
    requested = requested_tokens(body)
    honours_budget = owner.enforce_max_tokens or owner.context_length is not None
    limits = [n for n in (owner.max_output_tokens,
                          requested if honours_budget else None) if n is not None]
    if limits and len(text) // 4 + 1 > min(limits):  # a model stops at its output limit
        text, finish = text[: 4 * min(limits)], "length"
    rec.reply, rec.finish = text, finish
    prompt = prompt_tokens(body)
    used = shown = len(text) // 4 + 1
    if spent and requested is not None:  # a reply cut at its budget spent all of it
        used = max(used, requested)
        if not owner.reasoning_outside_completion:  # else the rest was reasoning, in the total
            shown = used
    completion = {
        "id": f"chatcmpl-loopback-{len(owner.requests)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "test-model"),
        "choices": [{"index": 0, "finish_reason": finish,
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": shown,
                  "total_tokens": prompt + used},
    }
    if owner.prompt_cache:
        completion["usage"]["prompt_tokens_details"] = {"cached_tokens": owner.cached_prefix_tokens(body)}
    return 200, completion, {}
