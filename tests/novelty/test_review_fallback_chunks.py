"""The per-review fallback of economical novelty (``novelty.verdict_review``) is chunked as the
paper call is, so a review with many claims and candidates is not cut at the output cap.

Before, the fallback sent all of one review's claims × candidates in one call of at most 32,000
output tokens: at 220 tokens a pair that is 144 pairs, which a review of 9 claims against the
spec's 16.6 candidates a paper (or of 5 claims against a full 30-candidate Semantic Scholar
pool) exceeds. Against a model with an output limit (gpt-4o-mini's 16,384 tokens) and verdicts
of the measured ~110 tokens each, such a reply is cut and every pair of the review is unscored.
"""

from __future__ import annotations

import json
from typing import Any

from prism_review.dimensions.base import RunContext
from prism_review.dimensions.novelty_paper import economical_verdicts
from prism_review.judge.base import Usage
from prism_review.judge.novelty import verdict_review
from prism_review.judge.novelty.verdict import CandidateText
from prism_review.testing import novelty_decisions

#: gpt-4o-mini's output limit; a verdict with a one-sentence explanation measures ~110 tokens
MODEL_LIMIT = 16_384
PAIR_CHARS = 4 * 110
N_CLAIMS, N_CANDS = 9, 17


def _respond(body: dict[str, Any]) -> str:
    """Every pair of the request decided from its two texts, each verdict ~110 tokens long."""
    out = novelty_decisions.verdict_claims(body["messages"][-1]["content"])
    for claim in out["claims"]:
        for v in claim["verdicts"]:
            v["explanation"] += "." * max(0, PAIR_CHARS - len(json.dumps(v)))
    return json.dumps(out)


def _review() -> tuple[dict[str, Any], list[dict[str, Any]], list[CandidateText]]:
    paper = {"paper_context": "We propose a sparse router for mixture-of-experts models.",
             "contributions": ["a sparse router"], "compat": False}
    claims = [{"claim_id": f"C{i + 1}", "text": f"The router of section {i + 1} is not novel.",
               "stance": "not_novel", "prior_work_strings": []} for i in range(N_CLAIMS)]
    cands = [CandidateText(cand_id=f"P{j + 1}", text=f"Prior work {j + 1} on expert routing.")
             for j in range(N_CANDS)]
    return paper, claims, cands


async def test_a_review_beyond_one_calls_budget_has_every_pair_scored(llm_server, loopback_judge):
    paper, claims, cands = _review()
    assert verdict_review.reply_tokens(N_CLAIMS, N_CANDS) > verdict_review.MAX_REPLY_TOKENS
    llm_server.set_responder(_respond)
    llm_server.max_output_tokens = MODEL_LIMIT  # the model stops there whatever it is asked
    ctx = RunContext(loopback_judge(), settings={"protocol": "economical"})
    usage = Usage()
    # no paper call to read from (it failed): the review's own verdict_review calls
    outcomes = await economical_verdicts(ctx, None, ("gpt4", "LLM_Reviewer"), paper, claims, cands, usage)
    assert len(outcomes) == N_CLAIMS * N_CANDS
    unscored = [k for k, v in outcomes.items() if not isinstance(v, dict)]
    assert unscored == []  # before: all 153 pairs, the one reply cut at the model's limit
    for (cid, kid), rec in outcomes.items():
        claim = next(c["text"] for c in claims if c["claim_id"] == cid)
        cand = next(c.text for c in cands if c.cand_id == kid)
        assert rec["label"] == novelty_decisions.verdict_of(claim, cand)["label"]
    calls = [r for r in llm_server.requests if r.step == "novelty.verdict_review"]
    assert [r.finish for r in calls] == ["stop", "stop"]  # 5 and 4 claims: 85 and 68 pairs
    assert all(int(r.body["max_tokens"]) <= verdict_review.MAX_REPLY_TOKENS for r in calls)
    assert usage.calls == 2


async def test_a_review_within_one_calls_budget_is_still_one_call(llm_server, loopback_judge):
    paper, claims, cands = _review()
    claims = claims[:3]
    llm_server.set_responder(_respond)
    ctx = RunContext(loopback_judge(), settings={"protocol": "economical"})
    outcomes = await economical_verdicts(ctx, None, ("gpt4", "LLM_Reviewer"), paper, claims, cands, Usage())
    assert all(isinstance(v, dict) for v in outcomes.values()) and len(outcomes) == 3 * N_CANDS
    assert len(llm_server.requests) == 1
