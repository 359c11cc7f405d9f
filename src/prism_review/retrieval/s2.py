"""A small async Semantic Scholar client for ``/graph/v1/paper/search`` (prism-reference §5.3).

* API key optional: ``SEMANTIC_SCHOLAR_API_KEY`` or the comma-separated
  ``SEMANTIC_SCHOLAR_API_KEYS`` (sent as ``x-api-key``); several keys are used round-robin with
  fail-over; the base URL comes from ``SEMANTIC_SCHOLAR_API_BASE``.
* Per key, one request in flight and a minimum spacing (1.5 s by default) between the previous
  reply and the next request, so the server sees the gap whatever the latency.
* Retries on 429, 500/502/503/504, network and JSON errors with back-off
  ``min(retry_delay · 2^attempt, max_delay)`` (a longer ``Retry-After`` is honoured, within the
  cap); 401/403 fail immediately (after trying the other keys); other 4xx fail immediately.
* A server that cannot be connected to (no network, DNS failure, refused, connect timeout of
  10 s) before it ever answered stops the run (a fatal :class:`S2Error`) after one more try,
  instead of every search backing off for minutes; once it has answered, such errors are retried.
* No server-side year filter: the pool applies the venue-year filter itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

DEFAULT_BASE = "https://api.semanticscholar.org/graph/v1"
SEARCH_FIELDS = "title,abstract,year,venue,authors,externalIds,url,openAccessPdf,publicationVenue"
RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
AUTH_STATUS = frozenset({401, 403})


class S2Error(RuntimeError):
    """A search that failed for good (after retries, or on a non-retryable status)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status

    unreachable = False

    @property
    def fatal(self) -> bool:
        """A rejected key or an unreachable server stops the whole run (every other search
        would fail the same way)."""
        return self.status in AUTH_STATUS or self.unreachable


class S2Unreachable(S2Error):
    """Semantic Scholar could not be connected to, and never answered in this run."""

    unreachable = True


def keys_from_env() -> list[str | None]:
    """Configured API keys, or ``[None]`` (anonymous) when there are none."""
    many = os.environ.get("SEMANTIC_SCHOLAR_API_KEYS", "")
    keys = [k.strip() for k in many.split(",") if k.strip()]
    one = os.environ.get("SEMANTIC_SCHOLAR_API_KEY", "").strip()
    if one and one not in keys:
        keys.insert(0, one)
    return list(keys) or [None]


