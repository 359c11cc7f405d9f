"""A reply cut at its output budget is asked again with twice the budget only within the step's
cap and the model's known output limit; a reply cut at that much already is unscored without a
second call (the same request would be cut again, and paid again). Before, the re-ask asked for
twice the budget whatever the cap: 600 tokens under a configured ``max_tokens`` of 300, 64,000
for a 32,000-token group call.
"""

from __future__ import annotations

import json
from typing import Any

from prism_review.testing.llm_server import Fault

from ._steps import LabelIn, LabelStep

FULL = {"label": "neutral", "score": 1, "reasons": ["x", "y"]}


def _asked(llm_server: Any) -> list[int]:
    return [int(r.body["max_tokens"]) for r in llm_server.requests]


async def test_the_longer_re_ask_stops_at_the_steps_cap(llm_server, loopback_judge):
    llm_server.script(Fault.truncated(FULL, keep=0.9), FULL)
    judge = loopback_judge(max_tokens=500)
    res = await judge.run(LabelStep(), LabelIn(text="fine", budget=300))
    assert res.ok and res.output.reasons == ["x", "y"]
    assert _asked(llm_server) == [300, 500]  # not 600: the configured cap holds
    assert judge.stats.reasks == 1


async def test_a_reply_cut_at_the_cap_is_not_asked_again(llm_server, loopback_judge):
    llm_server.script(Fault.truncated(FULL, keep=0.9), FULL)
    judge = loopback_judge(max_tokens=300)
    res = await judge.run(LabelStep(), LabelIn(text="fine"))  # asks for the cap
    assert res.status == "unscored" and res.output is None
    assert "not asked again" in res.error and "300 tokens" in res.error
    assert res.raw is not None  # the cut reply is kept
    assert _asked(llm_server) == [300]  # one call, not a second at 600
    assert judge.stats.truncated == 1 and judge.stats.reasks == 0


async def test_the_models_output_limit_bounds_the_re_ask(llm_server, loopback_judge):
    """A model whose limit (told in a 400) is what the first ask got: a re-ask at twice the
    budget would be sent at that limit again, the same request, and cut again."""
    limit = 1000

    def server(body: dict[str, Any]) -> Any:
        asked = int(body["max_tokens"])
        if asked > limit:
            return Fault.status(400, f"max_tokens is too large: {asked}. This model supports at "
                                     f"most {limit} completion tokens, whereas you provided {asked}.")
        return Fault.truncated(json.dumps(FULL), keep=0.9)

    llm_server.set_responder(server)
    judge = loopback_judge()
    res = await judge.run(LabelStep(), LabelIn(text="fine", budget=2000))
    assert res.status == "unscored" and "not asked again" in res.error and f"{limit} tokens" in res.error
    assert _asked(llm_server) == [2000, limit]  # the 400, then the model's limit; no third call


LONG = {"label": "neutral", "score": 1, "reasons": [f"reason number {i}" for i in range(250)]}


async def _batch_pass(judge: Any, inp: LabelIn) -> Any:
    """One pass of a batch run over one step: its call is deferred, or it ends."""
    from prism_review.llm.batch import Deferred

    try:
        return await judge.run(LabelStep(), inp)
    except Deferred:
        return None


async def test_a_batch_runs_re_ask_follows_the_same_cap(llm_server, loopback_judge, tmp_path):
    """Batch mode: the cut reply comes back from a batch and its re-ask goes into the next one,
    built by the same rule (within the cap; none when the first ask had the cap)."""
    llm_server.set_responder(lambda body: json.dumps(LONG))
    llm_server.enforce_max_tokens = True  # a model stops at the request's budget
    assert len(json.dumps(LONG)) // 4 > 800
    judge = loopback_judge(batch=tmp_path / "batches.json", max_tokens=800)
    below, at_cap = LabelIn(text="below", budget=500), LabelIn(text="at the cap")
    assert await _batch_pass(judge, below) is None and await _batch_pass(judge, at_cap) is None
    assert sorted(p.req.max_tokens for p in judge.batch.pending.values()) == [500, 800]
    await judge.batch.flush()
    assert await _batch_pass(judge, below) is None  # cut at 500: asked again, in the next batch
    res = await _batch_pass(judge, at_cap)  # cut at the cap: unscored, nothing queued
    assert res is not None and res.status == "unscored" and "not asked again" in res.error
    assert [p.req.max_tokens for p in judge.batch.pending.values()] == [800]  # not 1,000
    assert llm_server.requests == []  # every call went through the Batch API
