"""A paper, reviews and a scripted LLM for the novelty end-to-end tests and benchmark."""

from __future__ import annotations

import json
import re
from typing import Any

from prism_review.judge.fence import fenced_blocks
from prism_review.records import Paper, Review, Section

TITLE = "Block-Sparse Attention Kernels for Long Document Classification"
PAPER_TEXT = f"""{TITLE}
Anonymous Authors
Abstract
We propose a block-sparse attention kernel for efficient long document classification and \
introduce hierarchical memory tokens that carry context across segments.
1 Introduction
Transformers scale quadratically with sequence length. We propose a block-sparse attention \
kernel. We introduce hierarchical memory tokens.
2 Related Work
Longformer and BigBird use sparse attention.
References
Iz Beltagy, Matthew E. Peters, and Arman Cohan. Longformer: The long-document transformer. arXiv, 2020.
"""

REVIEW_SEA = """**Summary:**
The paper proposes block-sparse attention kernels for long documents.

**Weaknesses:**
The block-sparse kernel is very similar to Longformer and BigBird. The memory tokens are a \
novel idea for cross-segment context.
The experiments are small."""

REVIEW_H1 = """**Summary:** Sparse attention for long documents.

**Weaknesses:** The approach is incremental over sparse transformers (Child et al., 2019)."""

REVIEW_H2 = """**Summary:** A kernel.

**Strengths:** Clear writing and solid experiments."""


def paper() -> Paper:
    return Paper(paper_id="blocksparse", venue="ICLR2024", title=TITLE, full_text=PAPER_TEXT)


def reviews() -> dict[str, list[Review]]:
    def rev(system: str, rid: str, text: str) -> Review:
        secs = [Section(name=m.group(1), text=m.group(2).strip())
                for m in re.finditer(r"\*\*(\w+):\*\*\s*(.*?)(?=\*\*\w+:\*\*|\Z)", text, re.S)]
        return Review(paper_id="blocksparse", venue="ICLR2024", system=system, reviewer_id=rid, sections=secs)

    return {"sea": [rev("sea", "LLM_Reviewer", REVIEW_SEA)],
            "human": [rev("human", "Human_1", REVIEW_H1), rev("human", "Human_2", REVIEW_H2)]}


PAPER_SIDE = {
    "core_task": "Efficient transformers for long document classification",
    "contributions": [
        {"name": "Block-sparse attention kernel", "author_claim_text": "We propose a block-sparse attention kernel.",
         "description": "A kernel computing attention on blocks.", "source_hint": "Introduction"},
        {"name": "Hierarchical memory tokens", "author_claim_text": "We introduce hierarchical memory tokens.",
         "description": "Tokens carrying context across segments.", "source_hint": "Introduction"},
    ],
    "key_terms": ["sparse attention", "long documents", "memory tokens", "document classification", "efficiency"],
    "must_have_entities": ["Longformer", "BigBird"],
}

CLAIMS = {
    "The block-sparse kernel is very similar to Longformer and BigBird.": ("not_novel", ["Longformer", "BigBird"]),
    "The memory tokens are a novel idea for cross-segment context.": ("novel", []),
    "The approach is incremental over sparse transformers (Child et al., 2019).": ("somewhat_novel", ["Child et al., 2019"]),
}


def _user(body: dict[str, Any]) -> str:
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


def _step(body: dict[str, Any]) -> str:
    rf = body.get("response_format") or {}
    return ((rf.get("json_schema") or {}).get("name")) or ""


def _label(claim: str, related: str) -> str:
    title = related.split("\n", 1)[0].lower()
    if "similar to longformer" in claim.lower():
        return "SUPPORTED" if ("longformer" in title or "big bird" in title) else "UNSUPPORTED."  # N5 bait
    if "memory tokens" in claim.lower():
        return "OVERSTATED" if "memory" in title else "SUPPORTED"
    return "AMBIGUOUS"


def responder(body: dict[str, Any]) -> str:
    """Deterministic replies per step (recognised by the response-format schema name)."""
    step, user = _step(body), _user(body)
    if step == "novelty_paper" or fenced_blocks(user, "PAPER") and "Review claim" not in user and not fenced_blocks(user, "REVIEW"):
        return json.dumps(PAPER_SIDE)
    if step == "novelty_claims" or fenced_blocks(user, "REVIEW"):
        review = fenced_blocks(user, "REVIEW")[0]
        claims = [{"claim_id": "", "text": t, "stance": s, "confidence_lang": "medium", "mentions_prior_work": bool(p),
                   "prior_work_strings": p, "evidence_expected": "method_similarity"}
                  for t, (s, p) in CLAIMS.items() if t in " ".join(review.split())]
        return json.dumps({"novelty_claims": claims, "all_citations_raw": []})
    if step in ("novelty_verdict_review", "novelty_verdict_paper"):  # every claim against every candidate
        related = list(zip(re.findall(r"Related work (\S+):\n", user), fenced_blocks(user, "RELATED"), strict=True))
        claims = zip(re.findall(r"Review claim (\S+):\n", user), fenced_blocks(user, "CLAIM"), strict=True)
        return json.dumps({"claims": [
            {"review_sentence_id": cid, "verdicts": [
                {"related_paper_id": rid, "classification": {"claim": 1, "proof": 1}, "stance_alignment": None,
                 "calibration": None, "score": None, "label": _label(text.strip(), rel),
                 "explanation": f"scripted: {_label(text.strip(), rel)}"} for rid, rel in related]}
            for cid, text in claims]})
    claim = fenced_blocks(user, "CLAIM")[0].strip()
    cid = re.search(r"Review claim (\S+):", user).group(1)
    blocks = list(zip(re.findall(r"Related work (\S+):\n", user), fenced_blocks(user, "RELATED"), strict=True))

    def verdict(rid: str, text: str) -> dict[str, Any]:
        label = _label(claim, text)
        return {"review_sentence_id": cid, "related_paper_id": rid, "classification": {"claim": 1, "proof": 1},
                "stance_alignment": None, "calibration": None, "score": None, "label": label,
                "explanation": f"scripted: {label}"}

    if step == "novelty_verdict_batch" or "\"verdicts\"" in user:
        return json.dumps({"verdicts": [verdict(r, t) for r, t in blocks]})
    return json.dumps(verdict(*blocks[0]))
