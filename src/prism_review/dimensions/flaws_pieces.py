"""Pooled flaws (``--protocol pooled``): each judge decision asked once per paper, over every review.

A system's rows here depend on every other review of the paper in the data (docs/fidelity.md,
"Economical flaws", ``--protocol pooled``); the default economical protocol asks the human side
once per paper and each pairing's review on its own (:mod:`.flaws_human_side`), which also
reuses :func:`consolidation`, :func:`validation`, :func:`mapping`, :func:`single_mapping` and
:func:`batch_input` below.

Under the reference protocol every (human panel, LLM system) pairing re-reads the human reviews:
a paper with H humans and S systems sends S + 1 consolidations (one per pairing and the
human-only bank), S + 1 validations of the paper and S·H + S + H mappings. Here the paper's
pieces are computed once, memoised through ``ctx.memo`` (persisted in the run folder, so a
resumed run does not redo them) and shared by every unit of the paper:

* **consolidation**: one ``flaws.consolidate`` over every review of the paper (the humans as
  ``Human_k``, each system's review as ``System_k``, systems sorted by id; every system present,
  whatever ``--system`` selects, as the panel reference does), so each review's flaws are
  extracted once and the flaw identity across reviews is decided once;
* **validation**: one ``flaws.validate`` of the paper's distinct flaws against the paper;
* **mapping**: one ``flaws.map_batch`` per paper: every review that a unit can score (pooled with
  a valid flaw) mapped onto the paper's valid-issue bank, the bank sent once and each review
  mapped on its own under the one-review rules; when that reply stays unusable, each review is
  asked on its own (``flaws.map``), so a failed mapping stays the review's.

A unit's consensus is built from those pieces: its micro-flaws are the paper's flaws that one
of its reviewers raised, with ``raw_arguments`` restricted to its reviewers and renamed to its
pool ids (``Human_k``, ``Panel_k``, ``LLM_Reviewer``), so the consensus count and the weight
``C_i / N`` are over the unit's pool as in the reference; its evaluations are the paper's for
those flaws; each reviewer's mentions are its paper mapping restricted to the unit's bank. The
metrics code is the same as the reference's (docs/fidelity.md, "Economical flaws", says where
the decisions can differ).

A step without a usable reply is memoised as ``{"error": ...}`` (the units that need it are
unscored, as the reference's unit is, and a resumed run does not re-ask); a call that got no
reply at all raises, nothing is memoised and the units stay unwritten.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from prism_review.dimensions.base import RunContext, WorkUnit
from prism_review.dimensions.flaws_pairing import (
    FlawEvidence,
    known_keys,
    map_input,
    paper_chars,
)
from prism_review.dimensions.flaws_panel import HUMAN, Member, review_text
from prism_review.dimensions.memo import input_digest as _digest
from prism_review.judge.flaws.models import (
    ConsolidateInput,
    MapBatchInput,
    MapInput,
    MicroFlaw,
    ReviewerText,
    ValidateInput,
)
from prism_review.judge.flaws.steps import ConsolidateStep, MapBatchStep, MapStep, ValidateStep
from prism_review.metrics.cfi import human_id
from prism_review.metrics.cps import build_issue_bank
from prism_review.records import Review

#: paper-level id of the k-th system's review (not an LLM alias: normalize_reviewer_key keeps it)
SYSTEM_PREFIX = "System_"


def _identity(review: Review, text: str) -> tuple[str, str, str]:
    return review.system, review.reviewer_id, text


async def asked_once(ctx: RunContext, where: str, step: Any, inp: BaseModel,
                     kept: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    """One piece: ``step`` asked for ``inp`` once per run (memo key ``<where>/<input digest>``),
    ``kept(output)`` stored; a reply still unusable after its re-ask is stored as
    ``{"error": ...}`` (deterministic: a transient failure raises and stores nothing)."""

    async def compute() -> dict[str, Any]:
        res = await ctx.run(step, inp)
        if not res.ok or res.output is None:
            return {"error": res.error or "unscored"}
        return kept(res.output)

    return await ctx.memo(f"{where}/{_digest(inp)}", compute)  # type: ignore[no-any-return]


def paper_members(unit: WorkUnit, compat: bool) -> list[Member]:
    """(paper-level id, review, text) for every review of the unit's paper with flaw text.

    Humans keep the pairing units' ``Human_k`` (k = position among the humans); systems are
    ``System_k`` in the order of ``extra["paper_reviews"]`` (sorted by id).
    """
    out: list[Member] = []
    h = s = 0
    for r in unit.extra.get("paper_reviews") or unit.reviews:
        if r.system == HUMAN:
            h += 1
            pid = human_id(h)
        else:
            s += 1
            pid = f"{SYSTEM_PREFIX}{s}"
        text = review_text(r, compat)
        if text.strip():
            out.append((pid, r, text))
    return out


async def consolidation(ctx: RunContext, unit: WorkUnit, paper: list[Member], *,
                        prefix: str = "flaws") -> dict[str, Any]:
    """The micro-flaws of ``paper``'s reviews (paper-level ids), once per paper: all its
    reviews here, its humans alone on the economical human side (memo keys under ``prefix``)."""
    inp = ConsolidateInput(paper_id=unit.paper_id,
                           reviews=[ReviewerText(reviewer_id=pid, text=t) for pid, _, t in paper])

    def kept(out: Any) -> dict[str, Any]:
        flaws, unknown = known_keys(out.micro_flaws, set(inp.reviewer_ids))
        return {"micro_flaws": [f.model_dump() for f in flaws], "unknown": unknown}

    return await asked_once(ctx, f"{prefix}/consolidate/{unit.venue}/{unit.paper_id}", ConsolidateStep(), inp, kept)


async def validation(ctx: RunContext, unit: WorkUnit, flaws: list[MicroFlaw], *,
                     prefix: str = "flaws") -> dict[str, Any]:
    """``flaws`` judged against the paper, once: the paper's distinct flaws here; on the
    economical human side the panel's, then each pairing's new ones (memo keys under ``prefix``)."""
    if not flaws:
        return {"evaluations": {}}
    inp = ValidateInput(paper_text=unit.paper.full_text, micro_flaws=flaws,
                        max_paper_chars=paper_chars(ctx))

    return await asked_once(ctx, f"{prefix}/validate/{unit.venue}/{unit.paper_id}", ValidateStep(), inp,
                            lambda out: {"evaluations": {k: v.model_dump() for k, v in out.evaluations.items()}})


def needs_mapping(paper: list[Member], flaws: list[MicroFlaw], evals: dict[str, dict[str, Any]]) -> list[Member]:
    """The paper's reviews that some unit could score for CPS: those pooled with a valid flaw.

    A valid flaw credited to nobody is in every unit; one raised by a human is in every unit of
    a paper with humans (every pairing and the human-only bank pool all humans); one raised by a
    system's review is in the units that pool that review: with humans, its own pairing (the
    humans and it), without, every panel unit. So a review is needed when a valid flaw was
    credited to nobody, to itself, to a human, or (when it is a human, or the paper has no
    human review) to anyone.
    """
    banked = {b["issue_id"] for b in build_issue_bank([f.model_dump() for f in flaws], evals)}
    valid = [f for f in flaws if f.flaw_id in banked]
    humans = {pid for pid, r, _ in paper if r.system == HUMAN}
    raisers = {k for f in valid for k in f.raw_arguments}
    anyone = bool(valid)
    if any(not f.raw_arguments for f in valid) or raisers & humans:
        return list(paper)
    return [m for m in paper if m[0] in raisers or (anyone and (m[0] in humans or not humans))]


def batch_input(members: list[Member], bank: list[dict[str, str]], flaws: list[MicroFlaw]) -> MapBatchInput:
    """The paper's reviews to map, with the bank once (``hints`` serve the offline judge)."""
    singles = [map_input(pid, text, bank, flaws) for pid, _, text in members]
    return MapBatchInput(reviews=[ReviewerText(reviewer_id=m.reviewer_id, text=m.review_text) for m in singles],
                         issues=singles[0].issues if singles else [],
                         hints={m.reviewer_id: m.hints for m in singles})


