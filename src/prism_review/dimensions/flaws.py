"""The Flaw Identification & Prioritization dimension (spec §6): ``prism evaluate -d flaws``.

Work units, one pipeline for every venue (risk F6: venues differ only in the human formatters
of :func:`prism_review.systems.text.review_text`):

* one unit per (paper, LLM system) pairing: the paper's human reviews (``Human_<k>``, k = the
  review's 1-based position, empty reviews dropped without renumbering) pooled with that
  system's review (``LLM_Reviewer``);
* one human-only unit per paper (risk F1): the humans alone, a bank not shaped by any LLM;
* a paper with no usable human review, under the setting ``flaws.reference`` =
  ``human_else_panel`` (the default): one unit per system, pooling that system's review
  (``LLM_Reviewer``) with the OTHER systems' reviews of the paper as the reference panel
  (``Panel_<k>``, k = 1-based position among the other systems sorted by id; matched exactly like
  ``Human_k``). The panel is every other system present in the data, whatever ``--system``
  selects, so a system's figures do not depend on which others are being evaluated. Only the
  evaluated system's row is written (each panel member has its own unit). Its rows say
  ``extracted["reference"] == "panel"`` and are summarised as ``<system>@panel``, never averaged
  with rows scored against humans. ``flaws.reference = "human"`` reproduces PRISM: such papers
  get one ``skipped`` row per system and no metrics.

Each unit runs ``flaws.consolidate`` → ``flaws.validate`` (the first ``flaws.paper_chars``
characters of the paper, default 45,000) → ``flaws.map`` per reviewer (skipped when the bank is
empty), then the pure metrics of :mod:`prism_review.metrics.cfi` / ``.cps``. One row per pooled
reviewer: ``system`` is ``human`` for humans (``pairing`` = the LLM system) and the system id for
the LLM; every row records ``extracted["reference"]`` (``human`` or ``panel``). Human's headline is the mean over pairings, per paper then over papers; the human-only
rows are summarised apart as ``human-only-bank``.
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
from prism_review.dimensions.settings import SettingSpec
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
from prism_review.metrics.cfi import LLM_ID, cfi_report, detected_flaws, human_id, panel_id
from prism_review.metrics.cps import add_cps_norm, build_issue_bank, score_review
from prism_review.records import Paper, Review
from prism_review.systems.text import review_text as text_policy
from prism_review.systems.text_policy import AllText, Sections, TextPolicy

HUMAN = "human"
HUMAN_ONLY_GROUP = "human-only-bank"
#: ``flaws.reference`` values: PRISM's human reference only, or the other systems as a fallback
REFERENCE_HUMAN = "human"
REFERENCE_HUMAN_ELSE_PANEL = "human_else_panel"
REFERENCE_OPTIONS = (REFERENCE_HUMAN, REFERENCE_HUMAN_ELSE_PANEL)
DEFAULT_REFERENCE = REFERENCE_HUMAN_ELSE_PANEL
#: summary-group suffix of rows scored against a panel of other systems
PANEL_GROUP_SUFFIX = "@panel"
#: NeurIPS 2025 human reviews' Strengths, read for flaws under this heading
NEURIPS_STRENGTHS_LABEL = "Strengths (may also contain weaknesses)"
_SWQL = ("summary", "weaknesses", "questions", "limitations")


def reference_setting(ctx: RunContext) -> str:
    """The run's ``flaws.reference`` setting (unknown values raise: never guess a reference)."""
    value = str(ctx.setting("flaws.reference", DEFAULT_REFERENCE))
    if value not in REFERENCE_OPTIONS:
        raise ValueError(
            f"flaws.reference must be one of {', '.join(REFERENCE_OPTIONS)}; got {value!r}"
        )
    return value


