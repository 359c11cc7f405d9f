"""DISAPERE agreement of a judge's DoA steps: ``prism agreement --dataset disapere``.

The judge sees gold sentence boundaries, so the figures measure classification, not
segmentation:

* ``disapere.role.macro_f1`` — the classify step run on all of a review's sentences (in order,
  so it has the context); scored on sentences whose gold action is evaluative or request
  (→ Claim) or fact (→ Premise);
* ``disapere.aspect3.macro_f1`` — the same call's aspect on evaluative and request sentences
  whose gold aspect maps to Soundness/Clarity/Contribution (data README §1), macro-averaged
  over those three classes (a predicted Other counts as a miss);
* ``disapere.fact_as_premise.recall`` — the share of the same call's ``arg_fact`` sentences
  labelled Premise (PRISM's Premise "gives concrete details, evidence …": facts are premises;
  null without fact sentences);
* ``disapere.argumentative.macro_f1`` — the segment step choosing the argumentative sentences
  among the given ones (evaluative/request/fact vs structuring/social/other/unlabelled).

A review whose step the judge could not answer is left out and counted in ``n.unscored.*``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from prism_review import progress
from prism_review.agreement import register_dataset
from prism_review.judge.base import Judge
from prism_review.judge.depth.data import ASPECT3, LabelledReview, load_disapere
from prism_review.judge.depth.scoring import macro_f1, per_class_f1
from prism_review.judge.depth.steps import (
    CLASSIFY,
    SEGMENT,
    ClassifyInput,
    SegmentInput,
    Unit,
)


async def _one(review: LabelledReview, judge: Judge) -> dict[str, Any]:
    units = [Unit(index=i, text=t) for i, t in enumerate(review.texts)]
    cls, seg = await asyncio.gather(
        judge.run(CLASSIFY, ClassifyInput(review_text=review.full_text, units=units)),
        judge.run(SEGMENT, SegmentInput(review_text=review.full_text, sentences=review.texts)),
    )
    out: dict[str, Any] = {"role": None, "aspect": None, "arg": None}
    if cls.ok and cls.output is not None:
        by = {c.index: c for c in cls.output.classified_arguments}
        role, aspect = [], []
        for i, lab in enumerate(review.labels):
            c = by.get(i)
            if lab["role"]:
                role.append((lab["role"], c.role if c else "Claim"))
            if lab["action"] in ("arg_evaluative", "arg_request") and lab["aspect"] in ASPECT3:
                aspect.append((lab["aspect"], c.aspect if c else "Other"))
        out["role"], out["aspect"] = role, aspect
    if seg.ok and seg.output is not None:
        kept = {a.index for a in seg.output.arguments}
        out["arg"] = [
            ("yes" if lab["argumentative"] else "no", "yes" if i in kept else "no")
            for i, lab in enumerate(review.labels)
        ]
    return out


@register_dataset("disapere")
async def measure(path: Path, judge: Judge, limit: int | None) -> dict[str, float | int | None]:
    """Role, aspect and argumentative-unit macro-F1 of ``judge`` on a DISAPERE file."""
    reviews = load_disapere(Path(path), limit)
    results = await progress.gather((_one(r, judge) for r in reviews), "disapere reviews")
    pairs: dict[str, list[tuple[str, str]]] = {"role": [], "aspect": [], "arg": []}
    for res in results:
        for k in pairs:
            pairs[k].extend(res[k] or [])
    facts = [(g, p) for g, p in pairs["role"] if g == "Premise"]  # gold Premise = arg_fact
    metrics: dict[str, float | int | None] = {
        "disapere.role.macro_f1": macro_f1(pairs["role"], ["Claim", "Premise"]),
        "disapere.aspect3.macro_f1": macro_f1(pairs["aspect"], list(ASPECT3)),
        "disapere.fact_as_premise.recall": (
            sum(p == "Premise" for g, p in facts) / len(facts) if facts else None
        ),
        "disapere.argumentative.macro_f1": macro_f1(pairs["arg"], ["yes", "no"]),
    }
    metrics.update(per_class_f1("disapere.role", pairs["role"], ["Claim", "Premise"]))
    metrics.update(per_class_f1("disapere.aspect3", pairs["aspect"], list(ASPECT3)))
    metrics.update(
        {
            "n.reviews": len(reviews),
            "n.disapere.role": len(pairs["role"]),
            "n.disapere.aspect3": len(pairs["aspect"]),
            "n.disapere.argumentative": len(pairs["arg"]),
            "n.unscored.classify": sum(res["role"] is None for res in results),
            "n.unscored.segment": sum(res["arg"] is None for res in results),
        }
    )
    return metrics
