"""Multi-dimensional Constructiveness as a ``prism evaluate`` dimension (prism-reference §7).

One work unit per review (each human review separately, each LLM system's review). The unit runs
the ARC step once (under the economical protocol with an LLM judge, the paper's reviews share one
``constructiveness.arc_batch`` call, made once per paper through the run memo, its answer split
back per review) and yields one row: metrics ``mcs`` (headline), ``ar``, ``sd``, ``cd``,
``d1``…``d5``, the counts per comment type, and ``verbatim_rate`` (share of anchor quotes found
verbatim in the review; the original never checked them). ``extracted["arcs"]`` holds the ARCs
with an ``anchor_verbatim`` flag, so metrics can be recomputed from the results log
(:func:`metrics_from_arcs`).

* A review with no text: ``ok`` with null metrics and zero counts (the original's
  ``empty_input``; null, not 0, so it never drags a mean down).
* The judge failed (unscored step), or a non-empty review yielded no ARC after the re-ask (the
  original's ``failed``): ``unscored`` with null metrics.
"""

from __future__ import annotations

import hashlib
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
from prism_review.judge.base import Usage
from prism_review.judge.constructiveness.arc import ARCInput, ARCOutput, ARCStep, anchor_is_verbatim
from prism_review.judge.constructiveness.arc_batch import ARCBatchInput, ARCBatchStep, BatchReview
from prism_review.metrics.constructiveness import COUNT_KEYS, compute_review_metrics
from prism_review.pipelines.protocol import is_economical
from prism_review.records import Paper, Review
from prism_review.systems.text import review_text
from prism_review.systems.text_policy import FIRST_FOUR, AllText, TextPolicy

#: reference metric name → results-log key
KEY_MAP: dict[str, str] = {
    "MCS": "mcs",
    "AR": "ar",
    "SD": "sd",
    "CD": "cd",
    "D1_actionability_mean": "d1",
    "D2_specificity_mean": "d2",
    "D3_justification_mean": "d3",
    "D4_solution_mean": "d4",
    "D5_tone_mean": "d5",
    "n_arcs": "n_arcs",
    **{v: v for v in COUNT_KEYS.values()},
}
METRIC_KEYS: tuple[str, ...] = (*KEY_MAP.values(), "verbatim_rate")
STEP = ARCStep()
BATCH_STEP = ARCBatchStep()


def metrics_from_arcs(arcs: list[dict[str, Any]]) -> dict[str, float | int | None]:
    """The row metrics of a list of ARCs (pure; used for re-scoring from the log)."""
    ref = compute_review_metrics(arcs)
    out: dict[str, float | int | None] = {KEY_MAP[k]: v for k, v in ref.items()}
    flags = [a.get("anchor_verbatim") for a in arcs if a.get("anchor_verbatim") is not None]
    out["verbatim_rate"] = sum(bool(f) for f in flags) / len(flags) if flags else None
    return out


