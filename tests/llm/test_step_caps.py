"""Every step whose output budget can exceed the judge's global cap (8,000 tokens) gets its own
budget on the wire: the step states its cap (``JudgeStep.reply_cap``) beside the budget it
computes, and that cap replaces the global default for the step; a ``max_tokens`` the user
configures still caps it. Before, the caps were a table in ``llm/settings.py`` that each step had
to be added to by hand, and two were missing: ``novelty.verdict_review`` (the fallback of a
paper's verdict call: up to 32,000 tokens asked, 8,000 sent) and ``flaws.validate`` (40 tokens a
flaw: a pool of more than 193 flaws was cut to 8,000), besides ``novelty.verdict_batch`` with a
``verdict_batch`` setting above 10 (800 tokens a candidate).

The steps were found by reading every ``max_tokens`` in ``judge/*/`` and ``tasks/``: the others
ask for at most 8,000 (``constructiveness.arc``'s adaptive budget is clamped to it) or for the
global cap itself.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from prism_review.judge.base import JudgeStep
from prism_review.judge.constructiveness.arc_batch import ARCBatchInput, ARCBatchStep, BatchReview
from prism_review.judge.flaws.extend import ExtendInput, ExtendStep
from prism_review.judge.flaws.models import (
    ConsolidateInput,
    Issue,
    MapBatchInput,
    MapInput,
    MicroFlaw,
    ReviewerText,
    ValidateInput,
)
from prism_review.judge.flaws.steps import ConsolidateStep, MapBatchStep, MapStep, ValidateStep
from prism_review.judge.novelty.verdict import CandidateText, VerdictBatchInput, VerdictBatchStep
from prism_review.judge.novelty.verdict_review import (
    ReviewClaim,
    VerdictPaperStep,
    VerdictReviewInput,
    VerdictReviewStep,
)
from prism_review.llm.settings import DEFAULTS, Settings

GLOBAL_CAP = DEFAULTS["max_tokens"]
REVIEWS = [ReviewerText(reviewer_id="Human_1", text="The baseline is weak."),
           ReviewerText(reviewer_id="Human_2", text="No ablation.")]
ISSUES = [Issue(issue_id="F01", shared_severity="Minor")]
CANDS = [CandidateText(cand_id=f"P{i}", text="t") for i in range(5)]
CLAIMS = [ReviewClaim(claim_id=f"C{i}", claim=f"claim {i}") for i in range(10)]
REVIEW_CLAIMS = VerdictReviewInput(paper_context="p", candidates=CANDS, claims=CLAIMS)

CASES: list[tuple[JudgeStep[Any, Any], BaseModel]] = [
    (ConsolidateStep(), ConsolidateInput(reviews=REVIEWS)),
    (ValidateStep(), ValidateInput(paper_text="p", micro_flaws=[
        MicroFlaw(flaw_id=f"F{i:03d}", core_summary="s") for i in range(250)])),
    (MapStep(), MapInput(reviewer_id="Human_1", review_text="r", issues=ISSUES)),
    (MapBatchStep(), MapBatchInput(reviews=REVIEWS, issues=ISSUES)),
    (ExtendStep(), ExtendInput(flaws=[MicroFlaw(flaw_id="F01", core_summary="s")], review=REVIEWS[0])),
    (VerdictReviewStep(), REVIEW_CLAIMS),
    (VerdictPaperStep(), REVIEW_CLAIMS),
    (VerdictBatchStep(), VerdictBatchInput(claim_id="C1", claim="c", paper_context="p", candidates=[
        CandidateText(cand_id=f"P{i}", text="t") for i in range(15)])),
    (ARCBatchStep(), ARCBatchInput(reviews=[BatchReview(review_id="R1", review_text="text")])),
]


@pytest.mark.parametrize(("step", "inp"), CASES, ids=[s.name for s, _ in CASES])
async def test_a_step_over_the_global_cap_sends_its_own_budget(llm_server, loopback_judge, step, inp):
    wanted = step.max_tokens(inp)
    assert wanted is not None and wanted > GLOBAL_CAP  # the case this test is about
    await loopback_judge().run(step, inp)
    assert llm_server.requests[0].step == step.name
    assert llm_server.requests[0].body["max_tokens"] == wanted <= step.reply_cap


async def test_a_configured_cap_still_caps_a_step_with_its_own(llm_server, loopback_judge):
    await loopback_judge(max_tokens=6000).run(VerdictReviewStep(), REVIEW_CLAIMS)
    n = len(llm_server.requests)  # the echo's reply has no verdict: a check re-ask follows
    await loopback_judge(steps={"novelty": {"max_tokens": 5000}}).run(VerdictReviewStep(), REVIEW_CLAIMS)
    asked = [r.body["max_tokens"] for r in llm_server.requests]
    assert set(asked[:n]) == {6000} and set(asked[n:]) == {5000}


def test_the_steps_cap_sits_just_above_the_defaults(tmp_path):
    cfg = tmp_path / "judge.toml"
    cfg.write_text("[llm]\nmax_tokens = 4000\n")
    assert Settings(env={}).for_step("s.x", step_cap=32_000)["max_tokens"] == 32_000
    assert Settings(env={}).for_step("s.x")["max_tokens"] == GLOBAL_CAP
    assert Settings(env={}, config_path=cfg).for_step("s.x", step_cap=32_000)["max_tokens"] == 4000
    assert Settings(env={"PRISM_STEP__S__MAX_TOKENS": "3000"}).for_step(
        "s.x", step_cap=32_000)["max_tokens"] == 3000


async def test_the_dry_run_estimates_a_steps_own_budget(llm_server, loopback_judge):
    """``--dry-run`` queues the request the live call would send, so its output budget (the
    estimate's upper bound) is the step's own, not the global cap's."""
    from prism_review.llm.batch import Deferred

    judge = loopback_judge(dry_run=True)
    with pytest.raises(Deferred):
        await judge.run(VerdictReviewStep(), REVIEW_CLAIMS)
    (row,) = judge.batch.estimate(judge.prices, batch=False)
    assert row["dimension"] == "novelty" and row["calls"] == 1
    assert row["output_budget"] == VerdictReviewStep().max_tokens(REVIEW_CLAIMS) > GLOBAL_CAP
    assert llm_server.requests == []
