"""The LLM layer's own exception family (vendor SDK errors are translated into these)."""

from __future__ import annotations

from typing import Any


class LLMError(Exception):
    """Base class of every error raised by :mod:`prism_review.llm`."""


class ConfigError(LLMError):
    """A judge spec, config file or credential problem found before any call is made."""


class ProviderError(LLMError):
    """One attempt at a model call failed: what a provider's API object raises (never an SDK
    exception) from one ``generate`` attempt, or from reading one reply (a Batch API line:
    that line is then retried live).

    ``retryable`` says whether another attempt may succeed (408/409/429/5xx, a timeout, a
    dropped connection, a body that is no chat completion); ``status`` is the HTTP status when
    there was one, ``retry_after`` the wait the server asked for. It is *not* final: the call
    manager (:mod:`prism_review.llm.calls`) retries a retryable one with back-off, and when it
    gives up it does not raise but records the failure in the call's outcome and counts it
    towards ``max_errors``. A non-retryable failure (a refused 4xx) leaves the step unscored; a
    retryable one still failing after the last retry becomes a :class:`TransportError`, raised
    by the judge. What reaches a judge's caller is therefore only one of the subclasses,
    :class:`FatalProviderError` or :class:`TransportError`.
    """

    def __init__(self, message: str, *, provider: str = "", status: int | None = None,
                 retryable: bool = False, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.provider = provider
        self.status = status
        self.retryable = retryable


class FatalProviderError(ProviderError):
    """A failure no other call can avoid either: a rejected key (401, or Gemini's 400
    ``API_KEY_INVALID``), no permission (403), an unknown model or URL (404), a redirect, a
    server that never answered, or a Batch API request that keeps failing or is refused.

    It is never retried and never recorded as a call outcome: the call manager counts it and
    re-raises it, the judge lets it through, and the runner stops (exit 3) instead of recording
    every item as unscored.
    """


class NoLargerBudget(ProviderError):
    """The longer re-ask of a cut reply was not sent: the server allows no larger output budget
    for this prompt than the one the first ask already had (``allowed``), so the same request
    would be cut, and paid, again. Not a failed call (nothing was answered or billed): the call
    manager does not count it towards ``max_errors``, and the judge leaves the step unscored
    as for a reply cut at the step's cap."""

    def __init__(self, message: str, *, provider: str = "", allowed: int) -> None:
        super().__init__(message, provider=provider, status=400, retryable=False)
        self.allowed = allowed


class TooManyErrors(LLMError):
    """The max-errors cutoff was reached; the runner should stop cleanly."""

    def __init__(self, errors: int, limit: int, last: str | None = None) -> None:
        msg = f"stopping: {errors} failed LLM calls reached the max-errors limit ({limit})"
        if last:
            msg += f"; last error: {last}"
        super().__init__(msg)
        self.errors = errors
        self.limit = limit


class TransportError(ProviderError):
    """A call got no reply at all (connection, timeout, 429 or 5xx after every retry), raised
    by the judge for the step (``step``) whose call it was.

    Unlike a reply that was received and could not be used (that step is *unscored*), a
    transport failure says nothing about the item: the judge raises it so the unit is not
    finished and not written, and a re-run computes it.
    """

    def __init__(self, step: str, message: str) -> None:
        super().__init__(f"{step}: no reply from the model: {message}", retryable=True)
        self.step = step
        self.detail = message

    def __reduce__(self) -> Any:  # pickled to and from workers
        if type(self).__init__ is not TransportError.__init__ and not isinstance(
                self, TransientFailure):
            return super().__reduce__()  # a subclass with its own arguments
        return type(self), (self.step, self.detail)


class TransientFailure(TransportError):
    """A step got replies, but only unusable ones that the model never repeated (invalid JSON,
    a reply cut short, an answer off the schema), after every retry: a fault, not an answer.
    Raised by the judge like :class:`TransportError`, so the unit is not written, nothing is
    memoised, and the next run in the same folder computes it again; counted in the judge's
    ``transient`` total, apart from the deterministic ``unscored`` steps."""

    def __init__(self, step: str, message: str) -> None:
        ProviderError.__init__(self, f"{step}: {message}", retryable=True)
        self.step = step
        self.detail = message
