"""The judge's re-asks: which unusable reply is a fault (:func:`malformed`), and the
corrective re-asks that follow a deterministic one (a repair or check follow-up with the
invalid reply and the problem, or the longer ask of a reply cut at its budget, within the
step's cap and the model's limit)."""

from __future__ import annotations

from pydantic import ValidationError

from prism_review.llm.calls import CallOutcome
from prism_review.llm.provider import ModelAPI, Request


def malformed(outcome: CallOutcome, req: Request) -> bool:
    """A reply that came back but cannot be used for a reason the same request may not meet
    again: not JSON, cut short without ``finish_reason="length"``, not the schema, or cut with
    ``"length"`` before its budget was spent (a server's fault, not the model's limit). A
    refused request (no text) and a reply cut at its budget are deterministic, not malformed."""
    if outcome.text is None:
        return False
    if outcome.finish_reason == "length":
        budget = outcome.granted or req.max_tokens
        return outcome.completion_tokens is not None and 0 < outcome.completion_tokens < budget
    return True


def model_limit(api: ModelAPI, model: str) -> int | None:
    """The largest output budget the model's server said it accepts, when it said so (the
    OpenAI-compatible API learns it from a 400, ``llm/budget.py``); None when unknown."""
    ceilings = getattr(api, "output_ceiling", None)
    return ceilings.get(model) if isinstance(ceilings, dict) else None


def granted_limit(req: Request, granted: int | None, model_limit: int | None) -> int | None:
    """The output limit a re-ask of ``req`` meets: the model's known one, and the budget the
    first ask was granted when the server shrank it (a vLLM server allows its context length
    minus the prompt: the same prompt is allowed no more the second time)."""
    if granted is None or granted >= req.max_tokens:
        return model_limit
    return granted if model_limit is None else min(granted, model_limit)


def longer_ask(req: Request, cap: int, model_limit: int | None) -> tuple[Request | None, int]:
    """(the re-ask of a reply cut at its budget, the budget the first ask had). The re-ask asks
    twice the budget, within the step's ``cap`` and the model's output limit; it is None when
    the first ask already had that much room (the same request again would be cut again, and
    paid again). It carries the first ask's budget as its ``floor``: a server that would
    shrink it to that much gets no second call."""
    limit = cap if model_limit is None else min(cap, model_limit)
    budget = min(2 * req.max_tokens, limit)
    first = min(req.max_tokens, limit)
    if budget <= first:
        return None, first
    return Request(**{**req.__dict__, "max_tokens": budget, "floor": first}), first


def not_asked_again(sent: int, error: str | None) -> str:
    return (f"reply cut at its output budget of {sent} tokens, the step's cap or the model's "
            f"limit (for this prompt): not asked again ({error})")


def follow_up(req: Request, reply: str, prompt: str) -> Request:
    messages = [*req.messages, {"role": "assistant", "content": reply or "(empty reply)"},
                {"role": "user", "content": prompt}]
    return Request(**{**req.__dict__, "messages": messages, "floor": 0})


def short_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        parts = [f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}"
                 for e in exc.errors()[:8]]
        return "the JSON does not match the schema: " + "; ".join(parts)
    return str(exc)
