"""A loopback responder whose novelty decisions do not depend on how the calls are grouped.

Used to check that ``--protocol economical`` (a paper's claims judged together in
``novelty.verdict_paper``) and ``--protocol reference`` (one ``novelty.verdict`` per claim ×
candidate) give the same novelty metrics when the judge decides the same things
(tests/novelty/test_economical.py, docs/fidelity.md "Economical novelty"). Every decision is a
function of the text it is about, never of the rest of the request:

* ``novelty.claims``: the review's sentences that hold a novelty cue (:data:`CUES`), at most
  :data:`MAX_CLAIMS`, in order; the stance follows from the cue (:func:`stance_of`);
* every verdict step (``novelty.verdict``, ``verdict_batch``, ``verdict_review``,
  ``verdict_paper``): the verdict on a (claim, related work) pair is a hash of the claim's text
  and the related work's text (:func:`verdict_of`), so it is the same in a call of one pair or
  of a whole paper's claims.

Any other step gets ``fallback(body)`` (e.g. the server's schema-built reply, or
:mod:`prism_review.testing.flaw_decisions`'s responder, which falls back in turn).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any

from prism_review.judge.fence import fenced_blocks
from prism_review.judge.novelty.normalise import LABEL_CALIBRATION, LABEL_STANCE
from prism_review.llm.parse import schema_name
from prism_review.metrics.novelty import LABEL_SCORES
from prism_review.testing.step_responder import Responder, step_responder

#: a sentence holding one of these is a novelty claim (lower-case substrings)
CUES = ("novel", "incremental", "similar to", "prior work", "previous work", "original", "new ")
MAX_CLAIMS = 4
LABELS = tuple(LABEL_SCORES)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_CLAIM = re.compile(r"Review claim (\S+):\n<<<BEGIN CLAIM ([0-9a-f]{16})>>>\n(.*?)\n<<<END CLAIM \2>>>", re.S)
_RELATED = re.compile(r"Related work (\S+):\n<<<BEGIN RELATED ([0-9a-f]{16})>>>\n(.*?)\n<<<END RELATED \2>>>", re.S)


def stance_of(sentence: str) -> str:
    low = sentence.lower()
    if any(k in low for k in ("not novel", "incremental", "similar to", "lack of novelty", "limited novelty")):
        return "not_novel"
    if any(k in low for k in ("somewhat", "moderate", "partially")):
        return "somewhat_novel"
    if any(k in low for k in ("novel", "original", "new ")):
        return "novel"
    return "unclear"


def claims(user: str) -> dict[str, Any]:
    reviews = fenced_blocks(user, "REVIEW")
    found: list[dict[str, Any]] = []
    for s in _SENTENCE.split(reviews[0] if reviews else ""):
        s = s.strip()
        if len(s) > 20 and any(k in s.lower() for k in CUES):
            found.append({"claim_id": f"C{len(found) + 1}", "text": s, "stance": stance_of(s),
                          "confidence_lang": "medium", "mentions_prior_work": False, "prior_work_strings": [],
                          "evidence_expected": "method_similarity"})
        if len(found) == MAX_CLAIMS:
            break
    return {"novelty_claims": found, "all_citations_raw": []}


def verdict_of(claim: str, related: str) -> dict[str, Any]:
    """The verdict on one pair: read off the two texts alone."""
    h = hashlib.sha256(f"{claim}\n\x00\n{related}".encode()).digest()
    label = LABELS[h[0] % len(LABELS)]
    return {"classification": {"claim": 1, "proof": h[1] % 2}, "stance_alignment": LABEL_STANCE[label],
            "calibration": LABEL_CALIBRATION.get(label, "N/A"), "score": LABEL_SCORES[label], "label": label,
            "explanation": f"decided from the two texts: {label}"}


def _pairs(user: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    return ([(cid, text) for cid, _, text in _CLAIM.findall(user)],
            [(rid, text) for rid, _, text in _RELATED.findall(user)])


def verdict(user: str) -> dict[str, Any]:
    (cid, claim), (rid, related) = (p[0] for p in _pairs(user))
    return {"review_sentence_id": cid, "related_paper_id": rid, **verdict_of(claim, related)}


def verdict_batch(user: str) -> dict[str, Any]:
    found, related = _pairs(user)
    cid, claim = found[0]
    return {"verdicts": [{"review_sentence_id": cid, "related_paper_id": rid, **verdict_of(claim, text)}
                         for rid, text in related]}


def verdict_claims(user: str) -> dict[str, Any]:
    """Every claim of the request against every related work (``verdict_review`` and
    ``verdict_paper``), each pair decided on its own."""
    found, related = _pairs(user)
    return {"claims": [{"review_sentence_id": cid,
                        "verdicts": [{"related_paper_id": rid, **verdict_of(claim, text)} for rid, text in related]}
                       for cid, claim in found]}


#: by the response schema's name (the step name as the APIs accept it)
STEPS: dict[str, Callable[[str], dict[str, Any]]] = {
    schema_name("novelty.claims"): claims, schema_name("novelty.verdict"): verdict,
    schema_name("novelty.verdict_batch"): verdict_batch, schema_name("novelty.verdict_review"): verdict_claims,
    schema_name("novelty.verdict_paper"): verdict_claims,
}


def responder(fallback: Responder) -> Responder:
    """A responder for :meth:`LLMServer.set_responder`: the novelty steps decided as above."""
    return step_responder(STEPS, fallback)
