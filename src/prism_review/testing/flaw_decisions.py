"""A loopback responder whose flaw decisions do not depend on how the calls are grouped.

Used to check that ``--protocol economical`` and ``--protocol reference`` give the same flaw
metrics when the judge decides the same things (tests/flaws/test_economical.py,
docs/fidelity.md "Economical flaws"). Every decision is a function of the text it is about, never
of the rest of the request:

* ``flaws.consolidate``: a review raises the flaw of keyword ``k`` when one of its sentences
  contains ``k`` (the first keyword of :data:`KEYWORDS` the sentence holds); its quote is the
  first such sentence. Two reviews raise the same flaw exactly when they share the keyword, so
  the grouping is the same in any pool that holds both.
* ``flaws.extend``: the review's keywords (as above); one a listed flaw holds is that flaw, any
  other a new flaw of that keyword;
* ``flaws.validate``: validity and severity follow from the flaw's keyword alone.
* ``flaws.map``: a review mentions, in its own order, each bank issue whose keyword one of its
  sentences holds (first mention only), so mapping onto a larger bank and keeping the smaller
  bank's issues is mapping onto the smaller bank; ``flaws.map_batch`` maps each of its reviews
  exactly so, whatever the other reviews of the call.

Any other step gets ``fallback(body)`` (e.g. the server's schema-built reply).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from prism_review.judge.fence import fenced_blocks
from prism_review.judge.flaws.taxonomy import ALL_LABELS
from prism_review.llm.parse import schema_name
from prism_review.testing.step_responder import Responder, step_responder

KEYWORDS = (
    "baseline", "ablation", "dataset", "experiment", "theor", "proof", "assumption", "novel",
    "related work", "clarity", "unclear", "notation", "typo", "limitation", "reproduc",
    "hyperparameter", "scalab", "metric", "comparison", "motivat", "figure", "generaliz",
)
_REVIEWER = re.compile(r"\[REVIEWER: ([^\]\n]+)\]\n<<<BEGIN REVIEW ([0-9a-f]{16})>>>\n(.*?)\n<<<END REVIEW \2>>>", re.S)
_BATCH_REVIEW = re.compile(r"\[REVIEW: ([^\]\n]+)\]\n<<<BEGIN REVIEW ([0-9a-f]{16})>>>\n(.*?)\n<<<END REVIEW \2>>>", re.S)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_SUMMARY = "The reviews question the paper's {}."


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if len(s.strip()) > 3]


def keyword_of(sentence: str) -> str | None:
    low = sentence.lower()
    return next((k for k in KEYWORDS if k in low), None)


def _key_of_summary(summary: str) -> str | None:
    return next((k for k in KEYWORDS if summary == _SUMMARY.format(k)), None)


def consolidate(user: str) -> dict[str, Any]:
    found: dict[str, list[dict[str, str]]] = {}
    for rid, _, text in _REVIEWER.findall(user):
        seen: set[str] = set()
        for s in sentences(text):
            k = keyword_of(s)
            if k is not None and k not in seen:
                seen.add(k)
                found.setdefault(k, []).append({"reviewer_id": rid, "quote": s})
    flaws = []
    for i, k in enumerate(k for k in KEYWORDS if k in found):
        flaws.append({"flaw_id": f"F{i + 1:02d}", "macro_topic": ALL_LABELS[KEYWORDS.index(k) % len(ALL_LABELS)],
                      "core_summary": _SUMMARY.format(k), "raw_arguments": found[k]})
    return {"micro_flaws": flaws}


def extend(user: str) -> dict[str, Any]:
    """The review's keywords, as :func:`consolidate` finds them: a listed flaw of the same
    keyword is that flaw, any other keyword a new flaw (so the pairing's flaws group as a
    consolidation of the panel and the review would)."""
    blocks = fenced_blocks(user, "MICRO-FLAWS")
    listed = json.loads(blocks[0])["micro_flaws"] if blocks else []
    by_key = {_key_of_summary(f.get("core_summary", "")): f["flaw_id"] for f in listed}
    raised, seen = [], set()
    for _, _, text in _REVIEWER.findall(user)[:1]:
        for s in sentences(text):
            k = keyword_of(s)
            if k is None or k in seen:
                continue
            seen.add(k)
            if k in by_key:
                raised.append({"flaw_id": by_key[k], "macro_topic": "", "core_summary": "", "quote": s})
            else:
                raised.append({"flaw_id": f"N{len(seen):02d}",
                               "macro_topic": ALL_LABELS[KEYWORDS.index(k) % len(ALL_LABELS)],
                               "core_summary": _SUMMARY.format(k), "quote": s})
    return {"raised": raised}


def validate(user: str) -> dict[str, Any]:
    blocks = fenced_blocks(user, "MICRO-FLAWS")
    flaws = json.loads(blocks[0])["micro_flaws"] if blocks else []
    out = []
    for f in flaws:
        k = _key_of_summary(f.get("core_summary", ""))
        i = KEYWORDS.index(k) if k else 3
        valid = i % 4 != 3
        out.append({"flaw_id": f["flaw_id"], "is_valid": valid,
                    "severity": ("Critical" if i % 2 == 0 else "Minor") if valid else "None"})
    return {"evaluations": out}


def _mentions(bank: list[dict[str, Any]], review: str) -> list[dict[str, str]]:
    by_key = {_key_of_summary(i.get("canonical_summary", "")): i["issue_id"] for i in bank}
    mentions, seen = [], set()
    for s in sentences(review):
        k = keyword_of(s)
        if k in by_key and k not in seen:
            seen.add(k)
            mentions.append({"issue_id": by_key[k], "section_name": "Weaknesses",
                             "anchor_quote": " ".join(s.split()[:12]), "content": k})
    return mentions


def _bank(user: str) -> list[dict[str, Any]]:
    blocks = fenced_blocks(user, "ISSUE BANK")
    return json.loads(blocks[0])["issues"] if blocks else []  # type: ignore[no-any-return]


def map_review(user: str) -> dict[str, Any]:
    reviews = fenced_blocks(user, "REVIEW")
    return {"mentions": _mentions(_bank(user), reviews[0] if reviews else "")}


def map_batch(user: str) -> dict[str, Any]:
    """Each ``[REVIEW: id]`` block mapped exactly as :func:`map_review` maps it alone."""
    bank = _bank(user)
    return {"reviews": [{"reviewer_id": rid, "mentions": _mentions(bank, text)}
                        for rid, _, text in _BATCH_REVIEW.findall(user)]}


#: by the response schema's name (the step name as the APIs accept it)
STEPS: dict[str, Callable[[str], dict[str, Any]]] = {
    schema_name("flaws.consolidate"): consolidate, schema_name("flaws.validate"): validate,
    schema_name("flaws.map"): map_review, schema_name("flaws.map_batch"): map_batch,
    schema_name("flaws.extend"): extend,
}


def responder(fallback: Responder) -> Responder:
    """A responder for :meth:`LLMServer.set_responder`: the flaw steps decided as above."""
    return step_responder(STEPS, fallback)