async def mapping(ctx: RunContext, unit: WorkUnit, inp: MapBatchInput) -> dict[str, Any]:
    """Every review that needs it mapped onto the paper's valid-issue bank in one call per paper.

    A batched reply that stays unusable after its re-ask (missing or unknown ids, unparsable or
    cut) is not an error of every review: each review is then asked on its own
    (``flaws.map``, as the reference protocol does), so a failed mapping stays local to the
    review it concerns. Returns ``{"mentions": {pid: [...]}, "errors": {pid: why}}``.
    """

    async def compute() -> dict[str, Any]:
        res = await ctx.run(MapBatchStep(), inp)
        if res.ok and res.output is not None:
            got = res.output.by_reviewer()
            return {"mentions": {pid: [m.model_dump() for m in got[pid]] for pid in inp.reviewer_ids},
                    "errors": {}}
        return {"batch_error": res.error or "unscored"}

    key = f"flaws/map_batch/{unit.venue}/{unit.paper_id}/{_digest(inp)}"
    got: dict[str, Any] = await ctx.memo(key, compute)
    if "batch_error" not in got:
        return got
    out: dict[str, Any] = {"mentions": {}, "errors": {}}
    for i, pid in enumerate(inp.reviewer_ids):
        one = await single_mapping(ctx, unit, inp.single(i))
        if "error" in one:
            out["errors"][pid] = one["error"]
        else:
            out["mentions"][pid] = one["mentions"]
    return out


