"""Model calls: cache, in-flight sharing, concurrency and rate limits, retries, usage and cost.

:class:`CallManager` turns one :class:`~prism_review.llm.provider.Request` into a
:class:`CallOutcome`:

1. the request hash (:func:`~prism_review.llm.cache.request_key` over provider, base URL, model,
   messages, temperature, token budget, schema, seed and epoch) names the call everywhere;
2. every call, whatever its temperature, is answered from the on-disk cache when possible (the
   same request with the same settings is the same draw; a new seed or epoch is a new key),
   and identical requests already in flight share one call; a cache failure is a miss;
3. otherwise the call waits for the RPM/TPM limiters and a per-provider concurrency slot, and
   is retried with exponential back-off and jitter while the error is retryable (``retry-after``
   honoured). SDK retries are off, so every attempt is counted here;
4. a call that still fails counts towards ``max_errors``; at the limit every call raises
   :class:`~prism_review.llm.errors.TooManyErrors`. A call that got no reply for transport
   reasons (retryable errors after the last retry) is marked ``transport`` in its outcome: the
   judge raises it rather than recording the step as unscored.
5. in batch mode (``batch`` set, see :mod:`prism_review.llm.batch`) a cache miss is not fetched:
   it is queued for the run's next batch and its outcome is ``deferred``; a reply a batch brought
   back is accounted at the batch price and stored under the same key.
6. a reply the judge cannot use (not JSON, cut short, not the schema) is dropped from the cache
   (:meth:`CallManager.forget`), and the judge sends the same request again with ``fresh`` set
   (no cache, no sharing, no batch) within the retries ``retries`` leaves: transport retries
   and these share one budget, ``max_retries`` per ask (see :mod:`prism_review.llm.judge`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from prism_review.llm.batch import BatchQueue
from prism_review.llm.cache import ResponseCache, request_key
from prism_review.llm.errors import FatalProviderError, NoLargerBudget, ProviderError, TooManyErrors
from prism_review.llm.limits import RateLimiter, backoff_delay
from prism_review.llm.pricing import PriceTable
from prism_review.llm.provider import Generation, ModelAPI, Request, is_reasoning_model
from prism_review.llm.settings import Settings
from prism_review.llm.stats import JudgeStats

__all__ = ["CACHE_KEY_VERSION", "CallManager", "CallOutcome", "JudgeStats"]

log = logging.getLogger("prism_review.llm")
CACHE_KEY_VERSION = 2  # 2: base URL in the key


@dataclass
class CallOutcome:
    """One model call's reply (or error), whether it came from the cache, and its hash."""

    key: str
    text: str | None = None
    gen: Generation | None = None
    cached: bool = False
    error: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    #: the call got no reply (connection, timeout, 429/5xx after every retry)
    transport: bool = False
    #: the server's finish reason (``"length"``: cut at the token budget), cached ones included
    finish_reason: str | None = None
    #: batch mode: the request was queued for the next batch, no reply yet
    deferred: bool = False
    #: the output budget the reply was granted (``Generation.max_tokens``, cached ones
    #: included); None when unknown (then the request's own)
    granted: int | None = None
    #: not sent: the server allows this prompt no larger budget than ``req.floor``
    #: (:class:`~prism_review.llm.errors.NoLargerBudget`)
    no_larger_budget: bool = False
    #: the reply's completion tokens (cached ones included); None when unknown
    completion_tokens: int | None = None
    #: transport retries this call used (of the ``retries`` it was allowed)
    retries: int = 0
    #: set by the judge: the reply is unusable, was never repeated, and every retry is spent
    transient: bool = False
    #: an unusable reply the model repeated to this request (its own answer), remembered for
    #: the run (:attr:`CallManager.unusable`), never cached
    confirmed: bool = False