def review_text(review: Review, compat: bool) -> str:
    """The flaw-dimension text of a review (the per-dimension policy of :mod:`prism_review.systems.text`)."""
    return text_policy(review, "flaws", compat=compat)


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
                extra={"pairing": system, "reference": REFERENCE_HUMAN},
            )
        if HUMAN in systems:
            yield WorkUnit(
                key=f"{base}/human-only",
                venue=paper.venue,
                paper_id=paper.paper_id,
                system=HUMAN,
                paper=paper,
                reviews=list(humans),
                extra={"pairing": None, "reference": REFERENCE_HUMAN},
            )

    async def evaluate(self, unit: WorkUnit, ctx: RunContext) -> list[ResultRow]:
        compat = ctx.compat
        setting = reference_setting(ctx)
        reference = unit_reference(unit)
        members = pool(unit, compat)
        pairing = unit.extra.get("pairing")
        ids = [pid for pid, _, _ in members]
        ref_ids = [i for i in ids if i != LLM_ID]
        if reference == "panel" and setting == REFERENCE_HUMAN:
            return [self._skipped(unit, "no human review and flaws.reference = 'human'")]
        if not ref_ids:
            return [self._skipped(unit, f"no usable {reference} review to pool with")]
        if reference == "panel" and LLM_ID not in ids:
            return [self._skipped(unit, "the evaluated review has no flaw-dimension text")]
        written = {LLM_ID} if reference == "panel" else set(ids)
        cons_in = ConsolidateInput(
            paper_id=unit.paper_id,
            reviews=[ReviewerText(reviewer_id=pid, text=t) for pid, _, t in members],
        )
        cons = await ctx.run(ConsolidateStep(), cons_in)
        if not cons.ok:
            return self._unscored(unit, members, written, cons.error)
        assert cons.output is not None
        flaws, unknown = _known_keys(cons.output.micro_flaws, set(ids))
        evals: dict[str, dict[str, Any]] = {}
        if flaws:
            val_in = ValidateInput(
                paper_text=unit.paper.full_text,
                micro_flaws=flaws,
                max_paper_chars=int(ctx.setting("flaws.paper_chars", DEFAULT_PAPER_CHARS)),
            )
            val = await ctx.run(ValidateStep(), val_in)
            if not val.ok:
                return self._unscored(unit, members, written, val.error)
            assert val.output is not None
            evals = {k: v.model_dump() for k, v in val.output.evaluations.items()}
        flaw_dicts = [f.model_dump() for f in flaws]
        report = cfi_report(
            flaw_dicts,
            evals,
            len(ids),
            ref_ids,
            compat=compat,
            include_llm=LLM_ID in ids,
        )
        cfi_rows = {r["Reviewer_ID"]: r for r in report["Reviewer_Rankings"]}
        bank = build_issue_bank(flaw_dicts, evals)
        cps_rows, mentions, map_errors = await self._cps(ctx, members, bank, flaws, compat)
        shared = {
            "micro_flaws": flaw_dicts,
            "evaluations": evals,
            "issue_bank": bank,
            "ground_truth": report["Ground_Truth_Summary"],
            "unknown_reviewer_keys": unknown,
            "pool": ids,
            **reference_info(unit, members, setting),
        }
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
                "gt_valid": report["Ground_Truth_Summary"]["Total_Valid_Flaws"],
                "gt_critical": report["Ground_Truth_Summary"]["Total_Critical_Flaws"],
                "gt_minor": report["Ground_Truth_Summary"]["Total_Minor_Flaws"],
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
                    pairing=pairing,
                    metrics=metrics,
                    extracted={
                        "pool_id": pid,
                        "detected": det,
                        "mentions": mentions.get(pid),
                        "section_breakdown": p["Section_Breakdown"] if p else None,
                        "mapping_error": map_errors.get(pid),
                        **shared,
                    },
                )
            )
        return rows

    async def _cps(
        self,
        ctx: RunContext,
        members: list[tuple[str, Review, str]],
        bank: list[dict[str, str]],
        flaws: list[MicroFlaw],
        compat: bool,
    ) -> tuple[dict[str, dict[str, Any]], dict[str, Any], dict[str, str]]:
        """CPS rows (with CPS_norm over the reviewers mapped successfully), mentions, errors."""
        issues = [Issue(**b) for b in bank]  # type: ignore[arg-type]
        rows, mentions, errors = [], {}, {}
        for pid, _, text in members:
            mapping: dict[str, Any] = {"mentions": []}
            if bank:
                hints = {f.flaw_id: f.raw_arguments[pid] for f in flaws if f.raw_arguments.get(pid)}
                res = await ctx.run(
                    MapStep(),
                    MapInput(reviewer_id=pid, review_text=text, issues=issues, hints=hints),
                )
                if not res.ok or res.output is None:
                    errors[pid] = res.error or "unscored"
                    continue
                mapping = {"mentions": [m.model_dump() for m in res.output.mentions]}
            scored = score_review(pid, text, bank, mapping, compat=compat)
            mentions[pid] = scored["arguments"]
            rows.append(scored["metrics"])
        return {r["Reviewer_ID"]: r for r in add_cps_norm(rows)}, mentions, errors

    def _unscored(
        self,
        unit: WorkUnit,
        members: list[tuple[str, Review, str]],
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


def _known_keys(flaws: list[MicroFlaw], known: set[str]) -> tuple[list[MicroFlaw], list[str]]:
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


def panel_units(
    paper: Paper, reviews: dict[str, list[Review]], systems: list[str], base: str
) -> Iterable[WorkUnit]:
    """One panel unit per selected system with a review, when another system has one too.

    The panel is every other system of ``reviews`` (all systems present, not only the selected
    ones) with a non-empty review, sorted by system id; the evaluated review comes last.
    """
    present = sorted(s for s, rs in reviews.items() if s != HUMAN and rs and rs[0].text.strip())
    for system in systems:
        if system not in present:
            continue
        panel = [s for s in present if s != system]
        if not panel:
            continue
        yield WorkUnit(
            key=f"{base}/{system}/panel",
            venue=paper.venue,
            paper_id=paper.paper_id,
            system=system,
            paper=paper,
            reviews=[*(reviews[s][0] for s in panel), reviews[system][0]],
            extra={"pairing": None, "reference": "panel"},
        )


def unit_reference(unit: WorkUnit) -> str:
    """``human`` or ``panel``: what the unit's evaluated review is pooled with."""
    return "panel" if unit.extra.get("reference") == "panel" else REFERENCE_HUMAN


def reference_info(
    unit: WorkUnit, members: list[tuple[str, Review, str]], setting: str
) -> dict[str, Any]:
    """What a row records about its reference: kind, the run setting and the panel's systems."""
    info: dict[str, Any] = {"reference": unit_reference(unit), "reference_setting": setting}
    if info["reference"] == "panel":
        info["panel"] = {pid: r.system for pid, r, _ in members if pid != LLM_ID}
    return info


def pool(unit: WorkUnit, compat: bool) -> list[tuple[str, Review, str]]:
    """(pool id, review, text) for the unit's reviewers.

    Humans are ``Human_k`` and panel members ``Panel_k`` (k = 1-based position, kept when an
    empty review is dropped); the evaluated system's review is ``LLM_Reviewer``.
    """
    panel = unit_reference(unit) == "panel"
    out: list[tuple[str, Review, str]] = []
    k = 0
    for i, r in enumerate(unit.reviews):
        own = (i == len(unit.reviews) - 1) if panel else r.system != HUMAN
        if own:
            pid = LLM_ID
        else:
            k += 1
            pid = panel_id(k) if panel else human_id(k)
        text = review_text(r, compat)
        if text.strip():
            out.append((pid, r, text))
    return out


def reference_records(rows: Iterable[ResultRow]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The original per-paper record shape, per (venue, pairing), from flaws result rows.

    ``{(venue, llm system): [{paper_id, metrics_report: {cfi, cps}}]}`` with reviewer ids as in
    the pool (``Human_k``, ``LLM_Reviewer``), ready for
    :func:`prism_review.metrics.flaws.aggregate_records` (per-slot Human_k and Human_avg rows,
    the reference's per-(venue, LLM) tables). Human-only bank rows use the pairing ``human``.
    Panel-reference rows are left out: PRISM's tables compare systems with humans.
    """
    papers: dict[tuple[str, str, str], list[ResultRow]] = {}
    for r in rows:
        if r.dimension != "flaws" or r.status != "ok" or r.extracted.get("reference") == "panel":
            continue
        papers.setdefault((r.venue, r.pairing or HUMAN, r.paper_id), []).append(r)
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for (venue, pairing, pid), prow in papers.items():
        gt = prow[0].extracted.get("ground_truth") or {}
        cfi_rows, cps_rows = [], []
        for r in prow:
            m, rid = r.metrics, r.extracted.get("pool_id", r.reviewer_id)
            cfi_rows.append(
                {
                    "Reviewer_ID": rid,
                    "Critical_Recall": m.get("critical_recall"),
                    "Minor_Recall": m.get("minor_recall"),
                    "Critical_Recall_ConsensusWeighted": m.get("critical_recall_cw"),
                    "Minor_Recall_ConsensusWeighted": m.get("minor_recall_cw"),
                    "Total_Valid_Flaws_Found": m.get("n_valid_found"),
                }
            )
            if m.get("ncps") is not None:
                cps_rows.append(
                    {
                        "Reviewer_ID": rid,
                        "Raw_CPS": m.get("raw_cps"),
                        "ICPS": m.get("icps"),
                        "nCPS": m.get("ncps"),
                        "CPS_norm": m.get("cps_norm"),
                        "Total_Arguments": m.get("n_mentions"),
                    }
                )
        report = {
            "cfi": {"Ground_Truth_Summary": gt, "Reviewer_Rankings": cfi_rows},
            "cps": {"Reviewer_Rankings": cps_rows},
        }
        out.setdefault((venue, pairing), []).append({"paper_id": pid, "metrics_report": report})
    return out
