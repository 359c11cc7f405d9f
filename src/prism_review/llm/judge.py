"""``LLMJudge``: runs judge steps on a chat model with structured output, repair and caching.

For one step the judge builds ``step.messages(inp)``, resolves the step's model, temperature and
token budget (:mod:`prism_review.llm.settings`), and asks for ``step.Output`` as a strict JSON
schema (falling back to JSON mode, then to a schema hint in the prompt, when a server rejects
it); ``step.schema_enums(inp)`` narrows id fields to the ids of this input. The reply is parsed
leniently (:mod:`prism_review.llm.parse`) and validated. A reply that cannot be used (not JSON,
cut short without ``finish_reason="length"``, off the schema, or cut with ``"length"`` before its
budget was spent) is a *transient* failure: it is never cached, and the same request is sent
again within ``max_retries`` (shared with the transport retries), so a fault does not change
the request that answers; only a reply the model repeats verbatim, or the last after every
retry, goes on to a corrective re-ask. If the reply is still unusable the judge re-asks once —
with the *full original messages* plus the invalid reply and the error, or, for a reply cut at
the token budget (``finish_reason="length"``), the same messages with twice the budget, within
the step's cap and the model's known output limit (a reply cut at that much already, or at a
budget the server shrank for this prompt, is unscored without a second call: the same request
would be cut, and paid, again; a re-ask the server would shrink to the first ask's budget is
not sent either, see ``Request.floor``). If
``step.check()`` reports a problem it re-asks once stating it. A step whose answer still fails
is ``unscored`` with the raw reply and the reason kept — never a zero — when that outcome is
deterministic (a check failed twice, a reply cut at the cap or the model's limit, a refused
request, an unusable answer the model repeated); a step whose last reply failed only
transiently raises :class:`~prism_review.llm.errors.TransientFailure` instead, so its unit is
not written and the next run computes it (counted in ``stats.transient``). Only a step that sets
``keeps_soft_checked`` (generation steps, whose output is text, not a score) keeps an answer that
still fails its check, and says so in ``StepResult.warning``. ``step.finalize()`` is applied
last.

Calls go through :class:`~prism_review.llm.calls.CallManager` (cache, limits, retries, cost).
401/403/404 raise :class:`~prism_review.llm.errors.FatalProviderError`; a call that got no reply
(connection, timeout, 429/5xx after every retry) raises
:class:`~prism_review.llm.errors.TransportError`, so its unit is not finished and a re-run
computes it; in batch mode a call the cache cannot answer raises
:class:`~prism_review.llm.batch.Deferred` the same way (see :mod:`prism_review.llm.batch`); after
``max_errors`` failed calls every call raises
:class:`~prism_review.llm.errors.TooManyErrors`, so the runner stops cleanly.
"""

from __future__ import annotations

import os
import time
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from prism_review.judge.base import JudgeStep, StepResult, Usage
from prism_review.judge.prompt_digest import prompts_fingerprint
from prism_review.llm.audit import AuditLog
from prism_review.llm.batch import BatchQueue, Deferred
from prism_review.llm.cache import ResponseCache
from prism_review.llm.calls import CACHE_KEY_VERSION, CallManager, CallOutcome, JudgeStats
from prism_review.llm.credentials import mask_url, step_key
from prism_review.llm.errors import ConfigError, TransientFailure, TransportError
from prism_review.llm.parse import (
    ReplyParseError,
    apply_enums,
    parse_json_object,
    response_schema,
    schema_name,
    type_mismatch,
)
from prism_review.llm.pricing import PriceTable
from prism_review.llm.provider import (
    ModelAPI,
    ModelSpec,
    Request,
    get_provider,
    is_provider,
    make_api,
    parse_spec,
    resolve_endpoint,
)
from prism_review.llm.reask import (
    follow_up,
    granted_limit,
    longer_ask,
    malformed,
    model_limit,
    not_asked_again,
    short_error,
)
from prism_review.llm.settings import Settings

__all__ = ["JudgeStats", "LLMJudge"]

REPAIR_PROMPT = (
    "Your previous reply could not be used: {error}\n"
    "Answer again from the start, following every instruction above. Reply with a single JSON "
    "object that matches the required schema and nothing else."
)
CHECK_PROMPT = (
    "Your previous answer has a problem: {problem}\n"
    "Fix it and reply again with the complete JSON object, following every instruction above."
)


