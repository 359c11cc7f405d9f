"""Dollars of a counted run (``bench_llm_cost.py``): list prices, provider prompt caching, Batch API.

Every request the loopback server received is billed as a provider bills it:

* input: the ``cl100k_base`` tokens of the message contents plus those of the JSON schema sent
  as the response format (a provider bills the schema as input; the token columns of the bench
  leave it out, as ``reference-costs.md`` does);
* cached input (live calls only): automatic prompt caching as OpenAI documents it: a prompt of at
  least 1,024 tokens is served from the cache for the longest prefix, in 1,024 + k·128-token
  steps, that an earlier request of the run sent (the schema comes first, then the messages in
  order, so only calls of the same step share a prefix). Requests are taken in the order the
  server received them; real caches also evict, and concurrent twins can both miss, so this is
  the most a provider would serve, not a promise;
* output: the ``cl100k_base`` tokens of the reply (the loopback's answers, not a model's: see
  the bench's notes);
* batch lines (``--batch``): every input token at the batch price (half the list price unless
  the table says otherwise), no cache discount, as :mod:`prism_review.llm.pricing` bills them.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from prism_review.data.tokens import cl100k
from prism_review.llm.pricing import PriceTable

CACHE_MIN, CACHE_STEP = 1024, 128


def _tokens(text: str) -> list[int]:
    return list(cl100k().encode(text, disallowed_special=()))


def prompt_token_ids(body: dict[str, Any]) -> tuple[list[int], int]:
    """(the prompt's tokens as a provider reads them: schema, then each message's content;
    the number of those that are the schema's)."""
    rf = body.get("response_format") or {}
    schema = rf.get("json_schema") if rf.get("type") == "json_schema" else None
    ids = _tokens(json.dumps(schema, sort_keys=True)) if schema else []
    n_schema = len(ids)
    for m in body.get("messages", []):
        content = m.get("content")
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        ids += _tokens(f"<|{m.get('role')}|>") + _tokens(content or "")
    return ids, n_schema


class PrefixCache:
    """The prefixes (at the cache's 128-token steps) of every prompt seen so far."""

    def __init__(self) -> None:
        self.seen: set[bytes] = set()

    def hit(self, ids: list[int]) -> int:
        """Cached tokens of a prompt (0 below 1,024), then remember its prefixes."""
        best = 0
        digest = hashlib.sha256()
        done = 0
        for end in range(CACHE_MIN, len(ids) + 1, CACHE_STEP):
            digest.update(json.dumps(ids[done:end]).encode())
            done = end
            key = digest.copy().digest()
            if key in self.seen:
                best = end
            else:
                self.seen.add(key)
        return best


def bill(requests: list[tuple[str, dict[str, Any], str, bool]], model: str,
         prices: PriceTable | None = None) -> dict[str, Any]:
    """Dollars of ``(step, request body, reply text, was a batch line)`` in the order sent;
    ``steps``: the same figures per step."""
    prices = prices or PriceTable()
    if prices.lookup(model) is None:
        raise SystemExit(f"no list price for {model!r} in prism_review.llm.pricing")
    cache = PrefixCache()
    def zero() -> dict[str, Any]:
        return {"input_tokens": 0, "schema_tokens": 0, "cached_tokens": 0, "output_tokens": 0,
                "dollars": 0.0, "dollars_no_cache": 0.0, "batch_lines": 0}

    out: dict[str, Any] = {"model": model, **zero()}
    steps: dict[str, dict[str, Any]] = {}
    for step, body, reply, batch in requests:
        ids, n_schema = prompt_token_ids(body)
        cached = 0 if batch else cache.hit(ids)
        completion = len(_tokens(reply or ""))
        figures = {"input_tokens": len(ids), "schema_tokens": n_schema, "cached_tokens": cached,
                   "output_tokens": completion, "batch_lines": int(batch),
                   "dollars": prices.cost(model, len(ids), completion, cached, batch=batch) or 0.0,
                   "dollars_no_cache": prices.cost(model, len(ids), completion, 0, batch=batch) or 0.0}
        for into in (out, steps.setdefault(step, zero())):
            for k, v in figures.items():
                into[k] += v
    out["steps"] = steps
    return out


def spec_dollars(input_tokens: float, output_tokens: float, model: str,
                 prices: PriceTable | None = None) -> float:
    """The reference design's figures (no schema, no cache information) at the live list price."""
    prices = prices or PriceTable()
    return prices.cost(model, int(input_tokens), int(output_tokens)) or 0.0
