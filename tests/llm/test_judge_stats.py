"""``JudgeStats`` embeds the judge's ``Usage``: its totals are the steps' usage summed, and the
manifest's flat ``judge_stats`` keeps every key it had (plus ``seconds``)."""

from __future__ import annotations

import asyncio

from prism_review.judge.base import Usage
from prism_review.testing.llm_server import Fault

from ._steps import LabelIn, LabelStep

GOOD = {"label": "positive", "score": 3, "reasons": ["b", "a"]}
#: the keys of judge_stats in manifests written before JudgeStats embedded Usage
OLD_KEYS = {"steps", "unscored", "calls", "cache_hits", "prompt_tokens", "cached_prompt_tokens",
            "completion_tokens", "cost_usd", "errors", "retries", "reasks", "unpriced_calls",
            "truncated", "batch_calls"}


async def test_judge_totals_are_the_steps_usage_summed(llm_server, loopback_judge) -> None:
    llm_server.set_responder(lambda body: GOOD)
    llm_server.script(Fault.status(500), "not json")  # a retry, then the same request again
    judge = loopback_judge(prices={"test-model": {"input": 1.0, "output": 2.0}})
    # 4 of the 8 share an identical call in flight; the retry of the "not json" reply is shared too
    items = [LabelIn(text=f"item {i % 4}") for i in range(8)]
    results = await asyncio.gather(*(judge.run(LabelStep(), x) for x in items))
    summed = Usage()
    for r in results:
        summed.add(r.usage)
    stats = judge.stats
    assert stats.usage.calls == summed.calls == 5 and stats.usage.cache_hits == summed.cache_hits == 5
    for field in ("prompt_tokens", "completion_tokens"):
        assert getattr(stats.usage, field) == getattr(summed, field) > 0
    assert abs(stats.usage.cost_usd - summed.cost_usd) < 1e-12 and stats.usage.cost_usd > 0
    assert abs(stats.usage.seconds - summed.seconds) < 1e-9
    flat = stats.as_dict()
    assert set(flat) == OLD_KEYS | {"seconds", "transient"}  # old readers find every key they read
    assert flat["calls"] == 5 and flat["retries"] == 2 and flat["reasks"] == 0
    assert stats.summary().startswith("5 model calls, 5 cache hits (50%)")
