"""``depth.analyse``: segmentation, roles, aspects and grounding of one review in one call.

The economical protocol's DoA step (``dimensions/protocol.py``). It asks for the decisions of the
three reference steps (``depth.segment`` → ``depth.classify`` → ``depth.ground``) at once, with
their definitions, and :func:`split_analysis` converts the answer into outputs of the same shape
as those steps produce after their own ``finalize`` (units indexed in order, roles and aspects
normalised, grounding attached by index and clamped), so the dimension and the metrics are the
same code under both protocols. The decisions are not the same: the model makes all three in one
context (it labels units it has just cut, grades premises it has just labelled), where the
reference makes each in a call of its own; docs/fidelity.md, "Judge prompts against the
original code". A grounding score given to a Claim is not read: only premises
are graded, as in the reference.
"""

from __future__ import annotations

from typing import Any, ClassVar

from prism_review.judge.base import ChatMessage, JudgeStep
from prism_review.judge.depth import prompts
from prism_review.judge.depth.models import (
    AnalysedUnit,
    AnalyseInput,
    AnalyseOutput,
    ClassifiedItem,
    ClassifyInput,
    ClassifyOutput,
    GroundInput,
    GroundItem,
    GroundOutput,
    SegmentInput,
    SegmentItem,
    SegmentOutput,
    Unit,
)
from prism_review.judge.depth.steps import CLASSIFY, GROUND, SEGMENT
from prism_review.metrics.depth import ASPECTS, CLAIM, PREMISE


class AnalyseStep(JudgeStep[AnalyseInput, AnalyseOutput]):
    """Review → units with role, aspect and (premises) grounding, in one call."""

    name: ClassVar[str] = "depth.analyse"
    Input = AnalyseInput
    Output = AnalyseOutput

    def messages(self, inp: AnalyseInput) -> list[ChatMessage]:
        return [
            ChatMessage(role="system", content=prompts.ANALYSE_SYSTEM),
            ChatMessage(role="user", content=prompts.analyse_user(inp.review_text)),
        ]

    def offline(self, inp: AnalyseInput) -> AnalyseOutput:
        """The offline steps chained (the offline judge never needs this step)."""
        seg = SEGMENT.offline(SegmentInput(review_text=inp.review_text)).units()
        cls = CLASSIFY.finalize(ClassifyInput(review_text=inp.review_text, units=seg),
                                CLASSIFY.offline(ClassifyInput(review_text=inp.review_text, units=seg)))
        prem = [Unit(index=it.index or 0, text=it.argument) for it in cls.classified_arguments
                if it.role == PREMISE]
        scores = GROUND.offline(GroundInput(review_text=inp.review_text, premises=prem)).scores() if prem else {}
        return AnalyseOutput(arguments=[
            AnalysedUnit(index=it.index, argument=it.argument, role=it.role, aspect=it.aspect,
                         grounding_score=scores.get(it.index or 0, 0))
            for it in cls.classified_arguments])

    def check(self, inp: AnalyseInput, out: AnalyseOutput) -> str | None:
        """No unit for a non-empty review is a failed analysis (re-asked once), as in segment."""
        if not inp.review_text.strip() or any(a.argument.strip() for a in out.arguments):
            return None
        return (
            "The reply lists no argumentative unit, but the review is not empty. Every claim, "
            "premise, observation and recommendation is a unit, including sentences that restate "
            "what the paper does; list them all, each with its role, aspect and grounding_score."
        )

    def schema_enums(self, inp: AnalyseInput) -> dict[str, list[Any]]:
        return {"role": [PREMISE, CLAIM], "aspect": list(ASPECTS), "grounding_score": [0, 1, 2]}


def split_analysis(
    review_text: str, out: AnalyseOutput
) -> tuple[SegmentOutput, Any, Any]:
    """The three reference steps' finalised outputs from one analysis.

    Returns ``(segment, make_classify, make_ground)``: the segmentation, and functions giving
    the classification of the dimension's units and the grounding of its premises (the units
    and premises the dimension derives itself, exactly as from the three steps)."""
    kept = [a for a in out.arguments if a.argument.strip()]
    seg_in = SegmentInput(review_text=review_text)
    segment = SEGMENT.finalize(seg_in, SegmentOutput(arguments=[
        SegmentItem(index=i, argument=a.argument) for i, a in enumerate(kept)]))
    # the reply's items re-indexed as the segmentation numbered them
    by_index = {i: a for i, a in enumerate(kept)}

    def make_classify(units: list[Unit]) -> ClassifyOutput:
        raw = ClassifyOutput(classified_arguments=[
            ClassifiedItem(index=u.index, argument=u.text, role=by_index[u.index].role,
                           aspect=by_index[u.index].aspect)
            for u in units if u.index in by_index])
        return CLASSIFY.finalize(ClassifyInput(review_text=review_text, units=units), raw)

    def make_ground(premises: list[Unit]) -> GroundOutput:
        raw = GroundOutput(grounding_results=[
            GroundItem(index=u.index, premise=u.text, grounding_score=by_index[u.index].grounding_score)
            for u in premises if u.index in by_index])
        return GROUND.finalize(GroundInput(review_text=review_text, premises=premises), raw)

    return segment, make_classify, make_ground


ANALYSE = AnalyseStep()
