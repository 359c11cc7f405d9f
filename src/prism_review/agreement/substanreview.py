"""SubstanReview agreement of a judge's DoA steps: ``prism agreement --dataset substanreview``.

Each review is split into sentences (:func:`prism_review.text.sentence_spans`); a sentence's
gold label is claim / evidence / none by the ≥ 50 % non-space coverage rule (Major_claim
counts as claim; :func:`prism_review.judge.depth.data.substan_sentence_labels`). The judge gets
those sentences as given units: the segment step picks the argumentative ones (the others are
predicted ``none``) and the classify step labels them Claim (→ claim) or Premise (→ evidence).

``substanreview.sentence.macro_f1`` is the 3-class macro-F1; ``substanreview.role.macro_f1``
is Claim vs Premise on gold claim/evidence sentences the judge kept.

``substanreview.r_premise.predicted`` and ``substanreview.r_premise.gold`` are DoA's R_premise
(prism-reference §4.3) on the same sentences: per review, premises / argumentative sentences
(predicted: Premise / kept; gold: evidence / (claim + evidence)), a review without any
argumentative sentence counting 0 as the formula says, then the mean over reviews. Their
difference says how far the judge's R_premise sits from the labels' on PRISM's premise
(SubstanReview evidence). A review whose step the judge could not answer is left out of every
figure and counted in ``n.unscored.*``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prism_review import progress
from prism_review.agreement import register_dataset
from prism_review.judge.base import Judge
from prism_review.judge.depth.data import SUBSTAN_LABELS, LabelledReview, load_substanreview
from prism_review.judge.depth.scoring import macro_f1, per_class_f1
from prism_review.judge.depth.steps import (
    CLASSIFY,
    SEGMENT,
    ClassifyInput,
    SegmentInput,
    Unit,
)
from prism_review.metrics.depth import normalise_role


def r_premise(labels: list[str]) -> float:
    """Evidence / (claim + evidence) of one review's sentence labels; 0 with none (§4.3)."""
    n = sum(lab != "none" for lab in labels)
    return sum(lab == "evidence" for lab in labels) / n if n else 0.0


async def _one(review: LabelledReview, judge: Judge) -> dict[str, Any]:
    seg = await judge.run(
        SEGMENT, SegmentInput(review_text=review.full_text, sentences=review.texts)
    )
    if not seg.ok or seg.output is None:
        return {"status": "segment"}
    kept = [Unit(index=a.index, text=review.texts[a.index]) for a in seg.output.arguments]
    roles: dict[int, str] = {}
    if kept:
        cls = await judge.run(CLASSIFY, ClassifyInput(review_text=review.full_text, units=kept))
        if not cls.ok or cls.output is None:
            return {"status": "classify"}
        roles = {c.index: normalise_role(c.role) for c in cls.output.classified_arguments}
    pred = [
        "none" if i not in roles else "evidence" if roles[i] == "Premise" else "claim"
        for i in range(len(review.texts))
    ]
    return {
        "status": "ok",
        "pairs": [(lab["label"], p) for lab, p in zip(review.labels, pred, strict=True)],
    }


@register_dataset("substanreview")
async def measure(path: Path, judge: Judge, limit: int | None) -> dict[str, float | int | None]:
    """Sentence-level claim/evidence/none macro-F1 of ``judge`` on a SubstanReview file."""
    reviews = load_substanreview(Path(path), limit)
    results = await progress.gather((_one(r, judge) for r in reviews), "substanreview reviews")
    scored = [r for r in results if r["status"] == "ok"]
    pairs = [p for r in scored for p in r["pairs"]]
    r_pred = [r_premise([p for _, p in r["pairs"]]) for r in scored]
    r_gold = [r_premise([g for g, _ in r["pairs"]]) for r in scored]
    labels = list(SUBSTAN_LABELS)
    role = [(g, p) for g, p in pairs if g != "none" and p != "none"]
    arg = [(str(g != "none"), str(p != "none")) for g, p in pairs]
    metrics: dict[str, float | int | None] = {
        "substanreview.sentence.macro_f1": macro_f1(pairs, labels),
        "substanreview.role.macro_f1": macro_f1(role, ["claim", "evidence"]),
        "substanreview.argumentative.macro_f1": macro_f1(arg, ["True", "False"]),
        "substanreview.r_premise.predicted": sum(r_pred) / len(r_pred) if r_pred else None,
        "substanreview.r_premise.gold": sum(r_gold) / len(r_gold) if r_gold else None,
    }
    metrics.update(per_class_f1("substanreview.sentence", pairs, labels))
    metrics.update(
        {
            "n.reviews": len(reviews),
            "n.substanreview.sentences": len(pairs),
            "n.unscored.segment": sum(r["status"] == "segment" for r in results),
            "n.unscored.classify": sum(r["status"] == "classify" for r in results),
        }
    )
    return metrics
