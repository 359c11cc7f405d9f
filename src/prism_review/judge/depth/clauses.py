"""Clause-level argumentative units: one sentence that holds a claim and its support.

PRISM's segmentation asks for "minimal argumentative units (a sentence or clause …)". About
8.5 % of SubstanReview's argumentative sentences hold a claim *and* the evidence for it
("The results are not convincing: Table 2 shows …"). One unit per sentence would hide that
premise, so the offline judge splits such a sentence in two.

* Training (:func:`substan_sentences`): SubstanReview's spans give the clause boundary (the
  first place inside the sentence where claim text turns into evidence text or back).
* Run time (:func:`split_clause`): the encoder's ``mixed`` head says whether a sentence holds
  both; if so the sentence is cut at its first clause cue (a colon, semicolon, dash, opening
  parenthesis, or a connective such as "because", "since", "for instance", "such as")
  that leaves at least :data:`MIN_WORDS` words on each side. No cue, no split.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from prism_review.text import sentence_spans

#: a clause has at least this many words
MIN_WORDS = 3
#: share of a sentence's non-space characters each kind must cover for the sentence to be mixed
MIXED_SHARE = 0.2

_CUE = re.compile(
    r"(?:[:;]\s+|\s+[-–—]\s+|\s+\(|,\s+(?=(?:because|since|as|e\.g\.|for (?:instance|example)"
    r"|such as|with|including|given|due to|which|especially|in particular|but|while|whereas)\b)"
    r"|\s+(?=(?:because|since|given that|due to|as shown|as evidenced|e\.g\.|for (?:instance|example)"
    r"|such as)\b))",
    re.I,
)


@dataclass
class SubstanSentence:
    """One SubstanReview sentence: its label, whether it is mixed, and its gold clauses."""

    text: str
    label: str  # claim | evidence | none
    mixed: bool
    clauses: list[tuple[str, str]]  # (clause text, label); [] when not split


def _kinds(review: str, spans: list[dict[str, Any]]) -> list[str | None]:
    kind: list[str | None] = [None] * len(review)
    for sp in spans:
        k = "claim" if sp.get("kind") in ("claim", "major_claim") else sp.get("kind")
        if k in ("claim", "evidence"):
            for i in range(int(sp["start"]), min(int(sp["end"]), len(review))):
                kind[i] = k
    return kind


def _label(review: str, kind: list[str | None], start: int, end: int) -> tuple[str, dict]:
    chars = [k for k in range(start, end) if not review[k].isspace()]
    share = {"claim": 0.0, "evidence": 0.0}
    if chars:
        for k in share:
            share[k] = sum(1 for c in chars if kind[c] == k) / len(chars)
    best = max(share, key=lambda k: share[k])
    return (best if share[best] >= 0.5 else "none"), share


def _words(text: str) -> int:
    return len(text.split())


def substan_sentences(review: str, spans: list[dict[str, Any]]) -> list[SubstanSentence]:
    """The sentences of a SubstanReview review, with gold clause splits of the mixed ones.

    Sentence labels follow :func:`prism_review.judge.depth.data.substan_sentence_labels` (the
    ≥ 50 % rule). A sentence is *mixed* when claim and evidence each cover ≥ 20 % of it; it is
    split at the first change between claim and evidence characters, and each clause is
    labelled by the same ≥ 50 % rule (kept whole if a side would have < 3 words).
    """
    kind = _kinds(review, spans)
    out = []
    for s in sentence_spans(review):
        label, share = _label(review, kind, s.start, s.end)
        mixed = share["claim"] >= MIXED_SHARE and share["evidence"] >= MIXED_SHARE
        clauses: list[tuple[str, str]] = []
        if mixed:
            prev = None
            for i in range(s.start, s.end):
                k = kind[i]
                if k is None:
                    continue
                if prev is not None and k != prev:
                    left, right = review[s.start : i].strip(), review[i : s.end].strip()
                    if _words(left) >= MIN_WORDS and _words(right) >= MIN_WORDS:
                        clauses = [
                            (left, _label(review, kind, s.start, i)[0]),
                            (right, _label(review, kind, i, s.end)[0]),
                        ]
                    break
                prev = k
        out.append(SubstanSentence(s.text, label, mixed, clauses))
    return out


def split_clause(text: str) -> tuple[str, str] | None:
    """``text`` cut at its first clause cue leaving ≥ 3 words a side, or None."""
    for m in _CUE.finditer(text):
        left, right = text[: m.start()].strip(), text[m.end() :].strip()
        if m.group(0).strip() == "(":
            right = "(" + right
        if _words(left) >= MIN_WORDS and _words(right) >= MIN_WORDS:
            return left, right
    return None
