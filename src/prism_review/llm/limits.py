"""Request-rate and token-rate limits, and the retry back-off schedule.

A :class:`TokenBucket` holds up to ``capacity`` units and refills at ``rate`` units per second.
``reserve(n)`` always takes the units (the balance may go negative) and returns how long the
caller must wait before using them; concurrent callers therefore queue up fairly without a lock
held across the sleep. RPM uses capacity ``rpm`` and rate ``rpm/60``; TPM likewise with tokens.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Callable, Mapping


class TokenBucket:
    """A token bucket whose balance may go negative (see the module docstring)."""

    def __init__(self, rate: float, capacity: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0 or capacity <= 0:
            raise ValueError("rate and capacity must be positive")
        self.rate = float(rate)
        self.capacity = float(capacity)
        self.tokens = float(capacity)
        self._clock = clock
        self._stamp = clock()

    def _refill(self) -> None:
        now = self._clock()
        self.tokens = min(self.capacity, self.tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    def reserve(self, n: float) -> float:
        """Take ``n`` units now; return the seconds to wait before they are really available."""
        self._refill()
        n = min(float(n), self.capacity)
        before = self.tokens
        self.tokens -= n
        if before >= n:
            return 0.0
        return (n - before) / self.rate

    def refund(self, n: float) -> None:
        """Give back ``n`` units (an over-estimate or a failed call), capped at capacity."""
        self._refill()
        self.tokens = min(self.capacity, self.tokens + max(0.0, float(n)))


class RateLimiter:
    """Requests-per-minute and tokens-per-minute limits (0 disables a limit)."""

    def __init__(self, rpm: float = 0.0, tpm: float = 0.0) -> None:
        self.requests = TokenBucket(rpm / 60.0, rpm) if rpm > 0 else None
        self.tokens = TokenBucket(tpm / 60.0, tpm) if tpm > 0 else None
        self.waited = 0.0

    async def acquire(self, tokens: int) -> None:
        """Wait until one more request of about ``tokens`` tokens is allowed."""
        wait = 0.0
        if self.requests is not None:
            wait = max(wait, self.requests.reserve(1))
        if self.tokens is not None:
            wait = max(wait, self.tokens.reserve(tokens))
        if wait > 0:
            self.waited += wait
            await asyncio.sleep(wait)

    def settle(self, reserved: int, used: int | None) -> None:
        """Refund the unused part of a token reservation (all of it when the call failed)."""
        if self.tokens is not None:
            self.tokens.refund(reserved - used if used is not None else reserved)


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """The server's requested delay from ``retry-after-ms`` or ``retry-after`` (secs or date)."""
    if not headers:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, parsed.timestamp() - time.time())


def backoff_delay(attempt: int, base: float, cap: float, retry_after: float | None = None,
                  rng: random.Random | None = None) -> float:
    """Delay before retry ``attempt`` (1-based): ``retry-after`` if given, else full jitter.

    Exponential back-off with jitter: uniform in ``[base·2^(attempt-1)/2, base·2^(attempt-1)]``,
    capped at ``cap``. A server's ``retry-after`` is honoured as given (also capped at ``cap``).
    """
    if retry_after is not None:
        return min(cap, retry_after)
    top = min(cap, base * (2 ** (attempt - 1)))
    r = (rng or random).random()
    return top * (0.5 + 0.5 * r)
