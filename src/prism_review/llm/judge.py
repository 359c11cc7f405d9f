"""``LLMJudge``: runs judge steps on a chat model with structured output, repair and caching.

For one step the judge builds ``step.messages(inp)``, resolves the step's model, temperature and
token budget (:mod:`prism_review.llm.settings`), and asks for ``step.Output`` as a strict JSON
schema (falling back to JSON mode, then to a schema hint in the prompt, when a server rejects
it). The reply is parsed leniently (:mod:`prism_review.llm.parse`) and validated; if that fails
the judge re-asks once with the *full original messages* plus the invalid reply and the error;
if ``step.check()`` reports a problem it re-asks once stating it. A step that still fails is
``unscored`` with the raw reply kept — never a zero. ``step.finalize()`` is applied last.

Transport: per-provider concurrency limit, RPM/TPM limits, retries with exponential back-off and
jitter on 408/409/429/5xx, timeouts and connection errors (``retry-after`` honoured), none on
other 4xx. 401/403/404 raise :class:`FatalProviderError`; after ``max_errors`` failed calls every
call raises :class:`TooManyErrors` so the runner stops cleanly.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from prism_review.judge.base import JudgeStep, StepResult, Usage
from prism_review.llm.audit import AuditLog
from prism_review.llm.cache import ResponseCache, request_key
from prism_review.llm.errors import FatalProviderError, ProviderError, TooManyErrors
from prism_review.llm.limits import RateLimiter, backoff_delay
from prism_review.llm.parse import ReplyParseError, parse_json_object, response_schema, schema_name
from prism_review.llm.pricing import PriceTable
from prism_review.llm.provider import (
    PROVIDERS,
    Generation,
    ModelSpec,
    OpenAICompatibleAPI,
    Request,
    is_reasoning_model,
    parse_spec,
    resolve_endpoint,
)
from prism_review.llm.settings import Settings

log = logging.getLogger("prism_review.llm")
CACHE_KEY_VERSION = 1
REPAIR_PROMPT = (
    "Your previous reply could not be used: {error}\n"
    "Answer again from the start, following every instruction above. Reply with a single JSON "
    "object that matches the required schema and nothing else."
)
CHECK_PROMPT = (
    "Your previous answer has a problem: {problem}\n"
    "Fix it and reply again with the complete JSON object, following every instruction above."
)


@dataclass
class JudgeStats:
    """Live totals for progress bars and the run manifest."""

    steps: int = 0
    unscored: int = 0
    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    errors: int = 0
    retries: int = 0
    reasks: int = 0
    unpriced_calls: int = 0

    def as_dict(self) -> dict[str, Any]:
        """A plain-dict copy."""
        return asdict(self)


@dataclass
class _Outcome:
    key: str
    text: str | None = None
    gen: Generation | None = None
    cached: bool = False
    error: str | None = None
    params: dict[str, Any] = field(default_factory=dict)


class LLMJudge:
    """A :class:`~prism_review.judge.base.Judge` backed by a chat model (see module docstring)."""

    mode: Literal["offline", "llm"] = "llm"

    def __init__(self, spec: ModelSpec, *, settings: Settings, api_key: str | None = None,
                 base_url: str | None = None, cache: ResponseCache | None = None,
                 audit_path: str | Path | None = None, prices: PriceTable | None = None,
                 epoch: int | None = None) -> None:
        self.spec = spec
        self.name = spec.name
        self.settings = settings
        self.cache = cache
        self.audit = AuditLog(audit_path) if audit_path else None
        self.prices = prices or PriceTable.load(settings.get("prices"))
        self.epoch = epoch
        self.seed: int | None = settings.get("seed")
        self.stats = JudgeStats()
        self._api_key, self._base_url = api_key, base_url
        url, key = resolve_endpoint(spec, api_key=api_key, base_url=base_url)
        self.api = OpenAICompatibleAPI(spec, base_url=url, api_key=key)
        self._apis: dict[str, OpenAICompatibleAPI] = {spec.provider: self.api}
        self._limiters: dict[str, RateLimiter] = {}
        self._semaphores: dict[tuple[int, str], asyncio.Semaphore] = {}
        self._schemas: dict[type[BaseModel], tuple[dict[str, Any], bool]] = {}
        self._last_error: str | None = None
        self._step_conf: dict[str, dict[str, Any]] = {}
        self._inflight: dict[tuple[int, str], asyncio.Future[_Outcome]] = {}

    # -- settings -------------------------------------------------------------------------
    def _api_for(self, model_setting: str | None) -> tuple[OpenAICompatibleAPI, str]:
        if not model_setting:
            return self.api, self.spec.model
        head = model_setting.split("/", 1)[0]
        if head not in PROVIDERS:
            return self.api, model_setting
        other = parse_spec(model_setting)
        if other.provider == self.spec.provider and other.base_url is None:
            return self.api, other.model
        tag = f"{other.provider}@{other.base_url}" if other.base_url else other.provider
        if tag not in self._apis:
            url, key = resolve_endpoint(other, api_key=None, base_url=None)
            self._apis[tag] = OpenAICompatibleAPI(other, base_url=url, api_key=key)
        return self._apis[tag], other.model

    def _schema(self, model: type[BaseModel]) -> tuple[dict[str, Any], bool]:
        if model not in self._schemas:
            self._schemas[model] = response_schema(model)
        return self._schemas[model]

    def _semaphore(self, api: OpenAICompatibleAPI) -> asyncio.Semaphore:
        slot = (id(asyncio.get_running_loop()), f"{api.provider}@{api.base_url}")
        if slot not in self._semaphores:
            self._semaphores[slot] = asyncio.Semaphore(int(self.settings.get("concurrency")))
        return self._semaphores[slot]

    def _limiter(self, api: OpenAICompatibleAPI, model: str) -> RateLimiter:
        tag = f"{api.provider}:{model}"
        if tag not in self._limiters:
            self._limiters[tag] = RateLimiter(self.settings.get("rpm") or 0.0,
                                              self.settings.get("tpm") or 0.0)
        return self._limiters[tag]

    # -- one model call -------------------------------------------------------------------
    def _cache_payload(self, api: OpenAICompatibleAPI, req: Request) -> dict[str, Any]:
        return {"v": CACHE_KEY_VERSION, "provider": api.provider, "model": req.model,
                "messages": req.messages, "temperature": req.temperature,
                "max_tokens": req.max_tokens, "schema": req.schema, "schema_name":
                req.schema_name, "strict": req.strict, "seed": req.seed, "epoch": self.epoch}

    def _cacheable(self, req: Request) -> bool:
        return self.cache is not None and (req.temperature == 0.0 or req.seed is not None
                                           or self.epoch is not None)

    async def _call(self, api: OpenAICompatibleAPI, req: Request) -> _Outcome:
        key = request_key(self._cache_payload(api, req))
        params = {"temperature": None if is_reasoning_model(req.model) else req.temperature,
                  "max_tokens": req.max_tokens, "seed": req.seed, "epoch": self.epoch,
                  "schema": req.schema_name, "strict": req.strict}
        if not self._cacheable(req):
            return await self._fetch(api, req, key, params)
        assert self.cache is not None
        hit = await asyncio.to_thread(self.cache.get, key)
        if hit is not None:
            self.stats.cache_hits += 1
            params["response_mode"] = hit[1].get("response_mode")
            return _Outcome(key, hit[0], cached=True, params=params)
        # an identical request already in flight: share its reply instead of paying twice
        slot = (id(asyncio.get_running_loop()), key)
        pending = self._inflight.get(slot)
        if pending is not None:
            shared = await asyncio.shield(pending)
            if shared.text is not None:
                self.stats.cache_hits += 1
                return _Outcome(key, shared.text, cached=True, params=shared.params)
            return shared
        task = asyncio.ensure_future(self._fetch(api, req, key, params))
        self._inflight[slot] = task
        try:
            return await asyncio.shield(task)
        finally:
            if task.done():
                self._inflight.pop(slot, None)
            else:
                task.add_done_callback(lambda _t: self._inflight.pop(slot, None))

    async def _fetch(self, api: OpenAICompatibleAPI, req: Request, key: str,
                     params: dict[str, Any]) -> _Outcome:
        """Call the model (with limits and retries), account for it, store it in the cache."""
        limiter = self._limiter(api, req.model)
        estimate = sum(len(m["content"]) for m in req.messages) // 4 + req.max_tokens
        max_retries = int(self.settings.get("max_retries"))
        attempt = 0
        while True:
            self._raise_if_stopped()
            await limiter.acquire(estimate)
            try:
                async with self._semaphore(api):
                    gen = await api.generate(req)
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
                return _Outcome(key, error=str(exc), params=params)
            limiter.settle(estimate, gen.prompt_tokens + gen.completion_tokens)
            self._account(req.model, gen)
            params["response_mode"] = gen.response_mode
            if self._cacheable(req):
                assert self.cache is not None
                usage = {"prompt_tokens": gen.prompt_tokens, "response_mode": gen.response_mode,
                         "completion_tokens": gen.completion_tokens,
                         "finish_reason": gen.finish_reason}
                await asyncio.to_thread(self.cache.put, key, req.model, gen.text, usage)
            return _Outcome(key, gen.text, gen=gen, params=params)

    def _account(self, model: str, gen: Generation) -> None:
        self.stats.calls += 1
        self.stats.prompt_tokens += gen.prompt_tokens
        self.stats.completion_tokens += gen.completion_tokens
        cost = self.prices.cost(model, gen.prompt_tokens, gen.completion_tokens)
        if cost is None:
            self.stats.unpriced_calls += 1
        else:
            self.stats.cost_usd += cost
        gen.extra["cost_usd"] = cost

    def _count_error(self, message: str) -> None:
        self.stats.errors += 1
        self._last_error = message

    def _raise_if_stopped(self) -> None:
        limit = int(self.settings.get("max_errors") or 0)
        if limit > 0 and self.stats.errors >= limit:
            raise TooManyErrors(self.stats.errors, limit, self._last_error)

    # -- one step -------------------------------------------------------------------------
    async def run(self, step: JudgeStep[Any, Any], inp: BaseModel) -> StepResult[Any]:
        """Run ``step`` on ``inp`` (see the module docstring); never scores a failure as 0."""
        self._raise_if_stopped()
        started = time.perf_counter()
        usage = Usage()
        ids: list[str] = []
        self.stats.steps += 1
        try:
            result = await self._run(step, inp, usage, ids)
        finally:
            usage.seconds = time.perf_counter() - started
        result.usage, result.request_ids = usage, ids
        if not result.ok:
            self.stats.unscored += 1
        self._raise_if_stopped()
        return result

    async def _ask(self, step: JudgeStep[Any, Any], api: OpenAICompatibleAPI, req: Request,
                   usage: Usage, ids: list[str], purpose: str) -> tuple[_Outcome, Any, str | None]:
        outcome = await self._call(api, req)
        ids.append(outcome.key)
        if outcome.cached:
            usage.cache_hits += 1
        elif outcome.gen is not None:
            usage.calls += 1
            usage.prompt_tokens += outcome.gen.prompt_tokens
            usage.completion_tokens += outcome.gen.completion_tokens
            usage.cost_usd += outcome.gen.extra.get("cost_usd") or 0.0
        out, error = None, outcome.error
        if outcome.text is not None:
            try:
                out = step.Output.model_validate(parse_json_object(outcome.text))
            except (ReplyParseError, ValidationError) as exc:
                error = _short_error(exc)
        if self.audit is not None:
            self.audit.write({
                "request_id": outcome.key, "step": step.name, "purpose": purpose,
                "provider": api.provider, "model": req.model, "params": outcome.params,
                "cached": outcome.cached, "raw": outcome.text,
                "finish_reason": outcome.gen.finish_reason if outcome.gen else None,
                "latency_s": round(outcome.gen.latency, 4) if outcome.gen else None,
                "usage": ({"prompt_tokens": outcome.gen.prompt_tokens,
                           "completion_tokens": outcome.gen.completion_tokens,
                           "cost_usd": outcome.gen.extra.get("cost_usd")}
                          if outcome.gen else None),
                "parsed": out.model_dump(mode="json") if out is not None else None,
                "error": error,
            })
        return outcome, out, error

    async def _run(self, step: JudgeStep[Any, Any], inp: BaseModel, usage: Usage,
                   ids: list[str]) -> StepResult[Any]:
        conf = self._step_conf.get(step.name)
        if conf is None:
            conf = self._step_conf[step.name] = self.settings.for_step(step.name, step.temperature)
        api, model = self._api_for(conf.get("model"))
        cap = int(conf["max_tokens"])
        wanted = step.max_tokens(inp)
        schema, strict = self._schema(step.Output)
        messages = [m.model_dump() for m in step.messages(inp)]
        req = Request(model=model, messages=messages, temperature=float(conf["temperature"]),
                      max_tokens=cap if wanted is None else max(1, min(cap, int(wanted))),
                      schema=schema, schema_name=schema_name(step.name), strict=strict,
                      seed=self.seed, timeout=float(self.settings.get("timeout")),
                      step=step.name)
        first, out, error = await self._ask(step, api, req, usage, ids, "answer")
        raw = first.text
        if first.text is None:  # the call itself failed
            return StepResult(step=step.name, status="unscored", raw=None, error=error)
        if out is None:
            self.stats.reasks += 1
            retry = _follow_up(req, first.text, REPAIR_PROMPT.format(error=error))
            second, out, error2 = await self._ask(step, api, retry, usage, ids, "repair")
            if out is None:
                return StepResult(step=step.name, status="unscored",
                                  raw=second.text if second.text is not None else raw,
                                  error=f"invalid output after one re-ask: {error2}")
            raw = second.text
        problem = step.check(inp, out)
        if problem:
            self.stats.reasks += 1
            retry = _follow_up(req, raw or "", CHECK_PROMPT.format(problem=problem))
            third, out2, _ = await self._ask(step, api, retry, usage, ids, "check")
            if out2 is not None and not step.check(inp, out2):
                out, raw = out2, third.text
        try:
            final = step.finalize(inp, out)
        except Exception as exc:  # noqa: BLE001 - a bad reply must not crash the run
            return StepResult(step=step.name, status="unscored", raw=raw,
                              error=f"finalize failed: {type(exc).__name__}: {exc}")
        return StepResult(step=step.name, status="ok", output=final, raw=raw)

    # -- manifest -------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        """What defines this judge's results, for the run manifest and its config hash.

        Judge, provider, model, result-affecting settings (temperature, token caps, per-step
        overrides, seed, epoch), cache-key version and library versions — never keys, paths,
        limits, concurrency or live totals (see :meth:`runtime` for those).
        """
        versions: dict[str, str | None] = {}
        for dist in ("prism-review", "openai"):
            try:
                versions[dist] = metadata.version(dist)
            except metadata.PackageNotFoundError:
                versions[dist] = None
        return {
            "judge": self.name, "mode": self.mode, "provider": self.spec.provider,
            "model": self.spec.model, "settings": self.settings.result_settings(),
            "epoch": self.epoch, "cache_key_version": CACHE_KEY_VERSION, "versions": versions,
        }

    def runtime(self) -> dict[str, Any]:
        """How the run was carried out: server, limits, retries, cache, prices and totals."""
        return {
            "base_url": self.api.base_url, "transport": self.settings.transport(),
            "cache": {"enabled": self.cache is not None,
                      "path": str(self.cache.path) if self.cache is not None else None},
            "prices": self.prices.source, "totals": self.stats.as_dict(),
        }

    async def aclose(self) -> None:
        """Close the SDK clients bound to the running event loop."""
        for api in self._apis.values():
            await api.aclose()


def _follow_up(req: Request, reply: str, prompt: str) -> Request:
    messages = [*req.messages, {"role": "assistant", "content": reply or "(empty reply)"},
                {"role": "user", "content": prompt}]
    return Request(**{**req.__dict__, "messages": messages})


def _short_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        parts = [f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}"
                 for e in exc.errors()[:8]]
        return "the JSON does not match the schema: " + "; ".join(parts)
    return str(exc)
