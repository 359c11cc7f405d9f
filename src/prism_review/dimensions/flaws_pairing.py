"""The judge decisions one flaw unit's metrics are built from, asked per pairing (the reference).

:class:`FlawEvidence` is what the metrics need from the judge for one unit: its micro-flaws
(raw_arguments keyed by the unit's pool ids), their evaluations, and each reviewer's mapping
onto the unit's valid-issue bank. :func:`pairing_evidence` asks for it as the reference does
(``--protocol reference``, the offline judge, ``--compat``): ``flaws.consolidate`` over the
unit's pool, ``flaws.validate`` of its micro-flaws against the paper (the first
``flaws.paper_chars`` characters, default 45,000), then ``flaws.map`` per reviewer (skipped when
the bank is empty). :mod:`.flaws_human_side` (economical) and :mod:`.flaws_pieces` (pooled) build the same evidence from per-paper pieces.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from prism_review.dimensions.base import RunContext, WorkUnit
from prism_review.dimensions.flaws_panel import Member
from prism_review.judge.flaws.models import (
    DEFAULT_PAPER_CHARS,
    ConsolidateInput,
    Issue,
    MapInput,
    MicroFlaw,
    ReviewerText,
    ValidateInput,
)
from prism_review.judge.flaws.steps import ConsolidateStep, MapStep, ValidateStep
from prism_review.metrics.cps import build_issue_bank


@dataclass
class FlawEvidence:
    """The judge's decisions for one unit; ``error`` set when a step gave no usable reply."""

    micro_flaws: list[MicroFlaw] = field(default_factory=list)
    evaluations: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: raw_arguments keys that were not pool ids (they credit nobody)
    unknown: list[str] = field(default_factory=list)
    #: pool id → parsed mapping reply (``{"mentions": [...]}``); absent when the bank is empty
    mappings: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: pool id → why its mapping is unscored
    map_errors: dict[str, str] = field(default_factory=dict)
    error: str | None = None

    @property
    def flaw_dicts(self) -> list[dict[str, Any]]:
        return [f.model_dump() for f in self.micro_flaws]

    @property
    def bank(self) -> list[dict[str, str]]:
        return build_issue_bank(self.flaw_dicts, self.evaluations)


def paper_chars(ctx: RunContext) -> int:
    return int(ctx.setting("flaws.paper_chars", DEFAULT_PAPER_CHARS))


def known_keys(flaws: list[MicroFlaw], known: set[str]) -> tuple[list[MicroFlaw], list[str]]:
    """Drop raw_arguments keys that are not pool ids (they credit nobody); list them."""
    unknown: set[str] = set()
    out = []
    for f in flaws:
        args = {}
        for k, q in f.raw_arguments.items():
            if k in known:
                args[k] = q
            else:
                unknown.add(k)
        out.append(f.model_copy(update={"raw_arguments": args}))
    return out, sorted(unknown)


def map_input(pid: str, text: str, bank: list[dict[str, str]], flaws: list[MicroFlaw]) -> MapInput:
    """One reviewer's mapping request; ``hints`` (its own Step 1 quotes) serve the offline judge."""
    hints = {f.flaw_id: f.raw_arguments[pid] for f in flaws if f.raw_arguments.get(pid)}
    return MapInput(reviewer_id=pid, review_text=text, issues=[Issue(**b) for b in bank],  # type: ignore[arg-type]
                    hints=hints)


async def pairing_evidence(ctx: RunContext, unit: WorkUnit, members: list[Member]) -> FlawEvidence:
    """Consolidate, validate and map the unit's pool in the reference's three steps."""
    ids = [pid for pid, _, _ in members]
    cons = await ctx.run(ConsolidateStep(), ConsolidateInput(
        paper_id=unit.paper_id, reviews=[ReviewerText(reviewer_id=pid, text=t) for pid, _, t in members]))
    if not cons.ok or cons.output is None:
        return FlawEvidence(error=cons.error or "unscored")
    flaws, unknown = known_keys(cons.output.micro_flaws, set(ids))
    ev = FlawEvidence(micro_flaws=flaws, unknown=unknown)
    if flaws:
        val = await ctx.run(ValidateStep(), ValidateInput(
            paper_text=unit.paper.full_text, micro_flaws=flaws, max_paper_chars=paper_chars(ctx)))
        if not val.ok or val.output is None:
            return FlawEvidence(error=val.error or "unscored")
        ev.evaluations = {k: v.model_dump() for k, v in val.output.evaluations.items()}
    bank = ev.bank
    if bank:
        for pid, _, text in members:
            res = await ctx.run(MapStep(), map_input(pid, text, bank, flaws))
            if not res.ok or res.output is None:
                ev.map_errors[pid] = res.error or "unscored"
                continue
            ev.mappings[pid] = {"mentions": [m.model_dump() for m in res.output.mentions]}
    return ev
