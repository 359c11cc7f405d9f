"""Economical flaws (``--protocol economical``): the human side once per paper, one review a pairing.

Every call's content is determined by the paper, its human panel and at most one system's
review, so a system's flaw rows do not depend on which other systems, papers or reviews are in
the run (issue 25). The reference protocol re-reads the human reviews in every (human panel,
system) pairing: with H humans and S systems it sends S + 1 consolidations, S + 1 validations
and S·H + S + H mappings per paper. Here:

Once per paper (the **human side**, memoised through ``ctx.memo`` and shared by every pairing
of the paper and by its human-only bank; each request holds the human panel only):

* ``flaws.consolidate`` over the humans (``Human_k``): the panel's micro-flaws;
* ``flaws.validate`` of those flaws against the paper;
* ``flaws.map_batch`` of the humans onto the panel's valid-issue bank (each review mapped on its
  own under the one-review rules; when the batched reply stays unusable, each human is asked on
  its own with ``flaws.map``).

These are the human-only bank unit's pieces as they are.

Once per pairing (each request holds the human side and the one system review, the shared part
first so a provider's prompt caching applies):

* ``flaws.extend``: the system's review added to the panel's micro-flaws: each weakness it
  raises is a panel flaw (its quote joins that flaw's ``raw_arguments`` as ``LLM_Reviewer``) or
  a new flaw raised by it alone;
* ``flaws.validate`` of the new flaws only (none: no call); the panel's flaws keep the paper's
  evaluation;
* ``flaws.map`` of the system's review onto the pairing's valid-issue bank.

A human's mentions in a pairing are its mapping onto the panel's bank: the human reviews are
not mapped again onto the issues that only the pairing's system raised (docs/fidelity.md,
"Economical flaws"). The metrics code is the reference's.

A step without a usable reply is memoised as ``{"error": ...}`` (the units that need it are
unscored); a call that got no reply at all raises, nothing is memoised and the units stay
unwritten.
"""

from __future__ import annotations

from typing import Any

from prism_review.dimensions.base import RunContext, WorkUnit
from prism_review.dimensions.flaws_pairing import FlawEvidence, map_input
from prism_review.dimensions.flaws_panel import Member
from prism_review.dimensions.flaws_pieces import (
    asked_once,
    batch_input,
    consolidation,
    mapping,
    single_mapping,
    validation,
)
from prism_review.judge.flaws.extend import ExtendInput, ExtendStep, RaisedFlaw, pairing_flaws
from prism_review.judge.flaws.models import MicroFlaw, ReviewerText
from prism_review.metrics.cfi import LLM_ID

#: memo key prefix of the economical pieces (the pooled protocol's are ``flaws/<step>/...``)
PREFIX = "flaws/human-side"


async def _extend(ctx: RunContext, unit: WorkUnit, flaws: list[MicroFlaw], own: Member) -> dict[str, Any]:
    inp = ExtendInput(paper_id=unit.paper_id, flaws=flaws, review=ReviewerText(reviewer_id=own[0], text=own[2]))
    return await asked_once(ctx, f"{PREFIX}/extend/{unit.venue}/{unit.paper_id}", ExtendStep(), inp,
                            lambda out: {"raised": [r.model_dump() for r in out.raised]})


async def human_side(ctx: RunContext, unit: WorkUnit, humans: list[Member]) -> FlawEvidence:
    """The panel's flaws, their evaluations and the humans' mappings onto the panel's bank."""
    cons = await consolidation(ctx, unit, humans, prefix=PREFIX)
    if "error" in cons:
        return FlawEvidence(error=cons["error"])
    flaws = [MicroFlaw.model_validate(f) for f in cons["micro_flaws"]]
    val = await validation(ctx, unit, flaws, prefix=PREFIX)
    if "error" in val:
        return FlawEvidence(error=val["error"])
    ev = FlawEvidence(micro_flaws=flaws, unknown=list(cons["unknown"]), evaluations=dict(val["evaluations"]))
    bank = ev.bank
    if bank:
        maps = await mapping(ctx, unit, batch_input(humans, bank, flaws))
        ev.map_errors = dict(maps["errors"])
        ev.mappings = {pid: {"mentions": m} for pid, m in maps["mentions"].items()}
    return ev


async def human_side_evidence(ctx: RunContext, unit: WorkUnit, members: list[Member]) -> FlawEvidence:
    """The unit's evidence: the human side, plus (in a pairing) the system review's own calls."""
    humans = [m for m in members if m[0] != LLM_ID]
    own = next((m for m in members if m[0] == LLM_ID), None)
    side = await human_side(ctx, unit, humans)
    if side.error is not None or own is None:
        return side
    ext = await _extend(ctx, unit, side.micro_flaws, own)
    if "error" in ext:
        return FlawEvidence(error=ext["error"])
    raised = [RaisedFlaw.model_validate(r) for r in ext["raised"]]
    flaws = pairing_flaws(side.micro_flaws, raised, LLM_ID)
    listed = {f.flaw_id for f in side.micro_flaws}
    new = [f for f in flaws if f.flaw_id not in listed]
    val = await validation(ctx, unit, new, prefix=PREFIX)  # none new: no call
    if "error" in val:
        return FlawEvidence(error=val["error"])
    ev = FlawEvidence(micro_flaws=flaws, unknown=side.unknown,
                      evaluations={**side.evaluations, **val["evaluations"]},
                      mappings=dict(side.mappings), map_errors=dict(side.map_errors))
    bank = ev.bank  # the pairing's: the panel's valid flaws and the review's new valid ones
    if bank:
        one = await single_mapping(ctx, unit, map_input(own[0], own[2], bank, flaws))
        if "error" in one:
            ev.map_errors[own[0]] = one["error"]
        else:
            ev.mappings[own[0]] = {"mentions": one["mentions"]}
    return ev
