"""The LLM layer's own exception family (vendor SDK errors are translated into these)."""

from __future__ import annotations


class LLMError(Exception):
    """Base class of every error raised by :mod:`prism_review.llm`."""


class ConfigError(LLMError):
    """A judge spec, config file or credential problem found before any call is made."""


class ProviderError(LLMError):
    """A call failed for good (after retries, or a non-retryable status)."""

    def __init__(self, message: str, *, provider: str = "", status: int | None = None,
                 retryable: bool = False, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.provider = provider
        self.status = status
        self.retryable = retryable


class FatalProviderError(ProviderError):
    """A failure no other call can avoid either (bad key, no permission, unknown model).

    The judge re-raises it so the runner stops instead of recording every item as unscored.
    """


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
    """A call got no reply at all (connection, timeout, 429 or 5xx after every retry).

    Unlike a reply that was received and could not be used (that step is *unscored*), a
    transport failure says nothing about the item: the judge raises it so the unit is not
    finished and not written, and a re-run computes it.
    """

    def __init__(self, step: str, message: str) -> None:
        super().__init__(f"{step}: no reply from the model: {message}", retryable=True)
        self.step = step