class LLMJudge:
    """A :class:`~prism_review.judge.base.Judge` backed by a chat model (see module docstring)."""

    mode: Literal["offline", "llm"] = "llm"

    def __init__(self, spec: ModelSpec, *, settings: Settings, api_key: str | None = None,
                 base_url: str | None = None, cache: ResponseCache | None = None,
                 audit_path: str | Path | None = None, prices: PriceTable | None = None,
                 epoch: int | None = None, batch: BatchQueue | None = None) -> None:
        self.spec = spec
        self.name = spec.name
        self.settings = settings
        self.cache = cache
        self.audit = AuditLog(audit_path) if audit_path else None
        self.prices = prices or PriceTable.load(settings.get("prices"))
        self.epoch = epoch
        self.seed: int | None = settings.get("seed")
        self.calls = CallManager(settings, cache=cache, prices=self.prices, epoch=epoch)
        self.stats = self.calls.stats
        url, key = resolve_endpoint(spec, api_key=api_key, base_url=base_url)
        self._key = key  # the main endpoint's key, which a step model on its host may use
        self.api = make_api(spec, base_url=url, api_key=key)
        self._apis: dict[str, ModelAPI] = {spec.provider: self.api}
        self._schemas: dict[type[BaseModel], tuple[dict[str, Any], bool]] = {}
        self._step_conf: dict[str, dict[str, Any]] = {}
        for model in sorted(settings.step_models()):  # a bad spec or missing key fails now
            self._api_for(model)
        #: batch mode / dry run: cache misses are queued (see :mod:`prism_review.llm.batch`)
        self.batch = batch
        self._counted: set[tuple[str, ...]] = set()  # batch mode: the unscored steps counted
        if batch is not None:
            lacking = sorted({a.provider for a in self._apis.values()
                              if not callable(getattr(a, "batch_line", None))})
            if lacking:
                raise ConfigError(f"--batch/--dry-run: the API of {', '.join(lacking)} cannot "
                                  "build batch lines (it has no batch_line method)")
            batch.calls, batch.apis = self.calls, lambda: list(self._apis.values())
            self.calls.batch = batch

    # -- settings -------------------------------------------------------------------------
    def _api_for(self, model_setting: str | None) -> tuple[ModelAPI, str]:
        if not model_setting:
            return self.api, self.spec.model
        head = model_setting.split("/", 1)[0]
        if not is_provider(head, aliases=False):  # google/gemma-2-9b-it is a model id
            return self.api, model_setting
        other = parse_spec(model_setting)
        if other.provider == self.spec.provider and other.base_url is None:
            return self.api, other.model
        tag = f"{other.provider}@{other.base_url}" if other.base_url else other.provider
        if tag not in self._apis:
            url, key = resolve_endpoint(other, api_key=None, base_url=None)
            key = self._step_key(other, url, key)
            self._apis[tag] = make_api(other, base_url=url, api_key=key)
        return self._apis[tag], other.model

    def _step_key(self, other: ModelSpec, url: str, env_key: str) -> str:
        """Only the key that belongs to ``url`` (see :func:`~prism_review.llm.credentials.step_key`)."""
        homes = get_provider(other.provider).homes(os.environ)
        key = step_key(url, main_url=self.api.base_url, main_key=self._key,
                       home_urls=homes, provider_key=env_key, env=os.environ)
        return key or "not-needed"

    def _schema(self, model: type[BaseModel]) -> tuple[dict[str, Any], bool]:
        if model not in self._schemas:
            self._schemas[model] = response_schema(model)
        return self._schemas[model]

    # -- one step -------------------------------------------------------------------------
    async def run(self, step: JudgeStep[Any, Any], inp: BaseModel) -> StepResult[Any]:
        """Run ``step`` on ``inp`` (see the module docstring); never scores a failure as 0."""
        self.calls.raise_if_stopped()
        started = time.perf_counter()
        usage = Usage()
        ids: list[str] = []
        self.stats.steps += 1
        try:
            result = await self._run(step, inp, usage, ids)
        finally:
            usage.seconds = time.perf_counter() - started
            self.stats.usage.seconds += usage.seconds
        result.usage, result.request_ids = usage, ids
        if not result.ok and self._first_time(step.name, ids):
            self.stats.unscored += 1
        self.calls.raise_if_stopped()
        return result

    async def _ask(self, step: JudgeStep[Any, Any], api: ModelAPI, req: Request,
                   usage: Usage, ids: list[str], purpose: str) -> tuple[CallOutcome, Any, str | None]:
        """One ask and its parsed output (or the reason it cannot be used); raises
        :class:`TransportError` when no reply came back at all.

        A malformed reply (:func:`~prism_review.llm.reask.malformed`) is a transient failure:
        dropped from the cache, the same request is sent again within the ask's ``max_retries``
        (shared with transport retries), unless the model repeats a reply, or a ``"length"`` cut
        at the same length (its answer: ``confirmed``, remembered for the run). ``transient``:
        the last reply is unusable and was never confirmed so."""
        left = int(self.settings.get("max_retries"))
        seen: set[Any] = set()
        fresh = sent = False
        while True:
            outcome, out, error = await self._ask_once(step, api, req, usage, ids, purpose,
                                                       fresh, left)
            sent = sent or outcome.gen is not None
            self.stats.retries += int(fresh and not outcome.cached)  # one sent, not shared
            left -= outcome.retries
            if out is not None or not malformed(outcome, req) or outcome.confirmed:
                break
            await self.calls.forget(outcome.key, outcome.text)  # nothing failed is cached
            # the model's own answer, twice, is not a fault: the same text, or a cut at the
            # same length (an output limit the server does not report)
            text = (outcome.completion_tokens if outcome.finish_reason == "length"
                    else outcome.text or "")
            if text in seen:
                outcome.confirmed = True
                self.calls.unusable[outcome.key] = outcome
                break
            if left <= 0:
                outcome.transient = True
                break
            seen.add(text)
            left -= 1
            fresh = True
        if sent and purpose != "answer":  # a re-ask counts once, when it is sent
            self.stats.reasks += 1
        return outcome, out, error

    async def _ask_once(self, step: JudgeStep[Any, Any], api: ModelAPI, req: Request,
                        usage: Usage, ids: list[str], purpose: str, fresh: bool,
                        retries: int) -> tuple[CallOutcome, Any, str | None]:
        outcome = await self.calls.call(api, req, fresh=fresh, retries=retries)
        if outcome.deferred:  # queued for the next batch: this unit finishes on a later pass
            raise Deferred(step.name)
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
                obj = parse_json_object(outcome.text)
                wrong = type_mismatch(obj, req.schema)
                if wrong:  # off the schema, whatever a lenient validator would make of it
                    raise ReplyParseError(f"the JSON does not match the schema: {wrong}")
                out = step.Output.model_validate(obj)
            except (ReplyParseError, ValidationError) as exc:
                error = short_error(exc)
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
        if outcome.transport:
            self.calls.raise_if_stopped()  # this failure reached --max-errors: stop the run
            raise TransportError(step.name, outcome.error or "the call failed")
        return outcome, out, error

    async def _run(self, step: JudgeStep[Any, Any], inp: BaseModel, usage: Usage,
                   ids: list[str]) -> StepResult[Any]:
        conf = self._step_conf.get(step.name)
        if conf is None:
            conf = self._step_conf[step.name] = self.settings.for_step(
                step.name, step.temperature, step.reply_cap)
        api, model = self._api_for(conf.get("model"))
        cap = int(conf["max_tokens"])
        wanted = step.max_tokens(inp)
        schema, strict = self._schema(step.Output)
        enums = step.schema_enums(inp)
        if enums:
            schema = apply_enums(schema, enums)
        messages = [m.model_dump() for m in step.messages(inp)]
        req = Request(model=model, messages=messages, temperature=float(conf["temperature"]),
                      max_tokens=cap if wanted is None else max(1, min(cap, int(wanted))),
                      schema=schema, schema_name=schema_name(step.name), strict=strict,
                      seed=self.seed, timeout=float(self.settings.get("timeout")),
                      step=step.name)
        first, out, error = await self._ask(step, api, req, usage, ids, "answer")
        raw = first.text
        if first.text is None:  # received, but refused (a non-retryable 4xx): nothing to score
            return StepResult(step=step.name, status="unscored", raw=None, error=error)
        if out is None:
            if first.finish_reason == "length":  # cut at the budget: the same ask, more room
                limit = granted_limit(req, first.granted, model_limit(api, req.model))
                longer, sent = longer_ask(req, cap, limit)
                if longer is None:  # it had all the room it may have: asking again cannot help
                    self._raise_if_transient(step, first, error)  # unless it was a fault
                    return StepResult(step=step.name, status="unscored", raw=raw,
                                      error=not_asked_again(sent, error))
                req = longer
                retry, purpose = req, "longer"
            else:
                retry = follow_up(req, first.text, REPAIR_PROMPT.format(error=error))
                purpose = "repair"
            second, out, error2 = await self._ask(step, api, retry, usage, ids, purpose)
            if second.no_larger_budget:  # the server allows this prompt no more: not sent
                self._raise_if_transient(step, first, error)
                return StepResult(step=step.name, status="unscored", raw=raw,
                                  error=not_asked_again(retry.floor, f"{error}; {error2}"))
            if out is None:
                self._raise_if_transient(step, second, error2)
                return StepResult(step=step.name, status="unscored",
                                  raw=second.text if second.text is not None else raw,
                                  error=f"invalid output after one re-ask: {error2}")
            raw = second.text
        warning = None
        problem = step.check(inp, out)
        if problem:
            retry = follow_up(req, raw or "", CHECK_PROMPT.format(problem=problem))
            third, out2, error3 = await self._ask(step, api, retry, usage, ids, "check")
            if out2 is None:  # a fault is no answer to keep, even for a generation step
                self._raise_if_transient(step, third, error3)
            problem2 = step.check(inp, out2) if out2 is not None else error3
            if out2 is not None and not problem2:
                out, raw = out2, third.text
            elif step.keeps_soft_checked:  # generation: keep the first answer, and say so
                warning = f"kept although its check still fails after one re-ask: {problem}"
            else:
                return StepResult(step=step.name, status="unscored",
                                  raw=third.text if third.text is not None else raw,
                                  error=f"check failed after one re-ask: {problem}" + (
                                      f" (re-ask: {problem2})" if problem2 != problem else ""))
        try:
            final = step.finalize(inp, out)
        except Exception as exc:  # noqa: BLE001 - a bad reply must not crash the run
            return StepResult(step=step.name, status="unscored", raw=raw,
                              error=f"finalize failed: {type(exc).__name__}: {exc}")
        return StepResult(step=step.name, status="ok", output=final, raw=raw, warning=warning)

    def _first_time(self, step: str, ids: list[str]) -> bool:
        """False for a step outcome met on an earlier batch pass (a deferred unit re-runs its
        finished steps on every pass): counted once."""
        if self.batch is None:
            return True
        before = len(self._counted)
        self._counted.add((step, *ids[:1]))  # named by its first request
        return len(self._counted) > before

    def _raise_if_transient(self, step: JudgeStep[Any, Any], outcome: CallOutcome,
                            error: str | None) -> None:
        """A step whose last reply failed only transiently is not unscored: it raises
        :class:`TransientFailure` (its unit unwritten, nothing memoised; the next run computes it)."""
        if outcome.transient:
            self.stats.transient += 1
            self.calls.raise_if_stopped()
            raise TransientFailure(step.name, f"unusable replies after every retry: {error}")

    def unused_step_settings(self) -> list[str]:
        """Per-step settings that matched none of the steps this judge has run (a misspelt step
        name silently does nothing otherwise); call it after a run."""
        return self.settings.unmatched_steps(self._step_conf)

    # -- manifest -------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        """What defines this judge's results, for the run manifest and its config hash.

        Judge, provider, model, result-affecting settings (temperature, token caps, per-step
        overrides, seed, epoch), cache-key version and library versions — never keys, paths,
        limits, concurrency or live totals (see :meth:`runtime` for those).
        """
        versions: dict[str, str | None] = {}
        sdks = {get_provider(api.provider).sdk for api in self._apis.values()}
        for dist in ("prism-review", *sorted(d for d in sdks if d)):
            try:
                versions[dist] = metadata.version(dist)
            except metadata.PackageNotFoundError:
                versions[dist] = None
        return {
            "judge": self.name, "mode": self.mode, "provider": self.spec.provider,
            "model": self.spec.model, "settings": self.settings.result_settings(),
            "epoch": self.epoch, "cache_key_version": CACHE_KEY_VERSION, "versions": versions,
            # the prompt text: a run folder made with other prompts is not resumed with these
            "prompts": prompts_fingerprint(REPAIR_PROMPT, CHECK_PROMPT),
        }

    def runtime(self) -> dict[str, Any]:
        """How the run was carried out: server, limits, retries, cache, prices and totals."""
        return {
            "base_url": mask_url(self.api.base_url), "transport": self.settings.transport(),
            "batch": (None if self.batch is None else
                      {"record": str(self.batch.path) if self.batch.path else None,
                       "estimate_only": self.batch.estimate_only}),
            "cache": {"enabled": self.cache is not None,
                      "path": str(self.cache.path) if self.cache is not None else None},
            "prices": self.prices.source, "totals": self.stats.as_dict(),
        }

    async def aclose(self) -> None:
        """Close the SDK clients bound to the running event loop."""
        for api in self._apis.values():
            await api.aclose()
