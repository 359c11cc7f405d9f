"""The offline DoA judge: sentence segmentation + the trained linear model (:mod:`.model`).

* segment: the review's sentences (:func:`prism_review.text.sentence_spans`), minus headings,
  score lines and other non-argumentative sentences (the model's ``argumentative`` head,
  trained on DISAPERE structuring/social/other and SubstanReview's unlabelled sentences);
* classify: the ``role`` and ``aspect`` heads over the units in review order;
* ground: the ``grounding`` head (trained on RevUtil grounding_specificity) per premise.
"""

from __future__ import annotations

import re

from prism_review.judge.depth.model import load_model
from prism_review.judge.depth.steps import (
    ClassifiedItem,
    ClassifyOutput,
    GroundItem,
    GroundOutput,
    SegmentItem,
    SegmentOutput,
    Unit,
)
from prism_review.text import sentence_spans

_HEADING = re.compile(
    r"^\s*(?:#+\s*.*|\*\*[^*]{1,60}\*\*:?\s*|[A-Z][\w /&-]{0,40}:\s*|[-=*_]{3,})$"
)
_SCORE_LINE = re.compile(
    r"^\s*\**\s*(?:rating|confidence|soundness|presentation|contribution"
    r"|overall|score|recommendation)\s*\**\s*[:=]",
    re.I,
)


def is_structural(text: str) -> bool:
    """Headings, rules and score lines: never argumentative whatever the model says."""
    return bool(_HEADING.match(text) or _SCORE_LINE.match(text)) or not re.search(r"\w", text)


def segment(review_text: str, sentences: list[str] | None = None) -> SegmentOutput:
    """Argumentative units of a review, or the argumentative subset of given ``sentences``."""
    texts = sentences if sentences is not None else [s.text for s in sentence_spans(review_text)]
    if not texts:
        return SegmentOutput(arguments=[])
    keep = load_model().label("argumentative", texts)
    return SegmentOutput(
        arguments=[
            SegmentItem(index=i, argument=t)
            for i, (t, k) in enumerate(zip(texts, keep, strict=True))
            if k == "yes" and not is_structural(t)
        ]
    )


def classify(units: list[Unit]) -> ClassifyOutput:
    """Role and aspect of each unit (context: the units in the given order)."""
    texts = [u.text for u in units]
    if not texts:
        return ClassifyOutput(classified_arguments=[])
    model = load_model()
    sc = model.scores(texts)
    roles = model.predict("role", sc["role"])
    aspects = model.predict("aspect", sc["aspect"])
    return ClassifyOutput(
        classified_arguments=[
            ClassifiedItem(index=u.index, argument=u.text, role=r, aspect=a)
            for u, r, a in zip(units, roles, aspects, strict=True)
        ]
    )


def ground(premises: list[Unit]) -> GroundOutput:
    """Grounding 0/1/2 of each premise, judged on its own text."""
    model = load_model()
    out = []
    for u in premises:
        label = model.predict("grounding", model.scores([u.text])["grounding"])[0]
        out.append(GroundItem(index=u.index, premise=u.text, grounding_score=int(label)))
    return GroundOutput(grounding_results=out)
