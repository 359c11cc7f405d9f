"""Output budgets a server refuses: read the largest one it allows from its 400 message.

Judge steps ask for the reference's output budgets (35,000 tokens for flaw consolidation),
which some models or servers do not allow: OpenAI's gpt-4o-mini stops at 16,384 completion
tokens, a vLLM server at its context length minus the prompt. Such a request is answered 400
with the limit in the message; :func:`allowed_max_tokens` reads it so the provider can send the
same request once more with the largest budget the server accepts, instead of failing the unit.
"""

from __future__ import annotations

import re

#: the 400 is about the output budget at all
_ABOUT_BUDGET = re.compile(
    r"max_tokens|max_completion_tokens|max_output_tokens|completion tokens|maximum context length",
    re.I,
)
#: "This model supports at most 16384 completion tokens" (OpenAI), "must be at most 8192", ...
_AT_MOST = re.compile(r"(?:supports at most|must be at most|must be less than or equal to|"
                      r"maximum (?:allowed )?(?:value )?is)\s*(\d+)", re.I)
#: "maximum context length is 32768 tokens" (vLLM and OpenAI-style servers)
_CONTEXT = re.compile(r"maximum context length is (\d+) tokens", re.I)
#: the prompt's share, as vLLM states it in either of its message forms
_PROMPT = re.compile(r"\((\d+) in the messages|request has (\d+) input tokens", re.I)


def allowed_max_tokens(message: str, requested: int) -> int | None:
    """The largest output budget the server's error ``message`` allows, when it is positive and
    below ``requested``; None when the message states no usable limit."""
    if not _ABOUT_BUDGET.search(message):
        return None
    allowed: int | None = None
    ctx = _CONTEXT.search(message)
    if ctx:
        prompt = _PROMPT.search(message)
        if prompt:
            allowed = int(ctx.group(1)) - int(prompt.group(1) or prompt.group(2))
    if allowed is None:
        m = _AT_MOST.search(message)
        if m:
            allowed = int(m.group(1))
    return allowed if allowed is not None and 0 < allowed < requested else None


def is_model_wide(message: str) -> bool:
    """True when the limit is the model's own (the same for every prompt), not the context's."""
    return _CONTEXT.search(message) is None


__all__ = ["allowed_max_tokens", "is_model_wide"]
