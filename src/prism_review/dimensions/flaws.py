"""The Flaw Identification & Prioritization dimension (spec §6): ``prism evaluate -d flaws``.

Work units, one pipeline for every venue (risk F6: venues differ only in the human formatters
of :func:`prism_review.dimensions.review_text.review_text`):

* one unit per (paper, LLM system) pairing: the paper's human reviews (``Human_<k>``) pooled
  with that system's review (``LLM_Reviewer``);
* one human-only unit per paper (risk F1): the humans alone, a bank not shaped by any LLM;
* a paper with no usable human review: the panel-reference units of :mod:`.flaws_panel`
  (``flaws.reference``), summarised as ``<system>@panel``.

The judge's decisions for a unit (:class:`~.flaws_pairing.FlawEvidence`) come from
:func:`~.flaws_pairing.pairing_evidence` (consolidate → validate → map per unit, the reference
pattern; also the panel units under ``economical``), under ``--protocol economical`` with an LLM
judge from the human side built once per paper plus the pairing's own review
(:func:`~.flaws_human_side.human_side_evidence`, selection-invariant), or under ``--protocol
pooled`` from the pieces of all the paper's reviews (:func:`~.flaws_pieces.paper_evidence`);
either way the pure metrics of
:mod:`prism_review.metrics.cfi` / ``.cps`` are computed here. One row per pooled reviewer:
``system`` is ``human`` for humans (``pairing`` = the LLM system) and the system id for the LLM;
every row records ``extracted["reference"]`` (``human`` or ``panel``). Human's headline is the
mean over pairings, per paper then over papers; the human-only rows are summarised apart as
``human-only-bank``.
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
from prism_review.dimensions.flaws_human_side import human_side_evidence
from prism_review.dimensions.flaws_pairing import FlawEvidence, pairing_evidence
from prism_review.dimensions.flaws_panel import (
    DEFAULT_REFERENCE,
    HUMAN,
    PANEL_GROUP_SUFFIX,
    REFERENCE_HUMAN,
    REFERENCE_OPTIONS,
    Member,
    panel_units,
    paper_reviews,
    pool,
    reference_info,
    reference_setting,
    review_text,
    unit_reference,
)
from prism_review.dimensions.flaws_pieces import paper_evidence
from prism_review.dimensions.protocol import is_economical, is_pooled
from prism_review.dimensions.settings import SettingSpec
from prism_review.judge.flaws.models import DEFAULT_PAPER_CHARS
from prism_review.metrics.cfi import LLM_ID, cfi_report, detected_flaws
from prism_review.metrics.cps import add_cps_norm, score_review
from prism_review.records import Paper, Review
from prism_review.systems.text_policy import AllText, Sections, TextPolicy

HUMAN_ONLY_GROUP = "human-only-bank"
__all__ = ["FlawsDimension", "HUMAN", "HUMAN_ONLY_GROUP", "PANEL_GROUP_SUFFIX", "panel_units",
           "pool", "review_text"]

#: NeurIPS 2025 human reviews' Strengths, read for flaws under this heading
NEURIPS_STRENGTHS_LABEL = "Strengths (may also contain weaknesses)"
_SWQL = ("summary", "weaknesses", "questions", "limitations")


@register
class FlawsDimension(Dimension):
    """Consensus flaws, severity recalls, hallucination rate and critique prioritisation."""

    name: ClassVar[str] = "flaws"
    label: ClassVar[str] = "Flaw Identification & Prioritization"
    order: ClassVar[int] = 30
    table1_note: ClassVar[str] = (
        "Critical / Minor recall, nCPS = flaws found among the consensus flaws, and how "
        "well they are prioritised"
    )
    #: where a review states flaws: summary, weaknesses, questions, limitations when
    #: substantive; per venue for humans (ICML: every rubric field; NeurIPS: the strengths
    #: too, as its reviewers put weaknesses there)
    text_policy: ClassVar[TextPolicy] = TextPolicy(
        llm=Sections(_SWQL, combined_fallback=True),
        human=Sections(_SWQL, combined_fallback=True),
        human_venues={
            "ICML2025": AllText(),
            "ICLR2024": Sections(("summary", "weaknesses", "questions"), combined_fallback=True),
            "NeurIPS2025": Sections(
                ("summary", "strengths", "weaknesses", "questions", "limitations"),
                labels={"strengths": NEURIPS_STRENGTHS_LABEL},
            ),
        },
        original=True,
    )
    metrics: ClassVar[list[MetricSpec]] = [
        MetricSpec(key="critical_recall", label="Critical recall", headline=True),
        MetricSpec(key="minor_recall", label="Minor recall", headline=True),
        MetricSpec(key="ncps", label="nCPS", headline=True),
        MetricSpec(key="hallucination_rate", label="Hallucination rate", higher_is_better=False),
        MetricSpec(key="critical_recall_cw", label="Critical recall (CW)"),
        MetricSpec(key="minor_recall_cw", label="Minor recall (CW)"),
        MetricSpec(key="cps_norm", label="CPS_norm"),
        MetricSpec(key="no_valid_flaw", label="No valid flaw (share)", higher_is_better=False),
    ]
    #: also in each row: the counts and raw scores the columns are built from
    row_metrics: ClassVar[tuple[str, ...]] = (
        "n_detected_critical", "n_detected_minor", "n_valid_found", "n_detected", "gt_valid",
        "gt_critical", "gt_minor", "raw_cps", "icps", "n_mentions",
    )
    human_aggregation: ClassVar[str] = "mean_over_pairings"
    setting_specs: ClassVar[tuple[SettingSpec, ...]] = (
        SettingSpec("flaws.reference", "what a review is pooled with", choices=REFERENCE_OPTIONS),
        SettingSpec("flaws.paper_chars", "paper characters shown to flaws.validate", kind=int, minimum=1),
    )

    def describe(self) -> dict[str, Any]:
        return {
            "human_aggregation": self.human_aggregation,
            "human_aggregation_note": (
                "Human rows of every (paper, LLM) pairing: per paper the mean over all pairings' "
                "human rows, then over papers. Human-only bank rows are summarised apart as "
                f"'{HUMAN_ONLY_GROUP}' (risk F1)."
            ),
            "paper_chars_default": DEFAULT_PAPER_CHARS,
            "reviewer_keys": "exact after normalisation (risk F3); compat: substring",
            "reference_setting": "flaws.reference",
            "reference_default": DEFAULT_REFERENCE,
            "reference_options": list(REFERENCE_OPTIONS),
            "reference_note": (
                "human: only papers with human reviews are scored (PRISM). human_else_panel: a "
                "paper without a usable human review pools each system's review with the other "
                "systems' reviews (Panel_k); only that system's row is written, marked "
                "extracted.reference = 'panel' and summarised as '<system>@panel'."
            ),
        }

    def summary_notes(self, rows: list[ResultRow]) -> list[str]:
        """Per summary group, ``n_no_valid_flaw``: rows whose review mentions no valid flaw."""
        counts: dict[str, list[int]] = {}
        for r in rows:
            group = self.summary_system(r)
            if r.status != "ok" or group is None or r.metrics.get("no_valid_flaw") is None:
                continue
            c = counts.setdefault(group, [0, 0, 0])
            c[0] += int(r.metrics["no_valid_flaw"] or 0)
            c[1] += 1
            c[2] += r.mode == "compat"
        notes = []
        for group, (n, total, compat_rows) in sorted(counts.items()):
            if not n:
                continue
            effect = ("nCPS counted as 0 (--compat)" if compat_rows == total
                      else "nCPS null, left out of its mean")
            notes.append(f"flaws · {group}: n_no_valid_flaw = {n} of {total} row(s) mention no "
                         f"valid flaw (iCPS = 0): {effect}")
        return notes

    def summary_system(self, row: ResultRow) -> str | None:
        """Human-only bank rows and panel-reference rows form their own summary groups."""
        if row.system == HUMAN and row.pairing is None:
            return HUMAN_ONLY_GROUP
        if row.extracted.get("reference") == "panel":
            return row.system + PANEL_GROUP_SUFFIX
        return row.system

    def work_units(
        self, paper: Paper, reviews: dict[str, list[Review]], systems: list[str]
    ) -> Iterable[WorkUnit]:
        humans = list(reviews.get(HUMAN, []))
        base = f"{paper.venue}/{paper.paper_id}/flaws"
        if not any(r.text.strip() for r in humans):
            # no usable human review: panel units (evaluate() skips them under "human")
            yield from panel_units(paper, reviews, systems, base)
            return
        everyone = paper_reviews(reviews)  # the economical protocol's per-paper pool
        for system in systems:
            if system == HUMAN or not reviews.get(system):
                continue
            yield WorkUnit(
                key=f"{base}/{system}",
                venue=paper.venue,
                paper_id=paper.paper_id,
                system=system,
                paper=paper,
                reviews=[*humans, reviews[system][0]],
                extra={"pairing": system, "reference": REFERENCE_HUMAN, "paper_reviews": everyone},
            )
        if HUMAN in systems:
            yield WorkUnit(
                key=f"{base}/human-only",
                venue=paper.venue,
                paper_id=paper.paper_id,
                system=HUMAN,
                paper=paper,
                reviews=list(humans),
                extra={"pairing": None, "reference": REFERENCE_HUMAN, "paper_reviews": everyone},
            )

    async def evaluate(self, unit: WorkUnit, ctx: RunContext) -> list[ResultRow]:
        compat = ctx.compat
        setting = reference_setting(ctx)
        reference = unit_reference(unit)
        members = pool(unit, compat)
        ids = [pid for pid, _, _ in members]
        if reference == "panel" and setting == REFERENCE_HUMAN:
            return [self._skipped(unit, "no human review and flaws.reference = 'human'")]
        if not [i for i in ids if i != LLM_ID]:
            return [self._skipped(unit, f"no usable {reference} review to pool with")]
        if reference == "panel" and LLM_ID not in ids:
            return [self._skipped(unit, "the evaluated review has no flaw-dimension text")]
        written = {LLM_ID} if reference == "panel" else set(ids)
        # economical: the human side once per paper, one call pattern per pairing's review;
        # pooled: the paper's pieces over all its reviews; else the reference's per-unit steps
        pieces = None
        if is_pooled(ctx) and "paper_reviews" in unit.extra:
            pieces, how = "paper", paper_evidence
        elif is_economical(ctx) and reference == REFERENCE_HUMAN:
            pieces, how = "human-side", human_side_evidence
        else:
            how = pairing_evidence
        ev = await how(ctx, unit, members)
        if ev.error is not None:
            return self._unscored(unit, members, written, ev.error)
        shared = {**reference_info(unit, members, setting), **({"pieces": pieces} if pieces else {})}
        return self._rows(unit, members, written, ev, shared, compat)

    def _rows(self, unit: WorkUnit, members: list[Member], written: set[str], ev: FlawEvidence,
              shared: dict[str, Any], compat: bool) -> list[ResultRow]:
        """One row per written reviewer: CFI from the micro-flaws, CPS from the mappings."""
        ids = [pid for pid, _, _ in members]
        flaw_dicts, bank = ev.flaw_dicts, ev.bank
        report = cfi_report(flaw_dicts, ev.evaluations, len(ids), [i for i in ids if i != LLM_ID],
                            compat=compat, include_llm=LLM_ID in ids)
        cfi_rows = {r["Reviewer_ID"]: r for r in report["Reviewer_Rankings"]}
        scored = {pid: score_review(pid, text, bank, ev.mappings.get(pid, {"mentions": []}), compat=compat)
                  for pid, _, text in members if pid not in ev.map_errors}
        cps_rows = {r["Reviewer_ID"]: r for r in add_cps_norm([s["metrics"] for s in scored.values()])}
        gt = report["Ground_Truth_Summary"]
        shared = {"micro_flaws": flaw_dicts, "evaluations": ev.evaluations, "issue_bank": bank,
                  "ground_truth": gt, "unknown_reviewer_keys": ev.unknown, "pool": ids, **shared}
        rows = []
        for pid, review, _ in members:
            if pid not in written:
                continue
            c, p = cfi_rows[pid], cps_rows.get(pid)
            det = sorted(detected_flaws(flaw_dicts, pid, compat=compat))
            metrics: dict[str, float | int | None] = {
                "critical_recall": c["Critical_Recall"],
                "minor_recall": c["Minor_Recall"],
                "critical_recall_cw": c["Critical_Recall_ConsensusWeighted"],
                "minor_recall_cw": c["Minor_Recall_ConsensusWeighted"],
                "hallucination_rate": c["Hallucination_Rate"],
                "n_detected_critical": c["Detected_Critical_Flaws"],
                "n_detected_minor": c["Detected_Minor_Flaws"],
                "n_valid_found": c["Total_Valid_Flaws_Found"],
                "n_detected": len(det),
                "gt_valid": gt["Total_Valid_Flaws"],
                "gt_critical": gt["Total_Critical_Flaws"],
                "gt_minor": gt["Total_Minor_Flaws"],
                "ncps": p["nCPS"] if p else None,
                "raw_cps": p["Raw_CPS"] if p else None,
                "icps": p["ICPS"] if p else None,
                "cps_norm": p["CPS_norm"] if p else None,
                "n_mentions": p["Total_Arguments"] if p else None,
                # iCPS 0: the review mentions no valid flaw, so nCPS has no ordering to judge
                "no_valid_flaw": (1 if p["ICPS"] == 0 else 0) if p else None,
            }
            rows.append(
                self.new_row(
                    unit,
                    review.reviewer_id,
                    system=HUMAN if pid != LLM_ID else review.system,
                    pairing=unit.extra.get("pairing"),
                    metrics=metrics,
                    extracted={
                        "pool_id": pid,
                        "detected": det,
                        "mentions": scored[pid]["arguments"] if pid in scored else None,
                        "section_breakdown": p["Section_Breakdown"] if p else None,
                        "mapping_error": ev.map_errors.get(pid),
                        **shared,
                    },
                )
            )
        return rows

    def _unscored(
        self,
        unit: WorkUnit,
        members: list[Member],
        written: set[str],
        error: str | None,
    ) -> list[ResultRow]:
        """The unit's rows when a step the metrics need gave no usable reply: unscored, null."""
        return [
            self.new_row(
                unit,
                review.reviewer_id,
                system=HUMAN if pid != LLM_ID else review.system,
                pairing=unit.extra.get("pairing"),
                status="unscored",
                error=error,
                extracted={"pool_id": pid, "reference": unit_reference(unit)},
            )
            for pid, review, _ in members
            if pid in written
        ]

    def _skipped(self, unit: WorkUnit, reason: str) -> ResultRow:
        """One ``skipped`` row for the evaluated system (a unit always writes a row)."""
        own = unit.reviews[-1] if unit.reviews else None
        return self.new_row(
            unit,
            own.reviewer_id if own is not None else unit.system,
            pairing=unit.extra.get("pairing"),
            status="skipped",
            error=reason,
            extracted={"reference": unit_reference(unit)},
        )
