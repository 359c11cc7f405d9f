"""Multi-dimensional Constructiveness as a ``prism evaluate`` dimension (prism-reference §7).

One work unit per review (each human review separately, each LLM system's review). The unit runs
the ARC step once: one ``constructiveness.arc`` call per review under ``economical`` (the
default) and ``reference``, the rubric as the system message first so provider prompt caching
shares it, and the call's content is the review alone (selection-invariant). Under
``--protocol pooled`` the reviews of a group of consecutive papers share one
``constructiveness.arc_batch`` call, made once through the run memo, its answer split back per
review; groups are whole papers, at most ``MAX_GROUP_REVIEWS`` reviews whose reply estimate
(``arc_batch.reply_budget``) is within the reply cap, sealed by the runner
(``pipelines/grouping.py``); a paper the group's reply left wholly unscored gets its own call;
a review's scores then depend on its group-mates. It yields one row: metrics ``mcs`` (headline), ``ar``, ``sd``, ``cd``,
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
import json
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
from prism_review.dimensions.protocol import is_pooled
from prism_review.dimensions.review_text import review_text
from prism_review.judge.base import Usage
from prism_review.judge.constructiveness.arc import ARCInput, ARCOutput, ARCStep, anchor_is_verbatim
from prism_review.judge.constructiveness.arc_batch import (
    MAX_REPLY_TOKENS,
    ARCBatchInput,
    ARCBatchStep,
    BatchReview,
    reply_budget,
)
from prism_review.metrics.constructiveness import COUNT_KEYS, compute_review_metrics
from prism_review.records import Paper, Review
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
#: pooled protocol: non-empty reviews per cross-paper call at most (whole papers only)
MAX_GROUP_REVIEWS = 12
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
    #: also in each row: the comment counts per type
    row_metrics: ClassVar[tuple[str, ...]] = tuple(COUNT_KEYS.values())
    table1_note: ClassVar[str] = "MCS = mean constructiveness of the review's actionable comments (0-1)"
    #: every text section, summary, strengths, weaknesses and questions first
    text_policy: ClassVar[TextPolicy] = TextPolicy(
        llm=AllText(first=FIRST_FOUR), human=AllText(first=FIRST_FOUR), original=True
    )

    #: the metrics ``prism compare`` tests as one Holm family (the reference's nine)
    compare_metrics: ClassVar[list[str]] = ["mcs", "ar", "sd", "cd", "d1", "d2", "d3", "d4", "d5"]

    def packs_papers(self, ctx: RunContext) -> bool:
        """Under ``--protocol pooled`` with an LLM judge, consecutive papers' reviews share one
        call (pipelines/grouping.py); every other run streams papers, one call per review."""
        return is_pooled(ctx)

    def work_units(
        self, paper: Paper, reviews: dict[str, list[Review]], systems: list[str]
    ) -> Iterable[WorkUnit]:
        return self.per_review_units(paper, reviews, systems)

    def joins_group(self, group: list[list[WorkUnit]], units: list[WorkUnit]) -> bool:
        """Whole papers while the call stays within MAX_GROUP_REVIEWS non-empty reviews and
        the group's reply estimate (``arc_batch.reply_budget``) within the reply cap, and
        the group within MAX_GROUP_REVIEWS papers (papers without a review to judge never hold
        the runner's stream back for long)."""
        if len(group) >= MAX_GROUP_REVIEWS:
            return False
        texts = [t for u in [*(x for g in group for x in g), *units] if (t := _text(u)).strip()]
        return (len(texts) <= MAX_GROUP_REVIEWS
                and reply_budget([len(t) for t in texts]) <= MAX_REPLY_TOKENS)

    def seal_group(self, group: list[list[WorkUnit]]) -> None:
        """Each unit of the group gets the group's call content (``(batch id, review key, text)``
        of its non-empty reviews): what the one call sends, the reviews' texts and nothing else
        of them, shipped to the engine's workers because whichever unit runs first makes the
        call. Units that were never sealed (a run that packs no papers) carry no group."""
        units = [u for g in group for u in g]
        batch = _batch([(u.venue, u.paper_id, u.system, u.reviews[0].reviewer_id, _text(u)) for u in units])
        for u in units:
            u.extra.pop(_TEXT, None)
            u.extra[GROUP] = batch

    async def evaluate(self, unit: WorkUnit, ctx: RunContext) -> list[ResultRow]:
        review = unit.reviews[0]
        usage = Usage()
        row = self.new_row(unit, review.reviewer_id, usage=usage)
        text = review_text(review, "constructiveness", compat=ctx.compat)
        if not text.strip():
            row.metrics = metrics_from_arcs([])
            row.extracted = {"arcs": [], "status": "empty_input"}
            return [row]
        done = await self._pooled(unit, ctx, usage) if is_pooled(ctx) else None
        if done is not None:
            out, error, raw = done
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

    # -- pooled protocol: the reviews of a group of papers in one call -------------------------
    async def _pooled(self, unit: WorkUnit, ctx: RunContext,
                          usage: Usage) -> tuple[ARCOutput | None, str | None, Any] | None:
        """This unit's ARCs from its group's one call, or from its paper's own call when the
        group's reply scored none of the paper's reviews (an unusable reply, or one that left
        the paper out, never silences a paper); None: a paper with one review alone (the
        single-review step)."""
        group = unit.extra.get(GROUP) or []
        prefix = f"{unit.venue}/{unit.paper_id}/"
        paper = [(f"R{i}", k, t) for i, (_, k, t) in enumerate((b for b in group if b[1].startswith(prefix)), 1)]
        own = _key(unit.venue, unit.paper_id, unit.system, unit.reviews[0].reviewer_id)
        if len(group) > len(paper):
            done = await self._call(ctx, group)
            if any(k in done["arcs"] for _, k, _ in paper):
                return _take(done, own, usage)
        if len(paper) > 1:
            return _take(await self._call(ctx, paper), own, usage)
        return None

    @staticmethod
    async def _call(ctx: RunContext, batch: list[tuple[str, str, str]]) -> dict[str, Any]:
        """One ``arc_batch`` call for ``batch``, made once per run through the memo; the key is
        the digest of the call's content (ids, review keys, texts), so a resumed run, or another
        unit of the group, reuses a finished call."""
        digest = hashlib.sha256(json.dumps(batch, ensure_ascii=False).encode()).hexdigest()[:24]

        async def compute() -> dict[str, Any]:
            inp = ARCBatchInput(reviews=[BatchReview(review_id=b, review_text=t) for b, _, t in batch])
            res = await ctx.run(BATCH_STEP, inp)
            if res.ok and res.output is not None:
                got = res.output.by_id()
            else:  # the reviews of the reply that pass their own check still count
                got = BATCH_STEP.usable(inp, _reply_object(res.raw)).by_id() if res.raw else {}
            return {"arcs": {key: [a.model_dump() for a in got[b].atomic_comments] for b, key, _ in batch if b in got},
                    "error": res.error, "usage": res.usage.model_dump(), "first": batch[0][1]}

        return await ctx.memo(f"constructiveness/batch/{digest}", compute)  # type: ignore[no-any-return]


def _reply_object(raw: str) -> dict[str, Any] | None:
    """A reply's JSON object as the LLM layer reads replies, or ``None`` when unreadable."""
    from prism_review.llm.parse import parse_json_object

    try:
        return parse_json_object(raw)
    except Exception:  # noqa: BLE001 - an unreadable reply leaves every review unscored
        return None


#: a sealed unit's ``extra`` key: its group's call content (``seal_group``)
GROUP = "arc_group"
#: a unit's constructiveness text while its group is open (computed once; dropped at the seal)
_TEXT = "_arc_text"


def _key(venue: str, paper_id: str, system: str, reviewer_id: str) -> str:
    return f"{venue}/{paper_id}/{system}/{reviewer_id}"


def _text(unit: WorkUnit) -> str:
    """The unit's review text as the pooled call sends it (packing runs are never compat),
    computed once per unit however often the open group is asked to take another paper."""
    text = unit.extra.get(_TEXT)
    if text is None:
        text = unit.extra[_TEXT] = review_text(unit.reviews[0], "constructiveness")
    return str(text)


def _batch(members: list[tuple[str, str, str, str, str]]) -> list[tuple[str, str, str]]:
    """``(batch id, review key, text)`` of the non-empty reviews of ``(venue, paper id, system,
    reviewer id, text)`` members: papers in run order, each paper's reviews sorted by key,
    numbered R1, R2, ... (one paper: its reviews as before)."""
    papers: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for venue, paper_id, system, reviewer_id, text in members:
        if text.strip():
            papers.setdefault((venue, paper_id), []).append((_key(venue, paper_id, system, reviewer_id), text))
    items = [kt for texts in papers.values() for kt in sorted(texts)]
    return [(f"R{i}", key, text) for i, (key, text) in enumerate(items, start=1)]


def _take(done: dict[str, Any], own: str, usage: Usage) -> tuple[ARCOutput | None, str | None, Any]:
    """The review ``own``'s ARCs from a call's memo entry. The call's usage goes on the row of
    its first review, so row usages still sum to what the run spent."""
    if own == done["first"]:
        usage.add(Usage(**done["usage"]))
    if own not in done["arcs"]:
        return None, done["error"] or "no entry for this review in the batch reply after the re-ask", None
    return ARCOutput.model_validate({"atomic_comments": done["arcs"][own]}), None, None
