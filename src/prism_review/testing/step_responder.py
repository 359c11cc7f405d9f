"""A loopback responder that answers some judge steps with functions of the request's material.

The decision judges (:mod:`~prism_review.testing.flaw_decisions`,
:mod:`~prism_review.testing.novelty_decisions`) each give a table from a step's response-schema
name to a function of the call's first user message; any other step goes to ``fallback`` (the
server's schema-driven reply, or another responder).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Responder = Callable[[dict[str, Any]], Any]


def step_responder(
    steps: dict[str, Callable[[str], dict[str, Any]]], fallback: Responder
) -> Responder:
    """A responder for :meth:`LLMServer.set_responder` deciding ``steps`` by their user message."""

    def answer(body: dict[str, Any]) -> Any:
        step = ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
        fn = steps.get(step or "")
        if fn is None:
            return fallback(body)
        # the request's material is in its first user message (a re-ask appends its own)
        user = next((m["content"] for m in body.get("messages", []) if m.get("role") == "user"), "")
        return fn(user if isinstance(user, str) else "")

    return answer
