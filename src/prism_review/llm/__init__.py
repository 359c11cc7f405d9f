"""The LLM judge layer: providers, structured output, cache, limits, retries, cost, audit.

Build a judge from a spec string with :func:`make_judge`::

    judge = make_judge("openai/gpt-4o-mini", concurrency=16, audit_path="out/audit.jsonl")
    result = await judge.run(step, inp)      # StepResult: ok, or unscored with the raw reply
    judge.stats.usage.cache_hits, judge.stats.usage.cost_usd, judge.describe()

Specs: ``offline`` (the built-in judge) or ``<provider>/<model>`` for a registered provider
(:mod:`prism_review.llm.provider`; the built-in ones are in :mod:`prism_review.llm.providers`).
See :mod:`prism_review.llm.settings` for the config file and the precedence of options,
environment and config, and ``docs/providers.md``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from prism_review.judge.base import Judge, OfflineJudge
from prism_review.llm.batch import BatchQueue, Deferred
from prism_review.llm.cache import default_cache_dir, open_cache
from prism_review.llm.errors import (
    ConfigError,
    FatalProviderError,
    LLMError,
    ProviderError,
    TooManyErrors,
    TransientFailure,
    TransportError,
)
from prism_review.llm.judge import JudgeStats, LLMJudge
from prism_review.llm.pricing import PriceTable
from prism_review.llm.provider import get_provider, is_provider, parse_spec
from prism_review.llm.settings import Settings

__all__ = [
    "ConfigError", "Deferred", "FatalProviderError", "JudgeStats", "LLMError", "LLMJudge", "ProviderError",
    "TooManyErrors", "TransientFailure", "TransportError", "make_judge",
]

#: options that are settings (resolved with env and config file); the rest are judge wiring
_SETTING_OPTIONS = ("temperature", "max_tokens", "concurrency", "rpm", "tpm", "timeout",
                    "max_errors", "max_retries", "retry_base", "retry_max", "seed")
_WIRING_OPTIONS = ("base_url", "api_key", "cache_dir", "no_cache", "config_path", "audit_path",
                   "epoch", "prices", "steps", "batch", "batch_poll", "dry_run")


def make_judge(spec: str, **options: Any) -> Judge:
    """A judge for ``spec`` (``offline`` or ``<provider>/<model>``).

    Options (``None`` means "not given", so env, config file and defaults apply):
    ``base_url``, ``api_key`` (never logged, cached or audited), ``concurrency``, ``rpm``,
    ``tpm``, ``max_errors``, ``max_retries``, ``timeout``, ``retry_base``/``retry_max``
    (back-off seconds), ``temperature``, ``max_tokens``, ``seed``, ``epoch`` (cache sampled
    calls per epoch), ``steps`` (per-step overrides ``{"depth.segment": {"model": ...}}``),
    ``config_path``, ``cache_dir`` (default ``$PRISM_CACHE_DIR`` or the user cache dir),
    ``no_cache``, ``audit_path``, ``prices`` (a TOML/JSON price file or a mapping
    ``{model: {"input": usd_per_1m, "output": usd_per_1m}}``), ``batch`` (the path of the
    run's ``batches.json``: calls go through the provider's Batch API, see
    :mod:`prism_review.llm.batch`), ``batch_poll`` (the longest wait between polls, default ``$PRISM_BATCH_POLL`` or 30 s) and
    ``dry_run`` (queue the calls, never send them: for cost estimates).
    """
    unknown = set(options) - set(_SETTING_OPTIONS) - set(_WIRING_OPTIONS)
    if unknown:
        raise ConfigError(f"unknown judge option(s): {', '.join(sorted(unknown))}")
    if spec.strip() == "offline":
        return OfflineJudge()
    model_spec = parse_spec(spec)
    cli = {k: options.get(k) for k in _SETTING_OPTIONS if options.get(k) is not None}
    prices = options.get("prices")
    if isinstance(prices, (str, Path)):
        cli["prices"] = str(prices)
    settings = Settings(cli=cli, cli_steps=options.get("steps"),
                        config_path=options.get("config_path"))
    if isinstance(prices, Mapping):
        table = PriceTable({m: (float(p["input"]), float(p["output"])) for m, p in prices.items()})
    else:
        table = PriceTable.load(settings.get("prices"))
    cache = None
    if not options.get("no_cache"):
        cache = open_cache(options.get("cache_dir") or default_cache_dir())
    batch = None
    if options.get("dry_run"):
        batch = BatchQueue(None, estimate_only=True)
    elif options.get("batch"):
        _check_batch(cache, [model_spec.provider, *_step_providers(settings)])
        path = options["batch"]
        batch = BatchQueue(None if path is True else path,
                           poll=float(options.get("batch_poll")
                                      or os.environ.get("PRISM_BATCH_POLL") or 30.0))
    return LLMJudge(model_spec, settings=settings, api_key=options.get("api_key"),
                    base_url=options.get("base_url"), cache=cache,
                    audit_path=options.get("audit_path"), prices=table,
                    epoch=options.get("epoch"), batch=batch)


def _step_providers(settings: Settings) -> list[str]:
    """The providers the per-step models name (a bare model name uses the main one)."""
    return sorted({parse_spec(m).provider for m in settings.step_models()
                   if is_provider(m.split("/", 1)[0], aliases=False)})


def _check_batch(cache: Any, names: list[str]) -> None:
    """Refuse a batch run that could not work, before anything is sent."""
    for name in names:
        unit = get_provider(name)
        if not unit.batch:
            raise ConfigError(f"--batch: provider {unit.name!r} declares no Batch API support; "
                              "run without --batch")
    if cache is None:
        raise ConfigError("--batch needs the LLM response cache (batch replies are read back "
                          "through it): drop --no-cache, or fix the cache folder")
