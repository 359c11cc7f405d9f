"""The offline ARC judge: segmentation, comment typing and D1–D5 scoring with no network.

* segments: :func:`segment.segment_review` (atomic comments: list items, and the prose sentences
  that make one point);
* comment type: the section decides when it can (Strengths → strength, Questions → question,
  Summary → observation, Weaknesses → weakness unless the point is a question); otherwise
  wording cues, then the DISAPERE-trained classifier;
* D1/D2/D3: ridge scorers trained on RevUtil (:mod:`.model`), mapped to 0/1/2 by its level definitions;
* D4/D5: the rubric rules of :mod:`.rules`.
"""

from __future__ import annotations

import re
from typing import Any

from prism_review.judge.constructiveness.features import hand_matrix
from prism_review.judge.constructiveness.model import load_models
from prism_review.judge.constructiveness.rules import cue_type, solution_level, tone_level
from prism_review.judge.constructiveness.segment import Segment, section_type, segment_review

_ANCHOR = re.compile(r"\S+(?:\s+\S+){0,24}")


def anchor_of(text: str) -> str:
    """The first ≤ 25 words of ``text``, verbatim (original whitespace kept)."""
    m = _ANCHOR.search(text)
    return m.group(0) if m else ""


def _type(seg: Segment, classified: str) -> str:
    sec = section_type(seg.section)
    cue = cue_type(seg.text)
    if sec in ("question", "strength", "observation"):
        return sec
    if sec in ("weakness", "suggestion"):
        return "question" if cue == "question" else sec
    return cue or classified


def score_segments(segs: list[Segment], *, model_path: str | None = None) -> list[dict[str, Any]]:
    """ARC dicts (unnumbered) for already-cut segments ([] for none: a review such as
    ``## Weaknesses\n- x`` can leave no segment to score)."""
    if not segs:
        return []
    models = load_models(model_path)
    texts = [s.text for s in segs]
    hand = hand_matrix(texts)  # both models use the same hand features
    rub = models.rubric_scores(texts, hand)
    kinds = models.comment_types(texts, hand)
    out = []
    for i, seg in enumerate(segs):
        arc: dict[str, Any] = {
            "section": seg.section,
            "comment_type": _type(seg, kinds[i]),
            "content": " ".join(seg.text.split()),
            "anchor_quote": anchor_of(seg.text),
        }
        for dim in ("D1_actionability", "D2_specificity", "D3_justification"):
            arc[dim] = int(rub[dim][1][i])
        arc["D4_solution"] = solution_level(seg.text)
        arc["D5_tone"] = tone_level(seg.text)
        out.append(arc)
    return out


def offline_arcs(
    review: str,
    comments: list[str] | None = None,
    *,
    section: str = "Unknown",
    model_path: str | None = None,
) -> list[dict[str, Any]]:
    """The offline judge's ARCs for a review, or for given comments (one ARC each, in ``section``)."""
    if comments is not None:
        segs = [Segment(text=c, section=section, start=0, end=len(c)) for c in comments]
    else:
        segs = segment_review(review)
    return score_segments(segs, model_path=model_path)
