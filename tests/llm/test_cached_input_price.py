"""Cached input tokens the API reports are billed at the cached-input price.

The loopback server with ``prompt_cache = True`` reports ``prompt_tokens_details.cached_tokens``
for the prefix a request shares with an earlier one, as providers with automatic prompt caching
do; the judge's cost must credit them (before: every prompt token at the full input price).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from prism_review.judge.base import ChatMessage, JudgeStep
from prism_review.llm import make_judge
from prism_review.llm.pricing import PriceTable
from prism_review.testing.llm_server import LLMServer


class In(BaseModel):
    shared: str
    tail: str


class Out(BaseModel):
    answer: str


class PrefixStep(JudgeStep[In, Out]):
    name = "test.prefix"
    Input = In
    Output = Out

    def messages(self, inp: In) -> list[ChatMessage]:
        return [ChatMessage(role="system", content="Answer as JSON."),
                ChatMessage(role="user", content=inp.shared + inp.tail)]

    def offline(self, inp: In) -> Out:
        return Out(answer="x")


def test_price_table_bills_cached_tokens_at_the_cached_price(tmp_path: Path):
    table = PriceTable()
    full = table.cost("gpt-4o-mini", 10_000, 0)
    part = table.cost("gpt-4o-mini", 10_000, 0, cached_tokens=8_000)
    assert full == pytest.approx(10_000 * 0.15 / 1e6)
    assert part == pytest.approx((2_000 * 0.15 + 8_000 * 0.075) / 1e6)
    # a model without a cached price: cached tokens at the input price, never cheaper
    (tmp_path / "p.toml").write_text('["local"]\ninput = 1.0\noutput = 2.0\n'
                                     '["cheap"]\ninput = 1.0\noutput = 2.0\ncached_input = 0.1\n')
    custom = PriceTable.load(tmp_path / "p.toml")
    assert custom.cost("local", 1000, 0, cached_tokens=1000) == pytest.approx(1000 / 1e6)
    assert custom.cost("cheap", 1000, 0, cached_tokens=600) == pytest.approx((400 + 60) / 1e6)
    # more cached than prompt tokens (a bad report) cannot make a call cheaper than all cached
    assert custom.cost("cheap", 1000, 0, cached_tokens=5000) == pytest.approx(100 / 1e6)


async def test_judge_credits_the_cached_prefix_the_server_reports(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "loopback")
    with LLMServer(schema_seed=1) as server:
        server.prompt_cache = True
        judge = make_judge(f"openai-compatible/gpt-4o-mini@{server.base_url}", no_cache=True)
        shared = "paper context " * 2000  # 28,000 characters: ~7,000 tokens of shared prefix
        try:
            r1 = await judge.run(PrefixStep(), In(shared=shared, tail="first review"))
            r2 = await judge.run(PrefixStep(), In(shared=shared, tail="second review"))
        finally:
            await judge.aclose()
    assert r1.ok and r2.ok
    assert judge.stats.cached_prompt_tokens >= 6_900
    prompt = r2.usage.prompt_tokens
    cached = judge.stats.cached_prompt_tokens
    assert r1.usage.cost_usd == pytest.approx(
        PriceTable().cost("gpt-4o-mini", r1.usage.prompt_tokens, r1.usage.completion_tokens))
    assert r2.usage.cost_usd == pytest.approx(
        ((prompt - cached) * 0.15 + cached * 0.075 + r2.usage.completion_tokens * 0.60) / 1e6)
    assert r2.usage.cost_usd < r1.usage.cost_usd
