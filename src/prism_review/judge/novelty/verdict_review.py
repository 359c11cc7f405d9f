"""``novelty.verdict_review``: all of a review's claims against the paper's candidates, one call.

The economical protocol's verdict step (``dimensions/protocol.py``). It asks for exactly the
per-pair verdicts of ``novelty.verdict`` (same rules, labels and axes, each pair judged on its
own) for every (claim, candidate) pair of one review, and splits the reply back into per-pair
records normalised the same way (N5), so metrics see the records of the single-pair step. A
missing pair is re-asked once (``check``) and otherwise left unscored (N4).

The prompt puts the paper and the candidate pool first: that prefix is identical for every
review of the paper, so providers with prompt caching bill it at the cached-input price.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from prism_review.judge.base import MANY_ITEMS_REPLY_TOKENS, ChatMessage, JudgeStep
from prism_review.judge.fence import fence
from prism_review.judge.novelty import prompts
from prism_review.judge.novelty.verdict import (
    CandidateText,
    VerdictBatchInput,
    VerdictOut,
    _finalize_one,
    offline_verdicts,
    related_blocks,
    verdict_enums,
)

#: output tokens per pair: one verdict with a one-sentence explanation
PAIR_TOKENS = 220
#: output tokens of a reply's frame (the object, its claim entries' ids)
REPLY_OVERHEAD = 200
MAX_REPLY_TOKENS = MANY_ITEMS_REPLY_TOKENS
#: the output budget of one paper call (``novelty.verdict_paper``, its ``reply_cap``), as the per-review call's: a paper's claims are split into calls whose
#: ``reply_tokens`` fit it (144 pairs). A verdict with a one-sentence explanation is ~100-110
#: tokens, so such a reply is ~15-16k tokens: within the 16,384 output tokens of gpt-4o and
#: gpt-4o-mini, whose 400 on a larger budget makes the judge resend the call with theirs
PAPER_REPLY_TOKENS = MAX_REPLY_TOKENS
#: at most this many claims in one paper call, however few the candidates
PAPER_MAX_CLAIMS = 24


class ReviewClaim(BaseModel):
    """One claim of the review, with what the verdict rules read about it."""

    claim_id: str
    claim: str
    claim_stance: str = "unclear"
    prior_work_strings: list[str] = Field(default_factory=list)


class VerdictReviewInput(BaseModel):
    """Every claim of one review and every candidate of the paper."""

    paper_context: str
    contributions: list[str] = Field(default_factory=list)
    candidates: list[CandidateText]
    claims: list[ReviewClaim]
    compat: bool = False

    def for_claim(self, claim: ReviewClaim) -> VerdictBatchInput:
        """The single-claim batch input of one claim (used by the offline rule)."""
        return VerdictBatchInput(claim_id=claim.claim_id, claim=claim.claim, claim_stance=claim.claim_stance,
                                 prior_work_strings=claim.prior_work_strings, paper_context=self.paper_context,
                                 contributions=self.contributions, compat=self.compat,
                                 candidates=self.candidates)


class CandidateVerdict(BaseModel):
    """One candidate's verdict on the claim it is listed under (the fields of ``VerdictOut``
    but the claim id, which the enclosing entry carries)."""

    related_paper_id: Any = Field(default="", json_schema_extra={"type": "string"})
    classification: Any = VerdictOut.model_fields["classification"]
    stance_alignment: Any = VerdictOut.model_fields["stance_alignment"]
    calibration: Any = VerdictOut.model_fields["calibration"]
    score: Any = VerdictOut.model_fields["score"]
    label: Any = VerdictOut.model_fields["label"]
    explanation: Any = Field(default="", json_schema_extra={"type": "string"})


class ClaimVerdicts(BaseModel):
    """The verdicts of one claim: one per candidate."""

    review_sentence_id: Any = Field(default="", json_schema_extra={"type": "string"})
    verdicts: list[CandidateVerdict] = Field(default_factory=list)


class VerdictReviewOutput(BaseModel):
    """One entry per claim, each with one verdict per candidate."""

    claims: list[ClaimVerdicts] = Field(default_factory=list)

    def pairs(self) -> dict[tuple[str, str], dict[str, Any]]:
        """(claim id, candidate id) → the first verdict given for that pair (a flat record)."""
        got: dict[tuple[str, str], dict[str, Any]] = {}
        for c in self.claims:
            cid = str(c.review_sentence_id or "").strip()
            for v in c.verdicts:
                key = (cid, str(v.related_paper_id or "").strip())
                if key not in got:
                    got[key] = {"review_sentence_id": cid, **v.model_dump()}
        return got


def reply_tokens(n_claims: int, n_candidates: int) -> int:
    """The output budget asked for ``n_claims`` claims against ``n_candidates`` candidates."""
    return REPLY_OVERHEAD + PAIR_TOKENS * max(1, n_claims * n_candidates)


class VerdictReviewStep(JudgeStep[VerdictReviewInput, VerdictReviewOutput]):
    """Every (claim, candidate) pair of one review in one call; one verdict per pair."""

    name = "novelty.verdict_review"
    reply_cap = MAX_REPLY_TOKENS
    Input = VerdictReviewInput
    Output = VerdictReviewOutput

    def messages(self, inp: VerdictReviewInput) -> list[ChatMessage]:
        related = related_blocks(inp.candidates)
        claims = "\n\n".join(f"Review claim {c.claim_id}:\n{fence('CLAIM', c.claim)}" for c in inp.claims)
        user = prompts.VERDICT_REVIEW_USER.format(
            paper=fence("PAPER", inp.paper_context), related_blocks=related, rules=prompts.VERDICT_RULES,
            claim_blocks=claims, n_claims=len(inp.claims), n_related=len(inp.candidates))
        return [ChatMessage(role="system", content=prompts.VERDICT_SYSTEM), ChatMessage(role="user", content=user)]

    def max_tokens(self, inp: VerdictReviewInput) -> int | None:
        return min(MAX_REPLY_TOKENS, reply_tokens(len(inp.claims), len(inp.candidates)))

    def schema_enums(self, inp: VerdictReviewInput) -> dict[str, list[str]]:
        return {"review_sentence_id": [c.claim_id for c in inp.claims],
                "related_paper_id": [c.cand_id for c in inp.candidates], **verdict_enums(inp.compat)}

    def offline(self, inp: VerdictReviewInput) -> VerdictReviewOutput:
        return VerdictReviewOutput(claims=[
            ClaimVerdicts(review_sentence_id=c.claim_id,
                          verdicts=[CandidateVerdict(**{k: v for k, v in rec.items() if k != "review_sentence_id"})
                                    for rec in offline_verdicts(inp.for_claim(c))])
            for c in inp.claims])

    def check(self, inp: VerdictReviewInput, out: VerdictReviewOutput) -> str | None:
        """A re-ask reason when some pair has no verdict."""
        got = out.pairs()
        missing = [f"{c.claim_id}/{k.cand_id}" for c in inp.claims for k in inp.candidates
                   if (c.claim_id, k.cand_id) not in got]
        if missing:
            shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
            return f"no verdict for the pair(s) {shown}; give one verdict per (review claim, related work) pair"
        return None

    def finalize(self, inp: VerdictReviewInput, out: VerdictReviewOutput) -> VerdictReviewOutput:
        """Per-pair verdicts normalised as the single-pair step's (N5), in input order; a pair
        the reply has no verdict for is left out (unscored)."""
        got = out.pairs()
        claims = []
        for c in inp.claims:
            verdicts = []
            for k in inp.candidates:
                if (c.claim_id, k.cand_id) in got:
                    norm = _finalize_one(got[(c.claim_id, k.cand_id)], c.claim_id, k.cand_id, c.claim, inp.compat)
                    verdicts.append(CandidateVerdict(**norm.model_dump(exclude={"review_sentence_id"})))
            claims.append(ClaimVerdicts(review_sentence_id=c.claim_id, verdicts=verdicts))
        return VerdictReviewOutput(claims=claims)


class VerdictPaperStep(VerdictReviewStep):
    """The claims of several reviews of one paper against its candidates, one call
    (``dimensions/novelty_paper.py``): the prompt, schema, check and normalisation of
    ``novelty.verdict_review`` (each claim judged on its own; the claims come from several
    reviews, which the rules never refer to), under its own name so the calls and the output
    budget (``PAPER_REPLY_TOKENS``, its ``reply_cap``) are its own."""

    name = "novelty.verdict_paper"
    reply_cap = PAPER_REPLY_TOKENS

    def max_tokens(self, inp: VerdictReviewInput) -> int | None:
        return min(PAPER_REPLY_TOKENS, reply_tokens(len(inp.claims), len(inp.candidates)))


def paper_chunks(claims: list[ReviewClaim], n_candidates: int) -> list[list[ReviewClaim]]:
    """``claims`` in consecutive chunks of near-equal size, each at most ``PAPER_MAX_CLAIMS``
    claims and within ``PAPER_REPLY_TOKENS`` against ``n_candidates`` candidates (one claim a
    call at least). Deterministic: the same claims in the same order give the same chunks."""
    if not claims:
        return []
    fit = (PAPER_REPLY_TOKENS - REPLY_OVERHEAD) // (PAIR_TOKENS * max(1, n_candidates))
    per = max(1, min(PAPER_MAX_CLAIMS, fit))
    n_chunks = -(-len(claims) // per)
    size = -(-len(claims) // n_chunks)
    return [claims[i : i + size] for i in range(0, len(claims), size)]
