"""Depth of Analysis as a ``prism evaluate`` dimension (prism-reference §4).

One work unit per review: every human review separately (``Human_k``) and each LLM system's
review. A unit runs segment → classify → ground through ``ctx.run`` (under the economical
protocol with an LLM judge, ``depth.analyse`` answers all three in one call, split back into
the three steps' outputs by :func:`~prism_review.judge.depth.analyse.split_analysis`) and yields one row whose
``extracted["units"]`` holds every unit with its role, aspect and grounding, so the metrics can
be recomputed from the results log (:func:`metrics_from_row`).

A step the judge could not answer (``unscored``) makes the row unscored with null metrics —
never 0 — unless the run is in ``compat`` mode, where the original's fallbacks apply (sentence
split / all Claim-Other / all grounding 0). So does a reply that parsed but could not be used
even after the step's re-ask: a classification none of whose entries matches a unit, or a
grounding that scores none of the premises, or a segmentation (LLM, after its re-ask, or
offline) that finds no unit in a non-empty review (without this, such a reply would give
R_premise or S_depth 0 and a DoA of 0 that no reviewer earned; spec §14.4). A review with no text is ``skipped``, as
the original skipped it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from prism_review.dimensions.base import (
    Dimension,
    MetricSpec,
    ResultRow,
    RunContext,
    WorkUnit,
    register,
)
from prism_review.dimensions.protocol import is_economical
from prism_review.dimensions.review_text import review_text
from prism_review.judge.base import StepResult, Usage
from prism_review.judge.depth.analyse import ANALYSE, AnalyseInput, split_analysis
from prism_review.judge.depth.steps import (
    CLASSIFY,
    GROUND,
    SEGMENT,
    ClassifyInput,
    GroundInput,
    SegmentInput,
    Unit,
)
from prism_review.metrics.depth import is_premise, review_metrics
from prism_review.records import Paper, Review
from prism_review.systems.text_policy import AllText, Sections, TextPolicy

METRIC_KEYS = ("doa", "r_premise", "s_depth", "doa_product", "n_units", "n_premises", "n_claims")


def metrics_from_row(extracted: dict[str, Any], *, compat: bool = False) -> dict[str, Any]:
    """Recompute a row's metrics from its ``extracted`` units (no model call)."""
    return review_metrics(extracted.get("units", []), compat=compat)