async def single_mapping(ctx: RunContext, unit: WorkUnit, inp: MapInput) -> dict[str, Any]:
    """One review mapped on its own (the fallback of a failed batched mapping)."""

    return await asked_once(ctx, f"flaws/map/{unit.venue}/{unit.paper_id}", MapStep(), inp,
                            lambda out: {"mentions": [m.model_dump() for m in out.mentions]})


def unit_flaws(paper_flaws: list[MicroFlaw], rename: dict[str, str]) -> list[MicroFlaw]:
    """The paper's flaws a unit reviewer raised, raw_arguments restricted to the unit and keyed
    by its pool ids. A flaw the consolidation credited to nobody stays in every unit (it was
    drawn from a pool that holds each unit's reviewers, as a pairing's own consolidation's is)."""
    out = []
    for f in paper_flaws:
        kept = {rename[k]: q for k, q in f.raw_arguments.items() if k in rename}
        if f.raw_arguments and not kept:
            continue
        out.append(f.model_copy(update={"raw_arguments": kept}))
    return out


async def paper_evidence(ctx: RunContext, unit: WorkUnit, members: list[Member]) -> FlawEvidence:
    """The unit's evidence built from the paper's memoised pieces."""
    paper = paper_members(unit, ctx.compat)
    to_paper = {_identity(r, t): pid for pid, r, t in paper}
    rename: dict[str, str] = {}
    for pid, r, t in members:
        if _identity(r, t) not in to_paper:
            raise ValueError(f"{unit.key}: review {r.reviewer_id} of {r.system} is not among the "
                             "paper's reviews (extra['paper_reviews'])")
        rename[to_paper[_identity(r, t)]] = pid
    cons = await consolidation(ctx, unit, paper)
    if "error" in cons:
        return FlawEvidence(error=cons["error"])
    flaws = [MicroFlaw.model_validate(f) for f in cons["micro_flaws"]]
    val = await validation(ctx, unit, flaws)
    if "error" in val:
        return FlawEvidence(error=val["error"])
    paper_evals: dict[str, dict[str, Any]] = val["evaluations"]
    mine = unit_flaws(flaws, rename)
    ev = FlawEvidence(micro_flaws=mine, unknown=list(cons["unknown"]),
                      evaluations={f.flaw_id: paper_evals[f.flaw_id] for f in mine if f.flaw_id in paper_evals})
    ids = {b["issue_id"] for b in ev.bank}
    if not ids:
        return ev
    paper_bank = build_issue_bank([f.model_dump() for f in flaws], paper_evals)
    maps = await mapping(ctx, unit, batch_input(needs_mapping(paper, flaws, paper_evals), paper_bank, flaws))
    for ppid, pid in rename.items():
        if ppid in maps["errors"]:
            ev.map_errors[pid] = maps["errors"][ppid]
            continue
        if ppid not in maps["mentions"]:  # cannot happen: a unit with a bank pools a needed review
            raise RuntimeError(f"{unit.key}: review {ppid} has a bank but was not mapped")
        ev.mappings[pid] = {"mentions": [m for m in maps["mentions"][ppid]
                                         if str(m.get("issue_id") or "").strip() in ids]}
    return ev