class CallManager:
    """Runs model calls for a judge (see the module docstring)."""

    def __init__(self, settings: Settings, *, cache: ResponseCache | None, prices: PriceTable,
                 epoch: int | None = None) -> None:
        self.settings = settings
        self.cache = cache
        self.prices = prices
        self.epoch = epoch
        self.stats = JudgeStats()
        self._limiters: dict[str, RateLimiter] = {}
        #: builds the limiter of one (provider, model): ``(rpm, tpm, tag) -> RateLimiter``; the
        #: Ray engine swaps in one that shares the limits across its workers
        self.limiter_factory: Callable[[float, float, str], Any] = (
            lambda rpm, tpm, tag: RateLimiter(rpm, tpm)
        )
        self._semaphores: dict[tuple[int, str], asyncio.Semaphore] = {}
        self._inflight: dict[tuple[int, str], asyncio.Future[CallOutcome]] = {}
        self._last_error: str | None = None
        #: replies that could not be stored in the cache (said once, then counted)
        self.cache_write_failures = 0
        self._digests: dict[int, tuple[dict[str, Any], str]] = {}
        #: batch mode: cache misses are queued here instead of fetched
        self.batch: BatchQueue | None = None
        #: calls in progress (batch mode waits for none before submitting)
        self.active = 0
        #: the confirmed unusable replies by key (this process only): a later pass or unit
        #: meets the model's answer again instead of asking twice more
        self.unusable: dict[str, CallOutcome] = {}

    def _semaphore(self, api: ModelAPI) -> asyncio.Semaphore:
        slot = (id(asyncio.get_running_loop()), f"{api.provider}@{api.base_url}")
        if slot not in self._semaphores:
            self._semaphores[slot] = asyncio.Semaphore(int(self.settings.get("concurrency")))
        return self._semaphores[slot]

    def _limiter(self, api: ModelAPI, model: str) -> RateLimiter:
        tag = f"{api.provider}:{model}"
        if tag not in self._limiters:
            self._limiters[tag] = self.limiter_factory(self.settings.get("rpm") or 0.0,
                                                       self.settings.get("tpm") or 0.0, tag)
        return self._limiters[tag]

    # -- one model call -------------------------------------------------------------------
    def _cache_payload(self, api: ModelAPI, req: Request) -> dict[str, Any]:
        return {"v": CACHE_KEY_VERSION, "provider": api.provider,
                "base_url": api.base_url.rstrip("/"), "model": req.model,
                "messages": req.messages, "temperature": req.temperature,
                "max_tokens": req.max_tokens, "schema": self._schema_digest(req.schema),
                "schema_name": req.schema_name, "strict": req.strict, "seed": req.seed,
                "epoch": self.epoch}

    def _schema_digest(self, schema: dict[str, Any] | None) -> str | None:
        """Hash of a response schema, memoised (schemas are built once per output model)."""
        if schema is None:
            return None
        slot = id(schema)
        hit = self._digests.get(slot)
        if hit is None or hit[0] is not schema:
            if len(self._digests) > 512:  # per-input schemas (enums of ids): keep memory flat
                self._digests.clear()
            hit = self._digests[slot] = (schema, request_key(schema))
        return hit[1]

    async def call(self, api: ModelAPI, req: Request, *, fresh: bool = False,
                   retries: int | None = None) -> CallOutcome:
        """``req``'s outcome; ``fresh``: sent to the model live whatever the cache, the calls
        in flight or a batch hold (the retry of an unusable reply); ``retries``: the transport
        retries it may use (default ``max_retries``)."""
        self.active += 1
        try:
            return await self._call(api, req, fresh, retries)
        finally:
            self.active -= 1

    async def forget(self, key: str, text: str | None = None) -> None:
        """Drop ``key``'s reply from the cache: the judge could not use it (nothing failed is
        kept for a later run to reuse); with ``text``, only that reply, not a usable one another
        call (a worker, a concurrent retry) stored under the key since. A cache failure is only
        logged."""
        if self.cache is None:
            return
        try:
            await asyncio.to_thread(self.cache.delete, key, text)
        except Exception as exc:  # noqa: BLE001 - a reply that stays is retried when read
            log.warning("LLM cache delete failed (%s: %s)", type(exc).__name__, exc)

    async def _call(self, api: ModelAPI, req: Request, fresh: bool,
                    retries: int | None) -> CallOutcome:
        key = request_key(self._cache_payload(api, req))
        params = {"temperature": None if is_reasoning_model(req.model) else req.temperature,
                  "max_tokens": req.max_tokens, "seed": req.seed, "epoch": self.epoch,
                  "schema": req.schema_name, "strict": req.strict}
        if not fresh and key in self.unusable:
            self.stats.usage.cache_hits += 1
            return replace(self.unusable[key], cached=True, gen=None, retries=0)
        if fresh and self.batch is not None and self.batch.estimate_only:
            fresh = False  # a dry run sends nothing: the retry is queued like any miss
        if self.batch is not None and not fresh:
            gen = self.batch.take(key)
            if gen is not None:  # brought back by a batch: a model call like a live one
                params["response_mode"] = gen.response_mode
                params["batch"] = True
                return CallOutcome(key, gen.text, gen=gen, params=params,
                                   finish_reason=gen.finish_reason, granted=gen.max_tokens,
                                   completion_tokens=gen.completion_tokens)
        if self.cache is None and not fresh:
            return await self._miss(api, req, key, params)
        # an identical request already in flight (or being looked up): share its outcome (a
        # fresh one shares only with fresh ones: the retries of the same unusable reply)
        slot = (id(asyncio.get_running_loop()), f"fresh:{key}" if fresh else key)
        pending = self._inflight.get(slot)
        if pending is not None:
            shared = await asyncio.shield(pending)
            if shared.text is None:
                return shared
            self.stats.usage.cache_hits += 1
            return CallOutcome(key, shared.text, cached=True, params=shared.params,
                               finish_reason=shared.finish_reason, granted=shared.granted,
                               completion_tokens=shared.completion_tokens)
        task = asyncio.ensure_future(self._fetch(api, req, key, params, retries) if fresh
                                     else self._cached_or_fetch(api, req, key, params))
        self._inflight[slot] = task
        task.add_done_callback(lambda _t: self._inflight.pop(slot, None))
        return await asyncio.shield(task)

    async def _cached_or_fetch(self, api: ModelAPI, req: Request, key: str,
                               params: dict[str, Any]) -> CallOutcome:
        assert self.cache is not None
        try:
            hit = await asyncio.to_thread(self.cache.get, key)
        except Exception as exc:  # noqa: BLE001 - a broken cache is a miss, never a failed unit
            log.warning("%s: LLM cache read failed (%s: %s); calling the model", req.step,
                        type(exc).__name__, exc)
            hit = None
        if hit is not None:
            self.stats.usage.cache_hits += 1
            params["response_mode"] = hit[1].get("response_mode")
            return CallOutcome(key, hit[0], cached=True, params=params,
                               finish_reason=hit[1].get("finish_reason"),
                               granted=hit[1].get("max_tokens"),
                               completion_tokens=hit[1].get("completion_tokens"))
        return await self._miss(api, req, key, params)

    async def _miss(self, api: ModelAPI, req: Request, key: str,
                    params: dict[str, Any]) -> CallOutcome:
        """A call the cache cannot answer: fetched, or in batch mode queued for the next batch
        (unless its batch line failed: then it is made live)."""
        if self.batch is None or self.batch.goes_live(key):
            return await self._fetch(api, req, key, params)
        self.batch.defer(key, api, req)
        return CallOutcome(key, params=params, deferred=True)

    async def _fetch(self, api: ModelAPI, req: Request, key: str, params: dict[str, Any],
                     retries: int | None = None) -> CallOutcome:
        """Call the model (with limits and retries), account for it, store it in the cache."""
        limiter = self._limiter(api, req.model)
        estimate = sum(len(m["content"]) for m in req.messages) // 4 + req.max_tokens
        max_retries = int(self.settings.get("max_retries")) if retries is None else retries
        attempt = 0
        while True:
            self.raise_if_stopped()
            await limiter.acquire(estimate)
            try:
                async with self._semaphore(api):
                    gen = await api.generate(req)
            except NoLargerBudget as exc:  # nothing sent that could be answered or billed
                limiter.settle(estimate, None)
                return CallOutcome(key, error=str(exc), params=params, no_larger_budget=True)
            except FatalProviderError as exc:
                limiter.settle(estimate, None)
                self._count_error(str(exc))
                raise
            except ProviderError as exc:
                limiter.settle(estimate, None)
                attempt += 1
                if exc.retryable and attempt <= max_retries:
                    self.stats.retries += 1
                    delay = backoff_delay(attempt, float(self.settings.get("retry_base")),
                                          float(self.settings.get("retry_max")), exc.retry_after)
                    log.info("%s: %s; retry %d/%d in %.2fs", req.step, exc, attempt,
                             max_retries, delay)
                    await asyncio.sleep(delay)
                    continue
                log.warning("%s: giving up after %d attempt(s): %s", req.step, attempt, exc)
                self._count_error(str(exc))
                return CallOutcome(key, error=str(exc), params=params, transport=exc.retryable,
                                   retries=attempt - 1)
            limiter.settle(estimate, gen.prompt_tokens + gen.completion_tokens)
            self._account(req.model, gen)
            params["response_mode"] = gen.response_mode
            await self._store(key, req.model, gen, req.step)
            return CallOutcome(key, gen.text, gen=gen, params=params,
                               finish_reason=gen.finish_reason, granted=gen.max_tokens,
                               completion_tokens=gen.completion_tokens, retries=attempt)

    async def _store(self, key: str, model: str, gen: Generation, step: str) -> None:
        if self.cache is None:
            return
        usage = {"prompt_tokens": gen.prompt_tokens, "response_mode": gen.response_mode,
                 "completion_tokens": gen.completion_tokens, "finish_reason": gen.finish_reason}
        if gen.max_tokens is not None:  # the budget granted: a cut reply's re-ask needs it
            usage["max_tokens"] = gen.max_tokens
        try:
            await asyncio.to_thread(self.cache.put, key, model, gen.text, usage)
        except Exception as exc:  # noqa: BLE001 - the reply is good; only reuse is lost
            # said once, then counted at 10, 100, ...: a full disk fails every write
            self.cache_write_failures += 1
            n = self.cache_write_failures
            if n == 1:
                log.warning("%s: LLM cache write failed (%s: %s); the reply is used but not "
                            "stored (further failures are counted)", step, type(exc).__name__, exc)
            elif str(n).rstrip("0") == "1":
                log.warning("LLM cache writes failed %d times so far (%s: %s)", n,
                            type(exc).__name__, exc)

    async def store_batch_reply(self, key: str, model: str, gen: Generation) -> None:
        """Account a reply a batch brought back (at the batch price) and cache it under the
        key the live call would have used."""
        self._account(model, gen, batch=True)
        await self._store(key, model, gen, "batch")

    def _account(self, model: str, gen: Generation, *, batch: bool = False) -> None:
        self.stats.usage.calls += 1
        self.stats.batch_calls += int(batch)
        if gen.finish_reason == "length":
            self.stats.truncated += 1
        self.stats.usage.prompt_tokens += gen.prompt_tokens
        self.stats.usage.completion_tokens += gen.completion_tokens
        self.stats.cached_prompt_tokens += gen.cached_prompt_tokens
        cost = self.prices.cost(model, gen.prompt_tokens, gen.completion_tokens, gen.cached_prompt_tokens,
                                batch=batch)
        if cost is None:
            self.stats.unpriced_calls += 1
        else:
            self.stats.usage.cost_usd += cost
        gen.extra["cost_usd"] = cost

    def _count_error(self, message: str) -> None:
        self.stats.errors += 1
        self._last_error = message

    def raise_if_stopped(self) -> None:
        limit = int(self.settings.get("max_errors") or 0)
        if limit > 0 and self.stats.errors >= limit:
            raise TooManyErrors(self.stats.errors, limit, self._last_error)

