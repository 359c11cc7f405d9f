"""Opt-in check against a real provider: ``PRISM_LIVE_JUDGE=openai/gpt-4o-mini pytest -m live``.

Skipped unless ``PRISM_LIVE_JUDGE`` names a judge spec (and its key is in the environment).
"""

from __future__ import annotations

import os

import pytest

from prism_review.llm import make_judge

from ._steps import LabelIn, LabelStep

pytestmark = pytest.mark.live


@pytest.mark.skipif(not os.environ.get("PRISM_LIVE_JUDGE"), reason="set PRISM_LIVE_JUDGE")
async def test_live_provider_round_trip(tmp_path):
    judge = make_judge(os.environ["PRISM_LIVE_JUDGE"], cache_dir=tmp_path, max_tokens=200)
    res = await judge.run(LabelStep(), LabelIn(text="This paper is excellent and very clear."))
    assert res.ok, res.error
    assert res.output.label == "positive"
    assert res.usage.calls == 1 and res.usage.prompt_tokens > 0
    await judge.aclose()
