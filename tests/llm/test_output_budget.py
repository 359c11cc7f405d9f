"""Output budgets: never below the reference's, and a server's lower limit is honoured, not fatal.

Issue 11 item 7: flaw consolidation ran with a 2,000-token budget against the reference's
35,000, so a long list of flaws was cut. The step now asks for 35,000 and the default step cap
lets it through; a server that allows less (gpt-4o-mini: 16,384; vLLM: its context minus the
prompt) says so in a 400, and the request is sent again with the largest budget it accepts.
"""

from __future__ import annotations

import json
from typing import Any

from prism_review.judge.flaws.models import ConsolidateInput, Issue, MapBatchInput, ReviewerText
from prism_review.judge.flaws.steps import ConsolidateStep, MapBatchStep
from prism_review.judge.novelty.claims import ClaimsInput, ClaimsStep
from prism_review.judge.novelty.verdict import CandidateText, VerdictBatchInput, VerdictBatchStep
from prism_review.llm.budget import allowed_max_tokens
from prism_review.testing.llm_server import Fault

POOL = ConsolidateInput(reviews=[ReviewerText(reviewer_id="Human_1", text="The baseline is weak."),
                                 ReviewerText(reviewer_id="LLM_Reviewer", text="No ablation.")])
REPLY = {"micro_flaws": [{"flaw_id": "F01", "macro_topic": "4. Experimental Design & Evaluation - "
                          "Missing/Weak Baselines", "core_summary": "Weak baseline.",
                          "raw_arguments": {"Human_1": "The baseline is weak."}}]}


def _budget(body: dict[str, Any]) -> int:
    return int(body.get("max_tokens") or body.get("max_completion_tokens"))


async def test_default_budgets_reach_the_server(llm_server: Any, loopback_judge: Any) -> None:
    llm_server.canned("flaws.consolidate", REPLY)
    llm_server.canned("novelty.claims", {"novelty_claims": [], "all_citations_raw": []})
    judge = loopback_judge()
    assert (await judge.run(ConsolidateStep(), POOL)).ok
    assert (await judge.run(ClaimsStep(), ClaimsInput(review="It is incremental."))).ok
    batch = VerdictBatchInput(claim_id="C1", claim="c", paper_context="p",
                              candidates=[CandidateText(cand_id=f"P{i}", text="t") for i in range(5)])
    await judge.run(VerdictBatchStep(), batch)
    sent = {r.step: _budget(r.body) for r in llm_server.requests}
    assert sent["flaws.consolidate"] == 35_000  # the reference's step-1 cap, not 2,000
    assert sent["novelty.claims"] == 8_000  # the reference's Task 1 cap, not 2,000
    assert sent["novelty.verdict_batch"] == 5 * 800  # the reference's 800 per pair


async def test_the_batched_mapping_gets_the_mapping_budget(llm_server: Any,
                                                           loopback_judge: Any) -> None:
    # economical flaws map a paper's reviews in one call: the global 8,000 cap cut it short
    llm_server.canned("flaws.map_batch", {"reviews": []})
    batch = MapBatchInput(reviews=POOL.reviews, issues=[Issue(issue_id="F01", shared_severity="Minor")])
    await loopback_judge().run(MapBatchStep(), batch)
    assert [_budget(r.body) for r in llm_server.requests][0] == 35_000


async def test_a_server_limit_below_the_budget_is_used_not_fatal(llm_server: Any,
                                                                 loopback_judge: Any) -> None:
    limit = 16_384

    def server(body: dict[str, Any]) -> Any:
        asked = _budget(body)
        if asked > limit:
            return Fault.status(400, f"max_tokens is too large: {asked}. This model supports at "
                                     f"most {limit} completion tokens, whereas you provided {asked}.")
        return json.dumps(REPLY)

    llm_server.set_responder(server)
    judge = loopback_judge()
    res = await judge.run(ConsolidateStep(), POOL)
    assert res.ok and res.output.micro_flaws[0].flaw_id == "F01"
    assert [_budget(r.body) for r in llm_server.requests] == [35_000, limit]
    other = ConsolidateInput(reviews=[ReviewerText(reviewer_id="Human_1", text="Unclear notation.")])
    assert (await judge.run(ConsolidateStep(), other)).ok
    assert _budget(llm_server.requests[-1].body) == limit  # the model's limit is remembered


def test_limits_read_from_server_messages() -> None:
    openai_msg = ("max_tokens is too large: 35000. This model supports at most 16384 completion "
                  "tokens, whereas you provided 35000.")
    vllm_old = ("This model's maximum context length is 32768 tokens. However, you requested "
                "40000 tokens (5000 in the messages, 35000 in the completion).")
    vllm_new = ("'max_tokens' or 'max_completion_tokens' is too large: 35000. This model's maximum "
                "context length is 32768 tokens and your request has 5000 input tokens "
                "(35000 > 32768 - 5000).")
    assert allowed_max_tokens(openai_msg, 35_000) == 16_384
    assert allowed_max_tokens(vllm_old, 35_000) == 27_768
    assert allowed_max_tokens(vllm_new, 35_000) == 27_768
    assert allowed_max_tokens("response_format json_schema is not supported", 35_000) is None
    assert allowed_max_tokens(openai_msg, 8_000) is None  # already within the limit
    # a prompt that alone fills the context leaves no budget: no retry, the 400 stands
    assert allowed_max_tokens(vllm_old.replace("5000 in the messages", "33000 in the messages"),
                              35_000) is None


async def test_the_paper_verdict_call_gets_the_budget_its_chunks_are_cut_to(llm_server: Any,
                                                                          loopback_judge: Any) -> None:
    # economical novelty chunks a paper's claims to fit PAPER_REPLY_TOKENS: the global 8,000
    # cap would cut every full chunk's reply short (then re-ask, then one call per review)
    from prism_review.judge.novelty.verdict_review import (
        PAPER_REPLY_TOKENS,
        ReviewClaim,
        VerdictPaperStep,
        VerdictReviewInput,
        paper_chunks,
    )

    cands = [CandidateText(cand_id=f"P{i}", text="t") for i in range(12)]
    claims = [ReviewClaim(claim_id=f"C{i}", claim=f"claim {i}") for i in range(30)]
    chunk = paper_chunks(claims, len(cands))[0]
    llm_server.canned("novelty.verdict_paper", {"claims": []})
    await loopback_judge().run(VerdictPaperStep(), VerdictReviewInput(paper_context="p", candidates=cands, claims=chunk))
    assert VerdictPaperStep().max_tokens(VerdictReviewInput(paper_context="p", candidates=cands, claims=chunk)) > 8_000
    assert _budget(llm_server.requests[0].body) == VerdictPaperStep().max_tokens(
        VerdictReviewInput(paper_context="p", candidates=cands, claims=chunk)) <= PAPER_REPLY_TOKENS