@register
class ConstructivenessDimension(Dimension):
    """Constructiveness: MCS, AR, SD, CD and the D1–D5 means per review."""

    name: ClassVar[str] = "constructiveness"
    label: ClassVar[str] = "Constructiveness"
    order: ClassVar[int] = 40
    metrics: ClassVar[list[MetricSpec]] = [
        MetricSpec(key="mcs", label="MCS", headline=True),
        MetricSpec(key="d1", label="D1 Act."),
        MetricSpec(key="d2", label="D2 Spec."),
        MetricSpec(key="d3", label="D3 Just."),
        MetricSpec(key="d4", label="D4 Sol."),
        MetricSpec(key="d5", label="D5 Tone"),
        MetricSpec(key="ar", label="AR"),
        MetricSpec(key="sd", label="SD"),
        MetricSpec(key="cd", label="CD"),
        MetricSpec(key="n_arcs", label="ARCs", fmt="{:.1f}"),
        MetricSpec(key="verbatim_rate", label="Verbatim"),
    ]
    table1_note: ClassVar[str] = "MCS = mean constructiveness of the review's actionable comments (0-1)"
    #: every text section, summary, strengths, weaknesses and questions first
    text_policy: ClassVar[TextPolicy] = TextPolicy(
        llm=AllText(first=FIRST_FOUR), human=AllText(first=FIRST_FOUR), original=True
    )

    #: the metrics ``prism compare`` tests as one Holm family (the reference's nine)
    compare_metrics: ClassVar[list[str]] = ["mcs", "ar", "sd", "cd", "d1", "d2", "d3", "d4", "d5"]

    def work_units(
        self, paper: Paper, reviews: dict[str, list[Review]], systems: list[str]
    ) -> Iterable[WorkUnit]:
        units = list(self.per_review_units(paper, reviews, systems))
        # the paper's reviews under evaluation: the economical protocol judges them in one call
        siblings = [(u.system, u.reviews[0]) for u in units]
        for u in units:
            u.extra["paper_reviews"] = siblings
        return units

    async def evaluate(self, unit: WorkUnit, ctx: RunContext) -> list[ResultRow]:
        review = unit.reviews[0]
        usage = Usage()
        row = self.new_row(unit, review.reviewer_id, usage=usage)
        text = review_text(review, "constructiveness", compat=ctx.compat)
        if not text.strip():
            row.metrics = metrics_from_arcs([])
            row.extracted = {"arcs": [], "status": "empty_input"}
            return [row]
        batch = self._batch(unit, ctx) if is_economical(ctx) else []
        if len(batch) > 1:
            out, error, raw = await self._from_batch(unit, ctx, batch, usage)
        else:
            res = await ctx.run(
                STEP, ARCInput(review_text=text, reviewer_id=review.reviewer_id, compat=ctx.compat)
            )
            usage.add(res.usage)
            out, error, raw = (res.output if res.ok else None), res.error, res.raw
        if out is None or not out.atomic_comments:
            row.status = "unscored"
            row.error = error or "no atomic comments after the re-ask"
            row.metrics = dict.fromkeys(METRIC_KEYS)
            row.extracted = {"arcs": None, "status": "failed", "raw": raw}
            return [row]
        arcs = [a.model_dump() for a in out.atomic_comments]
        for a in arcs:
            a["anchor_verbatim"] = anchor_is_verbatim(a.get("anchor_quote", ""), text)
        # an ARC the judge left without a numeric score is unscored, not 0 (compat: the
        # reference's 0); it stays in the log, flagged, and out of the metrics
        scored = arcs if ctx.compat else [a for a in arcs if not a.get("scores_missing")]
        row.extracted = {"arcs": arcs, "status": "success", "n_arcs_unscored": len(arcs) - len(scored)}
        if not scored:
            row.status = "unscored"
            row.error = "no atomic comment received numeric rubric scores after the re-ask"
            row.metrics = dict.fromkeys(METRIC_KEYS)
            return [row]
        row.metrics = metrics_from_arcs(scored)
        return [row]

    # -- economical protocol: the reviews of one paper in one call -----------------------------
    @staticmethod
    def _batch(unit: WorkUnit, ctx: RunContext) -> list[tuple[str, str, str]]:
        """``(batch id, system/reviewer key, text)`` of the paper's non-empty reviews."""
        items = []
        for system, rev in unit.extra.get("paper_reviews") or []:
            text = review_text(rev, "constructiveness", compat=ctx.compat)
            if text.strip():
                items.append((f"{system}/{rev.reviewer_id}", text))
        return [(f"R{i}", key, text) for i, (key, text) in enumerate(sorted(items), start=1)]

    async def _from_batch(self, unit: WorkUnit, ctx: RunContext, batch: list[tuple[str, str, str]],
                          usage: Usage) -> tuple[ARCOutput | None, str | None, Any]:
        """This unit's ARCs from the paper's one batch call (made once, kept in the run memo).
        The call's usage goes on the row of the batch's first review, so row usages still sum
        to what the run spent."""
        ids = hashlib.sha256("\n".join(k for _, k, _ in batch).encode()).hexdigest()[:12]

        async def compute() -> dict[str, Any]:
            inp = ARCBatchInput(reviews=[BatchReview(review_id=b, review_text=t) for b, _, t in batch])
            res = await ctx.run(BATCH_STEP, inp)
            if res.ok and res.output is not None:
                got = res.output.by_id()
            else:  # the reviews of the reply that pass their own check still count
                got = BATCH_STEP.usable(inp, res.raw).by_id() if res.raw else {}
            return {"arcs": {key: [a.model_dump() for a in got[b].atomic_comments] for b, key, _ in batch if b in got},
                    "error": res.error, "usage": res.usage.model_dump(), "first": batch[0][1]}

        done = await ctx.memo(f"constructiveness/batch/{unit.venue}/{unit.paper_id}/{ids}", compute)
        own = f"{unit.system}/{unit.reviews[0].reviewer_id}"
        if own == done["first"]:
            usage.add(Usage(**done["usage"]))
        if own not in done["arcs"]:
            return None, done["error"] or "no entry for this review in the batch reply after the re-ask", None
        return ARCOutput.model_validate({"atomic_comments": done["arcs"][own]}), None, None
