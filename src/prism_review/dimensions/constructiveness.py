"""Multi-dimensional Constructiveness as a ``prism evaluate`` dimension (prism-reference §7).

One work unit per review (each human review separately, each LLM system's review). The unit runs
the ARC step once and yields one row: metrics ``mcs`` (headline), ``ar``, ``sd``, ``cd``,
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
from prism_review.judge.constructiveness.arc import ARCInput, ARCStep, anchor_is_verbatim
from prism_review.metrics.constructiveness import COUNT_KEYS, compute_review_metrics
from prism_review.records import Paper, Review
from prism_review.systems.text import review_text

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
    metrics: ClassVar[list[MetricSpec]] = [
        MetricSpec(key="mcs", label="MCS", headline=True),
        MetricSpec(key="d1", label="D1 Act.", headline=True),
        MetricSpec(key="d2", label="D2 Spec.", headline=True),
        MetricSpec(key="d3", label="D3 Just.", headline=True),
        MetricSpec(key="d4", label="D4 Sol.", headline=True),
        MetricSpec(key="d5", label="D5 Tone", headline=True),
        MetricSpec(key="ar", label="AR"),
        MetricSpec(key="sd", label="SD"),
        MetricSpec(key="cd", label="CD"),
        MetricSpec(key="n_arcs", label="ARCs", fmt="{:.1f}"),
        MetricSpec(key="verbatim_rate", label="Verbatim"),
    ]

    #: the metrics ``prism compare`` tests as one Holm family (the reference's nine)
    compare_metrics: ClassVar[list[str]] = ["mcs", "ar", "sd", "cd", "d1", "d2", "d3", "d4", "d5"]

    def work_units(
        self, paper: Paper, reviews: dict[str, list[Review]], systems: list[str]
    ) -> Iterable[WorkUnit]:
        return self.per_review_units(paper, reviews, systems)

    async def evaluate(self, unit: WorkUnit, ctx: RunContext) -> list[ResultRow]:
        review = unit.reviews[0]
        usage = Usage()
        row = self.new_row(unit, review.reviewer_id, usage=usage)
        text = review_text(review, "constructiveness", compat=ctx.compat)
        if not text.strip():
            row.metrics = metrics_from_arcs([])
            row.extracted = {"arcs": [], "status": "empty_input"}
            return [row]
        res = await ctx.run(
            STEP, ARCInput(review_text=text, reviewer_id=review.reviewer_id, compat=ctx.compat)
        )
        usage.add(res.usage)
        out = res.output
        if not res.ok or out is None or not out.atomic_comments:
            row.status = "unscored"
            row.error = res.error or "no atomic comments after the re-ask"
            row.metrics = dict.fromkeys(METRIC_KEYS)
            row.extracted = {"arcs": None, "status": "failed", "raw": res.raw}
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
