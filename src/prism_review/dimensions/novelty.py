"""The Novelty Assessment dimension (spec §5): ``prism evaluate -d novelty``.

Work units: one per (paper, system). Per unit:

1. the **paper side** (``novelty.paper``: core task, contributions, key terms, entities) and the
   **candidate pool** (queries → retriever → dedup → filters → self-exclusion → MMR) are computed
   once per paper through ``ctx.memo`` and shared by every system (risk N7);
2. the **claims** of each review (``novelty.claims``);
3. a **verdict** per (claim, candidate): under the economical protocol (the default) each
   review's claims against the pool in its own ``novelty.verdict_review`` calls (split when its
   pairs exceed one call's output budget; the paper and pool first, so the prefix is shared
   through provider prompt caching), the call's content the review's alone; under ``--protocol
   pooled`` every distinct claim of the paper's reviews against the pool in
   ``novelty.verdict_paper`` calls, the paper and pool sent once per call
   (``dimensions/novelty_paper.py``; a failed call falls back to one ``novelty.verdict_review``
   per review), so a review's verdicts depend on the paper's other reviews in the run; under the
   reference protocol one ``novelty.verdict`` per pair; with ``--set verdict_batch=N``, ``novelty.verdict_batch`` with N candidates per
   call (1 uses ``novelty.verdict``); the offline judge takes every candidate at once;
4. per-claim final scores (``novelty_policy``, default ``top3_relevance`` with the pool's
   relevance kept, N3) and NS / SR / SSR / claim rate / stance shares per review text.

Settings: ``retrieval`` = ``local`` (default; ``index_dir`` or an index built on first use from
the data's papers and reference lists into the user cache) | ``s2`` (``s2_base_url``,
``s2_min_interval``, ``s2_max_attempts``; key from ``SEMANTIC_SCHOLAR_API_KEY(S)``) | ``none``;
``human_aggregation`` = ``per_review_mean`` (default: one row per human review) or
``panel_concat`` (one row for the concatenated panel, as the original did — risk N1; the
default under ``--compat``). A claim-less review has NS/SR/SSR None and counts in the claim
rate (N6; compat gives NS 0.5).
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from prism_review.dimensions.base import (
    Dimension,
    MetricSpec,
    ResultRow,
    RunContext,
    WorkUnit,
    register,
)
from prism_review.dimensions.novelty_paper import (
    economical_verdicts,
    paper_verdicts,
    review_claims,
    review_verdicts,
)
from prism_review.dimensions.protocol import is_economical, is_pooled, protocol_of
from prism_review.dimensions.review_text import review_text
from prism_review.dimensions.settings import SettingSpec
from prism_review.judge.base import Usage
from prism_review.judge.novelty.normalise import normalize_verdict
from prism_review.judge.novelty.paper_side import PaperSideInput, PaperSideOutput, PaperSideStep
from prism_review.judge.novelty.textprep import (
    extract_abstract_intro,
    find_abstract,
    paper_for_extraction,
)
from prism_review.judge.novelty.verdict import (
    CandidateText,
    VerdictBatchInput,
    VerdictBatchStep,
    VerdictInput,
    VerdictStep,
)
from prism_review.judge.novelty.verify import PairError, assemble, related_works
from prism_review.metrics.novelty import POLICIES, STANCES, review_metrics
from prism_review.records import Paper, Review
from prism_review.retrieval.factory import (
    RETRIEVAL_MODES,
    data_root_of,
    make_retriever,
    retrieval_mode,
)
from prism_review.retrieval.pool import build_pool
from prism_review.systems.text_compat import load_review_text
from prism_review.systems.text_policy import AllText, TextPolicy
from prism_review.venues import get_venue

HUMAN = "human"
PANEL_ID = "panel"
AGG_MODES = ("per_review_mean", "panel_concat")
#: characters of the paper context standing in for a missing abstract
ABSTRACT_FALLBACK_CHARS = 2000


def _review_text(review: Review, compat: bool) -> str:
    return review_text(review, "novelty", compat=compat)


def panel_text(reviews: list[Review], venue: str, *, compat: bool = False) -> str:
    """The human panel mode (§5.1 rule 4): all of a paper's reviews as one text.

    Clean: each review's novelty text under a ``### Reviewer Human_k`` heading (no ratings, so
    no score text is mined as a claim). Compat: the original's rendering of the human file
    (``### Reviewer i (Rating: …)`` + ``## Key`` sections for the ICLR keys only).
    """
    get_venue(venue)  # validates the venue name
    if not reviews:
        return ""
    if compat:
        raw = reviews[0].extra.get("raw_text")
        if isinstance(raw, str) and raw.strip():
            return load_review_text(raw, is_txt=False)
    blocks = []
    for r in reviews:
        text = _review_text(r, False)
        if text.strip():
            blocks.append(f"### Reviewer {r.reviewer_id}\n\n{text}")
    return "\n\n".join(blocks)


class RetrievalFailed(RuntimeError):
    """All of a paper's retrieval queries failed (the unit errors and is retried next run)."""


async def get_retriever(ctx: RunContext, paper: Paper) -> Any:
    """The run's retriever, built lazily once and kept on ``ctx.services``."""
    if "novelty_retriever" in ctx.services:
        return ctx.services["novelty_retriever"]
    lock = ctx.services.setdefault("novelty_retriever_lock", asyncio.Lock())
    async with lock:
        if "novelty_retriever" not in ctx.services:
            ctx.services["novelty_retriever"] = make_retriever(ctx.settings, data_root_of(paper))
    return ctx.services["novelty_retriever"]


def verdict_paper_inputs(paper: Paper, side: dict[str, Any], compat: bool) -> dict[str, Any]:
    """The paper's fields of a verdict input: abstract + introduction and the contributions."""
    contribs = [" ".join(filter(None, (c.get("name"), c.get("author_claim_text"), c.get("description"))))
                for c in side.get("contributions", [])]
    context = extract_abstract_intro(paper.full_text, strict=not compat)
    # the offline judge's yardstick: the paper's own title and abstract (else its context's start)
    abstract = paper.abstract.strip() or find_abstract(paper.full_text) or context[:ABSTRACT_FALLBACK_CHARS]
    return {"paper_context": context, "contributions": contribs, "compat": compat,
            "paper_title": paper.title.strip(), "paper_abstract": abstract}


def _usage_dict(u: Usage) -> dict[str, Any]:
    return u.model_dump()


def unit_texts(system: str, reviews: list[Review], venue: str, mode: str, compat: bool) -> list[tuple[str, str]]:
    """``(reviewer id, text)`` of each review text a unit of ``system`` judges: its reviews, or
    the human panel as one text (``panel_concat``)."""
    if system == HUMAN and mode == "panel_concat":
        return [(PANEL_ID, panel_text(reviews, venue, compat=compat))]
    # compat text needs the raw file; without it (e.g. in-memory reviews) use the clean text
    return [(r.reviewer_id, _review_text(r, compat) or _review_text(r, False)) for r in reviews]


def paper_texts(unit: WorkUnit, mode: str, compat: bool) -> list[tuple[str, str, str]]:
    """``(system, reviewer id, text)`` of every review text of the unit's paper under evaluation
    (``extra["paper_reviews"]``, else the unit's own), as each system's unit judges them."""
    by_system: dict[str, list[Review]] = {}
    for r in unit.extra.get("paper_reviews") or unit.reviews:
        by_system.setdefault(r.system, []).append(r)
    return [(system, rid, text) for system, revs in by_system.items()
            for rid, text in unit_texts(system, revs, unit.venue, mode, compat)]


def candidate_texts(works: list[dict[str, Any]]) -> list[CandidateText]:
    return [CandidateText(cand_id=w["related_paper_id"], text=w["text"], relevance=w["relevance_score"])
            for w in works]


@register
class NoveltyDimension(Dimension):
    """Novelty claims of reviews checked against retrieved prior work: NS, SR, SSR, claim rate."""

    name: ClassVar[str] = "novelty"
    label: ClassVar[str] = "Novelty Assessment"
    order: ClassVar[int] = 20
    metrics: ClassVar[list[MetricSpec]] = [
        MetricSpec(key="ns", label="NS", headline=True),
        MetricSpec(key="sr", label="SR", headline=True),
        MetricSpec(key="ssr", label="SSR", headline=True),
        MetricSpec(key="has_claim", label="Claim rate"),
        MetricSpec(key="n_claims", label="Claims/review", fmt="{:.2f}"),
        MetricSpec(key="mean_score", label="Mean claim score", fmt="{:.2f}"),
        *[MetricSpec(key=f"stance_{s}", label=f"Stance {s}") for s in STANCES],
    ]
    #: also in each row (:func:`prism_review.metrics.novelty.review_metrics`)
    row_metrics: ClassVar[tuple[str, ...]] = ("n_scored_claims", "max_score")
    table1_note: ClassVar[str] = (
        "NS / SR / SSR = the review's novelty claims checked against prior work: "
        "normalised score, support rate, strict support rate (0-1)"
    )
    #: every text section of the review (score, decision and meta sections left out)
    text_policy: ClassVar[TextPolicy] = TextPolicy(llm=AllText(), human=AllText(), original=True)
    human_aggregation: ClassVar[str] = "per_review_mean"
    setting_specs: ClassVar[tuple[SettingSpec, ...]] = (
        SettingSpec("retrieval", "literature search backend", choices=RETRIEVAL_MODES),
        SettingSpec("index_dir", "local literature index folder"),
        SettingSpec("human_aggregation", "how human reviews form the paper's value", choices=AGG_MODES),
        SettingSpec("novelty_policy", "per-claim aggregation of pair scores", choices=POLICIES),
        SettingSpec("verdict_batch", "candidates judged per verdict call", kind=int, minimum=1),
        SettingSpec("s2_base_url", "Semantic Scholar API base URL"),
        SettingSpec("s2_min_interval", "seconds between Semantic Scholar requests", kind=float, minimum=0),
        SettingSpec("s2_max_attempts", "attempts per Semantic Scholar query", kind=int, minimum=1),
        SettingSpec("s2_retry_delay", "base retry delay for Semantic Scholar, seconds", kind=float, minimum=0),
    )

    def describe(self) -> dict[str, Any]:
        return {
            "human_aggregation": self.human_aggregation,
            "human_aggregation_modes": list(AGG_MODES),
            "human_aggregation_note": (
                "setting human_aggregation: per_review_mean (default; one row per human review, "
                "the paper's human value is their mean) or panel_concat (one row for all human "
                "reviews concatenated, the original's behaviour, default under --compat); each "
                "row records the mode in extracted.human_aggregation"
            ),
            "claimless_reviews": "excluded from NS/SR/SSR, counted in the claim rate (compat: NS 0.5)",
            "pool": "one candidate pool per paper shared by every system",
        }

    def summary_notes(self, rows: list[ResultRow]) -> list[str]:
        """Per system, the reviews whose claims were not checked (``retrieval none``)."""
        counts: dict[str, int] = {}
        for r in rows:
            if r.status == "ok" and r.extracted.get("unchecked"):
                counts[r.system] = counts.get(r.system, 0) + 1
        return [f"novelty · {system}: {n} review(s) with claims not checked (retrieval none): "
                "NS/SR/SSR null, claim rate counted" for system, n in sorted(counts.items())]

    def work_units(self, paper: Paper, reviews: dict[str, list[Review]], systems: list[str]) -> list[WorkUnit]:
        """One unit per (paper, system) with that system's non-empty reviews; every unit carries
        the paper's reviews under evaluation (``extra["paper_reviews"]``: ``--protocol pooled``
        judges their claims together; the other protocols never read it)."""
        units = []
        for system in systems:
            revs = [r for r in reviews.get(system, []) if r.text.strip() or r.sections]
            if revs:
                units.append(WorkUnit(key=f"{paper.venue}/{paper.paper_id}/{system}", venue=paper.venue,
                                      paper_id=paper.paper_id, system=system, paper=paper, reviews=revs))
        everyone = [r for u in units for r in u.reviews]
        for u in units:
            u.extra["paper_reviews"] = everyone
        return units

    # -- shared per paper ------------------------------------------------------------------
    async def _paper_side(self, ctx: RunContext, paper: Paper) -> dict[str, Any]:
        async def compute() -> dict[str, Any]:
            step = PaperSideStep()
            inp = PaperSideInput(paper_id=paper.paper_id, title=paper.title, abstract=paper.abstract,
                                 text=paper_for_extraction(paper.full_text, strict=not ctx.compat))
            res = await ctx.run(step, inp)
            if res.ok and res.output is not None:
                out, source = res.output, "judge"
            else:  # the paper side is not a score: fall back to the deterministic extraction
                out, source = step.finalize(inp, PaperSideOutput()), "fallback_after_failure"
            return {"side": out.model_dump(), "source": source, "error": res.error, "usage": _usage_dict(res.usage)}

        return await ctx.memo(f"novelty/paper/{paper.venue}/{paper.paper_id}", compute)  # type: ignore[no-any-return]

    async def _pool(self, ctx: RunContext, paper: Paper, side: dict[str, Any]) -> dict[str, Any]:
        async def compute() -> dict[str, Any]:
            retriever = await get_retriever(ctx, paper)
            pool = await build_pool(side, retriever, get_venue(paper.venue).year, paper_ids=[paper.paper_id],
                                    paper_title=paper.title, compat=ctx.compat)
            queries = pool.get("queries", [])
            if queries and all(q.get("status") == "error" for q in queries) and not ctx.compat:
                # every search failed: not "no prior work" — fail the unit (retried on the next
                # run) instead of scoring every claim 0 against an empty pool
                raise RetrievalFailed(f"every retrieval query failed for {paper.paper_id}: {queries[0].get('error')}")
            return pool

        return await ctx.memo(f"novelty/pool/{paper.venue}/{paper.paper_id}", compute)  # type: ignore[no-any-return]

    # -- one unit --------------------------------------------------------------------------
    async def evaluate(self, unit: WorkUnit, ctx: RunContext) -> list[ResultRow]:
        """Rows for the unit: one per review, or one for the human panel (``panel_concat``)."""
        paper = unit.paper
        mode = str(ctx.setting("human_aggregation") or ("panel_concat" if ctx.compat else "per_review_mean"))
        if mode not in AGG_MODES:
            raise ValueError(f"unknown human_aggregation {mode!r}; use {' or '.join(AGG_MODES)}")
        side_rec = await self._paper_side(ctx, paper)
        pool = await self._pool(ctx, paper, side_rec["side"])
        texts = unit_texts(unit.system, unit.reviews, unit.venue, mode, ctx.compat)
        shared = {
            "human_aggregation": mode if unit.system == HUMAN else None,
            "paper_side": {k: side_rec["side"][k] for k in ("core_task", "contributions", "key_terms")}
            | {"source": side_rec["source"], "fallback": side_rec["side"].get("fallback")},
            "pool": {"backend": pool.get("backend"), "stats": pool.get("stats"),
                     "queries": [{k: q.get(k) for k in ("id", "query", "status", "count", "error") if k in q}
                                 for q in pool.get("queries", [])]},
        }
        # the paper's side of every verdict, the same for each review of the unit: built once
        works = related_works(pool.get("candidate_pool_top30", []))
        paper_inputs = verdict_paper_inputs(paper, side_rec["side"], ctx.compat) if works else {}
        how = self._verdict_pattern(ctx)
        batch = None
        if how == "paper" and works:  # pooled: every review's claims of the paper judged together
            batch = await paper_verdicts(ctx, unit, paper_texts(unit, mode, ctx.compat), paper_inputs,
                                         candidate_texts(works))
        return [await self._one(ctx, unit, rid, text, works, paper_inputs, shared, how, batch)
                for rid, text in texts]

    @staticmethod
    def _verdict_pattern(ctx: RunContext) -> str:
        """How verdicts are asked: ``review`` (economical: one review's claims per call),
        ``paper`` (pooled: the paper's claims together) or ``pair`` (reference, offline,
        compat, and ``--set verdict_batch``, which asks for per-claim batches)."""
        if not is_economical(ctx) or ctx.setting("verdict_batch") is not None:
            return "pair"
        return "paper" if is_pooled(ctx) else "review"

    async def _one(self, ctx: RunContext, unit: WorkUnit, reviewer_id: str, text: str, works: list[dict[str, Any]],
                   paper_inputs: dict[str, Any], shared: dict[str, Any], how: str,
                   batch: dict[tuple[str, str], dict[str, Any]] | None) -> ResultRow:
        usage = Usage()
        rec = await review_claims(ctx, unit, unit.system, reviewer_id, text, shared=how == "paper")
        usage.add(Usage(**rec["usage"]))
        if "claims" not in rec:
            return self.new_row(unit, reviewer_id, status="unscored", error=f"claim extraction: {rec['error']}",
                                extracted=shared, usage=usage)
        claims: list[dict[str, Any]] = rec["claims"]
        if how == "paper":
            outcomes = (await economical_verdicts(ctx, batch, (unit.system, reviewer_id), paper_inputs, claims,
                                                  candidate_texts(works), usage)
                        if claims and works else {})
        elif how == "review":
            outcomes = (await review_verdicts(ctx, paper_inputs, claims, candidate_texts(works), usage)
                        if claims and works else {})
        else:
            outcomes = await self._verdicts(ctx, paper_inputs, claims, works, usage)
        policy = str(ctx.setting("novelty_policy", "top3_relevance"))
        result = assemble(claims, works, outcomes, policy=policy, compat=ctx.compat)
        unchecked = retrieval_mode(ctx.settings) == "none" and not ctx.compat
        if unchecked:  # no literature was searched: the claims cannot be checked, not score 0
            for a in result["aggregated"]:
                a["final_score"] = None
        finals = [a["final_score"] for a in result["aggregated"]]
        metrics = review_metrics(finals, [c["stance"] for c in claims], compat=ctx.compat)
        unscored = bool(claims) and all(f is None for f in finals) and not unchecked
        extracted = {
            **shared,
            "claims": [{k: c[k] for k in ("claim_id", "text", "stance", "confidence_lang", "prior_work_strings",
                                          "evidence_expected", "source")} for c in claims],
            "verdicts": result["aggregated"],
            # every scored pair with both axes, enough to re-aggregate under another policy
            "pairs": [{k: pr.get(k) for k in ("review_sentence_id", "related_paper_id", "label", "score",
                                              "stance_alignment", "calibration", "classification",
                                              "relevance_score")} for pr in result["pair_results"]],
            "final_scores": finals,
            "policy": policy,
            "stats": result["stats"],
            "errors": result["errors"][:20],
            **({"unchecked": "retrieval none: no prior work searched, NS/SR/SSR null"} if unchecked else {}),
        }
        return self.new_row(unit, reviewer_id, status="unscored" if unscored else "ok", metrics=metrics,
                            extracted=extracted, usage=usage, error="every verdict unscored" if unscored else None)

    async def _verdicts(self, ctx: RunContext, paper_inputs: dict[str, Any], claims: list[dict[str, Any]],
                        works: list[dict[str, Any]], usage: Usage) -> dict[tuple[str, str], Any]:
        if not claims or not works:
            return {}
        cands = candidate_texts(works)
        offline = getattr(ctx.judge, "mode", "offline") == "offline"
        # the reference protocol asks one verdict per (claim, candidate), as the reference does
        default = 1 if protocol_of(ctx) == "reference" else 5
        size = len(cands) if offline else max(1, int(ctx.setting("verdict_batch", default)))
        outcomes: dict[tuple[str, str], Any] = {}

        async def one_chunk(claim: dict[str, Any], chunk: list[CandidateText]) -> None:
            common = {"claim_id": claim["claim_id"], "claim": claim["text"], "claim_stance": claim["stance"],
                      "prior_work_strings": claim.get("prior_work_strings", []), **paper_inputs}
            if size == 1:
                res = await ctx.run(VerdictStep(), VerdictInput(**common, candidate=chunk[0]))
                got = {chunk[0].cand_id: res.output.model_dump()} if res.ok and res.output else {}
            else:
                res = await ctx.run(VerdictBatchStep(), VerdictBatchInput(**common, candidates=chunk))
                verdicts = res.output.verdicts if res.ok and res.output else []
                got = {v.related_paper_id: v.model_dump() for v in verdicts}
            usage.add(res.usage)
            for c in chunk:
                key = (claim["claim_id"], c.cand_id)
                if c.cand_id in got:
                    outcomes[key] = got[c.cand_id]
                elif ctx.compat and res.raw is not None:  # N4 compat: a bad reply scored as AMBIGUOUS 0
                    outcomes[key] = normalize_verdict(None, claim["claim_id"], c.cand_id, claim["text"], compat=True)
                elif res.raw is None and not res.ok:
                    outcomes[key] = PairError(res.error or "judge call failed")
                else:
                    outcomes[key] = None

        jobs = [one_chunk(cl, cands[i : i + size]) for cl in claims for i in range(0, len(cands), size)]
        await asyncio.gather(*jobs)
        return outcomes