class SemanticScholarClient:
    """``await client.search(query, limit)`` → the ``data`` list of ``/paper/search``."""

    name = "s2"

    def __init__(
        self,
        *,
        base_url: str | None = None,
        api_keys: list[str | None] | None = None,
        min_interval: float = 1.5,
        max_attempts: int | None = None,
        retry_delay: float = 1.0,
        max_delay: float = 60.0,
        timeout: float = 30.0,
        fields: str = SEARCH_FIELDS,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        self.base_url = (base_url or os.environ.get("SEMANTIC_SCHOLAR_API_BASE") or DEFAULT_BASE).rstrip("/")
        self.keys = api_keys if api_keys else keys_from_env()
        self.min_interval = min_interval
        self.max_attempts = max_attempts or int(os.environ.get("PHASE2_MAX_QUERY_ATTEMPTS", "8"))
        self.retry_delay = retry_delay
        self.max_delay = max_delay
        self.fields = fields
        self._sleep = sleep
        # one short-lived HTTP client per search: requests are seconds apart anyway, and the
        # client never outlives the event loop that made it (no unclosed-client noise at exit)
        self._client_args: dict[str, Any] = {
            "timeout": httpx.Timeout(timeout, connect=min(timeout, 10.0)), "transport": transport,
            "headers": {"User-Agent": "prism-review/0.1 (novelty retrieval)"},
        }
        self._rr = itertools.cycle(range(len(self.keys)))
        self._locks = {i: asyncio.Lock() for i in range(len(self.keys))}
        self._last = {i: float("-inf") for i in range(len(self.keys))}
        #: counters for the run manifest
        self.stats = {"requests": 0, "retries": 0, "failures": 0}
        self._reached = False  # the server has answered once (any status)
        self._connect_failures = 0

    async def _get(self, client: httpx.AsyncClient, ki: int, params: dict[str, str]) -> httpx.Response:
        """One request with key ``ki``: one in flight per key, started ≥ ``min_interval`` after
        the previous one's reply (so the server sees the spacing whatever the latency)."""
        key = self.keys[ki]
        headers = {"x-api-key": key} if key else {}
        async with self._locks[ki]:
            wait = self._last[ki] + self.min_interval - time.monotonic()
            if wait > 0:
                await self._sleep(wait)
            self.stats["requests"] += 1
            try:
                return await client.get(f"{self.base_url}/paper/search", params=params, headers=headers)
            finally:
                self._last[ki] = time.monotonic()

    def _backoff(self, attempt: int, retry_after: str | None) -> float:
        delay = min(self.retry_delay * (2**attempt), self.max_delay)
        if retry_after:
            with contextlib.suppress(ValueError):
                delay = max(delay, min(float(retry_after), self.max_delay))
        return delay

    async def search(self, query: str, limit: int = 10) -> list[dict[str, Any]]:
        """One search; raises :class:`S2Error` when it fails for good."""
        params = {"query": query, "limit": str(limit), "offset": "0", "fields": self.fields}
        start = next(self._rr)
        order = [(start + j) % len(self.keys) for j in range(len(self.keys))]
        async with httpx.AsyncClient(**self._client_args) as client:
            return await self._search(client, params, order)

    async def _search(self, client: httpx.AsyncClient, params: dict[str, str], order: list[int]
                      ) -> list[dict[str, Any]]:
        dead: set[int] = set()
        last_error = "no attempt made"
        status: int | None = None
        for attempt in range(self.max_attempts):
            live = [k for k in order if k not in dead]
            if not live:
                break
            ki = live[attempt % len(live)]
            retry_after = None
            try:
                resp = await self._get(client, ki, params)
            except httpx.TransportError as exc:
                last_error, status = f"network error: {type(exc).__name__}: {exc}", None
                if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout) and not self._reached:
                    self._connect_failures += 1
                    if self._connect_failures >= 2:
                        self.stats["failures"] += 1
                        raise S2Unreachable(
                            f"cannot reach Semantic Scholar at {self.base_url} ({last_error}); "
                            "without network use --retrieval local (after prism index build) "
                            "or --retrieval none"
                        ) from None
            else:
                self._reached = True
                status = resp.status_code
                if status == 200:
                    try:
                        data = resp.json().get("data") or []
                    except (ValueError, AttributeError):
                        last_error = "invalid JSON from Semantic Scholar"
                    else:
                        return [d for d in data if isinstance(d, dict)]
                elif status in AUTH_STATUS:
                    dead.add(ki)
                    last_error = f"HTTP {status} (API key rejected)"
                    if len(dead) == len(self.keys):
                        self.stats["failures"] += 1
                        raise S2Error(last_error, status)
                    continue
                elif status in RETRY_STATUS:
                    last_error = f"HTTP {status}"
                    retry_after = resp.headers.get("retry-after")
                else:
                    self.stats["failures"] += 1
                    raise S2Error(f"HTTP {status}: {resp.text[:200]}", status)
            if attempt + 1 < self.max_attempts:
                self.stats["retries"] += 1
                await self._sleep(self._backoff(attempt, retry_after))
        self.stats["failures"] += 1
        raise S2Error(f"{last_error} after {self.max_attempts} attempts", status)

    def describe(self) -> dict[str, Any]:
        """Settings for the run manifest (never the keys themselves)."""
        return {
            "backend": "s2",
            "base_url": self.base_url,
            "n_keys": sum(1 for k in self.keys if k),
            "min_interval": self.min_interval,
            "max_attempts": self.max_attempts,
        }

    async def aclose(self) -> None:
        """Nothing to release (clients are per search); kept for a uniform retriever interface."""
