"""Normalisation of one novelty-verdict reply (prism-reference §5.4), risks N4 and N5.

:func:`normalize_verdict` turns a parsed judge reply into ``{classification, stance_alignment,
calibration, score, label, explanation}`` with the reference precedence:

1. a reply that is not a JSON object is **unscored** (returns None; N4 REC). ``compat=True``
   reproduces the original, which scored it as a completed AMBIGUOUS 0 pair;
2. the label is matched exactly after upper-casing, then as a whole word, with UNSUPPORTED and
   the negated forms ("NOT SUPPORTED") checked first (N5 REC). ``compat=True`` uses the
   original's first-substring match (so "UNSUPPORTED." became SUPPORTED);
3. the score is coerced to a rounded int; a valid stance fills a missing score/label; without
   one, the label comes from the score (or AMBIGUOUS) and the stance from the label;
4. the final score always equals the final label's score; calibration falls back to the label.
"""

from __future__ import annotations

import math
import re
from typing import Any

from prism_review.metrics.novelty import LABEL_SCORES, SCORE_LABELS

STANCE_SCORES = {"aligned": 2, "partial": 1, "insufficient": 0, "contradicted": -2}
#: the label the verdict prompt asks for with each stance (the label of the stance's score: the
#: reference's derivation when its model's label is not one it knows)
ASKED_LABELS = {stance: SCORE_LABELS[score] for stance, score in STANCE_SCORES.items()}
CALIBRATIONS = ("accurate", "overstated", "understated", "N/A")
LABEL_STANCE = {
    "SUPPORTED": "aligned",
    "OVERSTATED": "partial",
    "UNDERSTATED": "partial",
    "AMBIGUOUS": "insufficient",
    "UNSUPPORTED": "contradicted",
}
LABEL_CALIBRATION = {"SUPPORTED": "accurate", "OVERSTATED": "overstated", "UNDERSTATED": "understated"}
NOT_JSON = "LLM output is not a JSON object"

_COMPAT_ORDER = ("SUPPORTED", "OVERSTATED", "AMBIGUOUS", "UNDERSTATED", "UNSUPPORTED")
_NEGATED_SUPPORTED = re.compile(r"\b(?:NOT|UN|NON)[\s_-]*SUPPORTED\b")
_WORD_ORDER = ("UNSUPPORTED", "UNDERSTATED", "OVERSTATED", "AMBIGUOUS", "SUPPORTED")


def normalize_label(label: Any, *, compat: bool = False) -> str | None:
    """Map a model label onto the five labels, or None when nothing matches.

    Default: exact (case-insensitive, stripped) match; else negated "supported" forms →
    UNSUPPORTED; else the first label found as a whole word, UNSUPPORTED first.
    """
    if not isinstance(label, str):
        return None
    up = label.strip().upper()
    if not up:
        return None
    if up in LABEL_SCORES:
        return up
    if compat:
        return next((k for k in _COMPAT_ORDER if k in up), None)
    if _NEGATED_SUPPORTED.search(up):
        return "UNSUPPORTED"
    for key in _WORD_ORDER:
        if re.search(rf"\b{key}\b", up):
            return key
    return None


def coerce_score(value: Any) -> int | None:
    """A score as a rounded int (half to even): bools → 0/1, numeric strings parsed, else None."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return round(value) if math.isfinite(value) else None
    if isinstance(value, str):
        try:
            v = float(value.strip())
        except ValueError:
            return None
        return round(v) if math.isfinite(v) else None
    return None


_TRUE = {"1", "true", "yes", "y"}
_FALSE = {"0", "false", "no", "n"}


def coerce_boolint(value: Any) -> int | None:
    """A 0/1 flag: bools, numbers (1 iff round(x) ≠ 0), yes/no/true/false/1/0 strings; else None."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return 1 if math.isfinite(value) and round(value) != 0 else 0
    if isinstance(value, str):
        low = value.strip().lower()
        if low in _TRUE:
            return 1
        if low in _FALSE:
            return 0
    return None


