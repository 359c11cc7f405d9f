"""Novelty verdicts of the economical and pooled protocols.

``--protocol economical`` (the default, selection-invariant) judges each review's claims in its
own ``novelty.verdict_review`` calls (:func:`review_verdicts`): the call's content is the paper,
its candidate pool and that review's claims, nothing of another review, so the paper-and-pool
prefix repeats per review (billed at the cached-input price by providers with prompt caching).

``--protocol pooled`` (opt-in; a review's verdicts then depend on the paper's other reviews in
the run) judges a paper's claims together. As with the flaw pieces
(``dimensions/flaws_pieces.py``), the verdicts are per-paper pieces computed once through ``ctx.memo`` (persisted in the run
folder, so a resumed run asks nothing again) and shared by every unit of the paper:

* **claims**: each review text's ``novelty.claims`` extraction, memoised per text, so the
  paper's verdict calls and the review's own row read the same extraction;
* **verdicts**: every distinct claim of the paper's review texts (the same claim text, stance and
  prior-work strings in two reviews is judged once) against the paper's candidate pool in
  ``novelty.verdict_paper`` calls: the paper and the pool once per call, the claims split
  deterministically into calls that fit the step's output budget
  (:func:`~prism_review.judge.novelty.verdict_review.paper_chunks`). The prompt, schema, check
  and normalisation are ``novelty.verdict_review``'s, so each pair's record is the one the
  per-review call gives for the same decision.

A paper call whose reply stays unusable after its re-ask (unparsable, cut, a pair missing) is
memoised as failed, and each review with a claim in it is judged by its own
``novelty.verdict_review`` calls (:func:`review_verdicts`, chunked as a paper's claims are), so
a failure stays that review's
(its pairs unscored, never 0). A call that got no reply at all raises: nothing is memoised and
the units stay unwritten. Each call's usage goes on the row of the first review text (in
(system, reviewer) order) with a claim in it, so the rows' usages sum to what the run spent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from prism_review.dimensions.base import RunContext, WorkUnit
from prism_review.dimensions.memo import input_digest
from prism_review.judge.base import Usage
from prism_review.judge.novelty.claims import ClaimsInput, ClaimsStep
from prism_review.judge.novelty.textprep import CLAIM_MAX_CHARS, review_for_extraction
from prism_review.judge.novelty.verdict import CandidateText
from prism_review.judge.novelty.verdict_review import (
    ReviewClaim,
    VerdictPaperStep,
    VerdictReviewInput,
    VerdictReviewStep,
    paper_chunks,
)
from prism_review.judge.novelty.verify import PairError

#: (system, reviewer id, text): one review text of the paper the dimension judges
Text = tuple[str, str, str]
Outcomes = dict[tuple[str, str], Any]


async def review_claims(ctx: RunContext, unit: WorkUnit, system: str, reviewer_id: str, text: str, *,
                        shared: bool) -> dict[str, Any]:
    """One review text's novelty claims: ``{"claims": [...], "usage": ...}`` or ``{"error": ...,
    "usage": ...}`` when the step gave no usable reply. ``shared``: memoised per paper, system
    and text (the economical protocol, whose paper call reads every review's claims; the system
    is in the key so that the one row reading a memo entry is the one owing its usage)."""
    inp = ClaimsInput(review_id=reviewer_id, review=review_for_extraction(text), compat=ctx.compat)

    async def compute() -> dict[str, Any]:
        res = await ctx.run(ClaimsStep(), inp)
        if not res.ok or res.output is None:
            return {"error": res.error or "unscored", "usage": res.usage.model_dump()}
        out = res.output
        claims = [{**c.model_dump(), "text": c.text[:CLAIM_MAX_CHARS], "source": s}
                  for c, s in zip(out.novelty_claims, out.sources, strict=True)]
        return {"claims": claims, "usage": res.usage.model_dump()}

    if not shared:
        return await compute()
    key = f"novelty/claims/{unit.venue}/{unit.paper_id}/{system}/{input_digest(inp)}"
    return await ctx.memo(key, compute)  # type: ignore[no-any-return]


def _judged(claim: dict[str, Any]) -> tuple[str, str, tuple[str, ...]]:
    """What the verdict rules read of a claim: two claims equal in it are one decision."""
    return claim["text"], claim["stance"], tuple(claim.get("prior_work_strings") or [])


def _review_claim(claim_id: str, claim: dict[str, Any]) -> ReviewClaim:
    return ReviewClaim(claim_id=claim_id, claim=claim["text"], claim_stance=claim["stance"],
                       prior_work_strings=claim.get("prior_work_strings", []))


def verdict_input(paper_inputs: dict[str, Any], cands: list[CandidateText],
                  claims: list[ReviewClaim]) -> VerdictReviewInput:
    return VerdictReviewInput(paper_context=paper_inputs["paper_context"],
                              contributions=paper_inputs["contributions"], compat=paper_inputs["compat"],
                              candidates=cands, claims=claims)


async def _all(jobs: list[Awaitable[Any]]) -> list[Any]:
    """Every job run to its end (so each queues its call, as batch mode needs), then the first
    exception raised, if any."""
    got = await asyncio.gather(*jobs, return_exceptions=True)
    for g in got:
        if isinstance(g, BaseException):
            raise g
    return got


async def _paper_call(ctx: RunContext, unit: WorkUnit, inp: VerdictReviewInput) -> dict[str, Any]:
    """One ``novelty.verdict_paper`` call, memoised: its per-pair records, or why it failed."""

    async def compute() -> dict[str, Any]:
        step = VerdictPaperStep()
        res = await ctx.run(step, inp)
        if res.ok and res.output is not None:
            return {"verdicts": list(res.output.pairs().values()), "usage": res.usage.model_dump()}
        return {"error": res.error or "unscored", "usage": res.usage.model_dump()}

    key = f"novelty/verdict_paper/{unit.venue}/{unit.paper_id}/{input_digest(inp)}"
    return await ctx.memo(key, compute)  # type: ignore[no-any-return]


async def paper_verdicts(ctx: RunContext, unit: WorkUnit, texts: list[Text], paper_inputs: dict[str, Any],
                         cands: list[CandidateText]) -> dict[tuple[str, str], dict[str, Any]]:
    """Per review text ``(system, reviewer id)`` of the paper: ``{"pairs": {(claim id, candidate
    id): record}, "failed": why or None, "usage": Usage}``; ``usage`` is what the row of that
    text owes for the paper's calls, ``failed`` says that a call holding one of its claims gave
    no usable reply (the review is then judged on its own)."""
    texts = sorted(texts, key=lambda t: (t[0], t[1]))
    records = await _all([review_claims(ctx, unit, system, rid, text, shared=True) for system, rid, text in texts])
    ids: dict[tuple[str, str, tuple[str, ...]], str] = {}
    distinct: list[ReviewClaim] = []
    for rec in records:
        for c in rec.get("claims") or []:
            if _judged(c) not in ids:
                ids[_judged(c)] = f"C{len(ids) + 1}"
                distinct.append(_review_claim(ids[_judged(c)], c))
    chunks = paper_chunks(distinct, len(cands))
    answers = await _all([_paper_call(ctx, unit, verdict_input(paper_inputs, cands, ch)) for ch in chunks])
    chunk_of = {c.claim_id: i for i, ch in enumerate(chunks) for c in ch}
    records_of: dict[tuple[str, str], dict[str, Any]] = {}
    for ans in answers:
        for v in ans.get("verdicts") or []:
            records_of[(v["review_sentence_id"], v["related_paper_id"])] = v
    out: dict[tuple[str, str], dict[str, Any]] = {}
    billed: set[int] = set()
    for (system, rid, _), rec in zip(texts, records, strict=True):
        usage, pairs, failed = Usage(), {}, None
        for c in rec.get("claims") or []:
            pid = ids[_judged(c)]
            i = chunk_of[pid]
            if i not in billed:  # the call's usage on the first text with a claim in it
                billed.add(i)
                usage.add(Usage(**answers[i]["usage"]))
            if "error" in answers[i]:
                failed = failed or answers[i]["error"]
                continue
            for k in cands:
                got = records_of.get((pid, k.cand_id))
                if got is not None:
                    pairs[(c["claim_id"], k.cand_id)] = {**got, "review_sentence_id": c["claim_id"]}
        out[(system, rid)] = {"pairs": pairs, "failed": failed, "usage": usage}
    return out


async def review_verdicts(ctx: RunContext, paper_inputs: dict[str, Any], claims: list[dict[str, Any]],
                          cands: list[CandidateText], usage: Usage) -> Outcomes:
    """Every (claim, candidate) pair of one review in ``novelty.verdict_review`` calls: the
    economical protocol's verdicts, and under pooled the fallback of a review whose paper call
    gave no usable reply. The review's claims are split
    as a paper's are (:func:`paper_chunks`: the same output budget), so a review whose pairs
    need more than one call's budget is not cut (one call, as before, when they fit); a failed
    call leaves only its own claims' pairs unscored."""
    chunks = paper_chunks([_review_claim(c["claim_id"], c) for c in claims], len(cands))
    results = await _all([ctx.run(VerdictReviewStep(), verdict_input(paper_inputs, cands, ch)) for ch in chunks])
    outcomes: Outcomes = {}
    for chunk, res in zip(chunks, results, strict=True):
        usage.add(res.usage)
        got = res.output.pairs() if res.ok and res.output else {}
        for c in chunk:
            for k in cands:
                key = (c.claim_id, k.cand_id)
                if key in got:
                    outcomes[key] = got[key]
                elif res.raw is None and not res.ok:
                    outcomes[key] = PairError(res.error or "judge call failed")
                else:
                    outcomes[key] = None
    return outcomes


async def economical_verdicts(ctx: RunContext, paper: dict[tuple[str, str], dict[str, Any]] | None,
                              key: tuple[str, str], paper_inputs: dict[str, Any], claims: list[dict[str, Any]],
                              cands: list[CandidateText], usage: Usage) -> Outcomes:
    """One review's pair outcomes: from the paper's calls, else (a call holding one of its claims
    failed, or the review is not in them) its own ``novelty.verdict_review`` call."""
    mine = (paper or {}).get(key)
    if mine is not None:
        usage.add(mine["usage"])
        if mine["failed"] is None:
            return {(c["claim_id"], k.cand_id): mine["pairs"].get((c["claim_id"], k.cand_id))
                    for c in claims for k in cands}
    return await review_verdicts(ctx, paper_inputs, claims, cands, usage)