@register
class DepthDimension(Dimension):
    """Depth of Analysis: share of premises (R_premise), their grounding (S_depth), DoA."""

    name: ClassVar[str] = "depth"
    label: ClassVar[str] = "Depth of Analysis"
    order: ClassVar[int] = 10
    metrics: ClassVar[list[MetricSpec]] = [
        MetricSpec(key="doa", label="DoA", headline=True),
        MetricSpec(key="r_premise", label="R_premise"),
        MetricSpec(key="s_depth", label="S_depth"),
        MetricSpec(key="doa_product", label="DoA (product)"),
        MetricSpec(key="n_units", label="ADUs", fmt="{:.1f}"),
        MetricSpec(key="n_premises", label="Premises", fmt="{:.1f}"),
    ]
    #: also in each row: counts and the aspect shares (:func:`prism_review.metrics.depth.review_metrics`)
    row_metrics: ClassVar[tuple[str, ...]] = ("n_claims", "n_graded", "Ratio_All_*", "Ratio_Prem_*")
    table1_note: ClassVar[str] = "DoA = depth of analysis (grounded argument, 0-1)"
    #: the argument of a review: its summary, strengths and weaknesses (ICML humans: every
    #: rubric text field)
    text_policy: ClassVar[TextPolicy] = TextPolicy(
        llm=Sections(("summary", "strengths", "weaknesses", "strengths_weaknesses")),
        human=Sections(("summary", "strengths", "weaknesses"), combined_fallback=True),
        human_venues={"ICML2025": AllText()},
        original=True,
    )

    def work_units(
        self, paper: Paper, reviews: dict[str, list[Review]], systems: list[str]
    ) -> Iterable[WorkUnit]:
        return self.per_review_units(paper, reviews, systems)

    def prefetch(self, unit: WorkUnit, ctx: RunContext) -> None:
        """Offline judge: queue the review's sentences on the encoder's workers, so they are
        encoded while the units before this one are classified and grounded (same vectors:
        each sentence is encoded alone)."""
        if getattr(ctx.judge, "mode", None) != "offline" or is_economical(ctx):
            return
        text = review_text(unit.reviews[0], "depth", compat=ctx.compat)
        if text.strip():
            SEGMENT.prefetch(SegmentInput(review_text=text, compat=ctx.compat))

    async def evaluate(self, unit: WorkUnit, ctx: RunContext) -> list[ResultRow]:
        review = unit.reviews[0]
        compat = ctx.compat
        usage = Usage()
        row = self.new_row(unit, review.reviewer_id, usage=usage)
        text = review_text(review, "depth", compat=compat)
        if not text.strip():
            row.status = "skipped"
            row.error = "empty review text"
            return [row]

        steps: dict[str, Any] = {}

        async def step(s: Any, inp: Any) -> Any:
            res: StepResult[Any] = await ctx.run(s, inp)
            usage.add(res.usage)
            steps[s.name] = {"status": res.status, "error": res.error}
            if res.ok:
                return res.output
            if compat:
                steps[s.name]["fallback"] = True
                return s.fallback(inp)
            return None

        # economical protocol: one call answers all three steps; its answer is split into the
        # outputs the three steps give, so everything below is the same code
        one_call = is_economical(ctx)
        names = dict.fromkeys((SEGMENT.name, CLASSIFY.name, GROUND.name), ANALYSE.name) if one_call else {}
        if one_call:
            analysis = await step(ANALYSE, AnalyseInput(review_text=text))
            if analysis is None:
                return [self._unscored(row, ANALYSE.name, steps)]
            seg, make_classify, make_ground = split_analysis(text, analysis)
        else:
            seg = await step(SEGMENT, SegmentInput(review_text=text, compat=compat))
        if seg is None:
            return [self._unscored(row, "depth.segment", steps)]
        units = seg.units()
        if not units and not compat:  # a non-empty review has units: no unit is a failed step
            name = names.get(SEGMENT.name, SEGMENT.name)
            steps[name]["error"] = "no argumentative unit for a non-empty review"
            return [self._unscored(row, name, steps)]
        if one_call:
            cls = make_classify(units)
        else:
            cls = await step(CLASSIFY, ClassifyInput(review_text=text, units=units, compat=compat))
        if cls is None:
            return [self._unscored(row, "depth.classify", steps)]
        items = cls.classified_arguments
        if items and not compat and not any(it.matched for it in items):
            name = names.get(CLASSIFY.name, CLASSIFY.name)
            steps[name]["error"] = "no entry of the reply matched a unit of the review"
            return [self._unscored(row, name, steps)]
        labelled = [
            {
                "index": it.index if it.index is not None else k,
                "argument": it.argument,
                "role": it.role,
                "aspect": it.aspect,
                "grounding_score": None,
                **({} if it.matched else {"matched": False}),
            }
            for k, it in enumerate(items)
        ]
        premises = [
            Unit(index=u["index"], text=u["argument"])
            for u in labelled
            if is_premise(u, compat=compat)
        ]
        if premises:
            if one_call:
                grd = make_ground(premises)
            else:
                grd = await step(
                    GROUND, GroundInput(review_text=text, premises=premises, compat=compat)
                )
            if grd is None:
                return [self._unscored(row, "depth.ground", steps)]
            scores = grd.scores()
            for u in labelled:
                if is_premise(u, compat=compat):
                    u["grounding_score"] = scores.get(u["index"])
            if not compat and all(
                u["grounding_score"] is None for u in labelled if is_premise(u, compat=compat)
            ):
                name = names.get(GROUND.name, GROUND.name)
                steps[name]["error"] = "the reply graded none of the premises"
                return [self._unscored(row, name, steps)]
        row.metrics = dict(review_metrics(labelled, compat=compat))
        row.extracted = {"units": labelled, "steps": steps}
        return [row]

    @staticmethod
    def _unscored(row: ResultRow, step: str, steps: dict[str, Any]) -> ResultRow:
        row.status = "unscored"
        row.error = f"{step}: {steps.get(step, {}).get('error') or 'no usable reply'}"
        row.metrics = dict.fromkeys(METRIC_KEYS)
        row.extracted = {"units": None, "steps": steps}
        return row