_EVIDENCE = re.compile(
    r"\bet\s+al\b|\barxiv\b|\bdoi\b|\b(?:19|20)\d{2}\b"
    r"|\bbecause\b|\bsince\b|\bdue\s+to\b|\bas\s+shown\b|\bfor\s+example\b",
    re.IGNORECASE,
)
_EVIDENCE_SPEC = re.compile(r"\[\d+(?:\s*[,;–-]\s*\d+)*\]|\be\.g\.", re.IGNORECASE)
_EG_COMPAT = re.compile(r"\be\.g\.(?=\w)", re.IGNORECASE)


def heuristic_classification(text: str, *, compat: bool = False) -> tuple[int, int]:
    """``(claim, proof)`` from the sentence alone: claim = non-blank; proof = evidence cues.

    Evidence cues: "et al", arXiv, doi, a year 19xx/20xx, because/since/due to/as shown/for
    example, and (per the spec) "[n]" citations and "e.g.". The original wrapped the last two in
    word boundaries so they never matched (except "e.g." glued to a word); ``compat`` keeps that.
    """
    if not text or not text.strip():
        return 0, 0
    if _EVIDENCE.search(text):
        return 1, 1
    extra = _EG_COMPAT if compat else _EVIDENCE_SPEC
    return 1, (1 if extra.search(text) else 0)


def _classification(raw: dict[str, Any], text: str, compat: bool) -> dict[str, int]:
    h_claim, h_proof = heuristic_classification(text, compat=compat)
    cls = raw.get("classification")
    claim = proof = None
    if isinstance(cls, dict):
        claim = coerce_boolint(cls.get("claim"))
        proof = coerce_boolint(cls.get("proof"))
    return {
        "claim": h_claim if claim is None else claim,
        "proof": h_proof if proof is None else proof,
    }


def _explanation(raw: dict[str, Any]) -> str:
    val = raw.get("explanation")
    if val is None:
        val = raw.get("reason")
    if val is None:
        return ""
    return (val if isinstance(val, str) else str(val)).strip()


def normalize_verdict(
    raw: Any,
    review_sentence_id: str,
    related_paper_id: str,
    review_sentence_text: str,
    *,
    compat: bool = False,
) -> dict[str, Any] | None:
    """One pair's normalised verdict, or None when the reply is unusable (unscored; N4)."""
    base = {"review_sentence_id": review_sentence_id, "related_paper_id": related_paper_id}
    if not isinstance(raw, dict):
        if not compat:
            return None
        claim, proof = heuristic_classification(review_sentence_text, compat=True)
        return {
            **base,
            "classification": {"claim": claim, "proof": proof},
            "stance_alignment": "insufficient",
            "calibration": "N/A",
            "score": 0,
            "label": "AMBIGUOUS",
            "explanation": NOT_JSON,
        }
    label = normalize_label(raw.get("label"), compat=compat)
    score = coerce_score(raw.get("score"))
    stance = raw.get("stance_alignment")
    if isinstance(stance, str) and stance in STANCE_SCORES:
        if score is None:
            score = STANCE_SCORES[stance]
        if label is None:
            label = SCORE_LABELS.get(STANCE_SCORES[stance], "AMBIGUOUS")
    else:
        if label is None:
            label = SCORE_LABELS.get(score, "AMBIGUOUS") if score is not None else "AMBIGUOUS"
        stance = LABEL_STANCE[label]
    calibration = raw.get("calibration")
    if not (isinstance(calibration, str) and calibration in CALIBRATIONS):
        calibration = LABEL_CALIBRATION.get(label, "N/A")
    return {
        **base,
        "classification": _classification(raw, review_sentence_text, compat),
        "stance_alignment": stance,
        "calibration": calibration,
        "score": LABEL_SCORES[label],
        "label": label,
        "explanation": _explanation(raw),
    }
