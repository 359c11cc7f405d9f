"""Flaw-dimension aggregation over papers (spec §6.7) and a one-stop import of its metrics.

Per paper, each reviewer has CFI columns (recalls), CPS columns and the paper's ground-truth
counts. Over papers, every metric reports ``_mean``, ``_std`` (population, ddof 0) and ``_n``
(non-null count), all rounded to 4; nulls are skipped, never counted as 0, so papers without a
critical flaw do not move Critical_Recall. ``Human_avg`` is, per paper, the mean over that
paper's human reviewers of each non-null metric (rounded to 4), then averaged over papers.

The CFI and CPS formulas live in :mod:`prism_review.metrics.cfi` and
:mod:`prism_review.metrics.cps`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from prism_review.metrics.cfi import LLM_ID, cfi_report, normalize_reviewer_key
from prism_review.metrics.cps import build_issue_bank, paper_cps, score_review

__all__ = [
    "CFI_COLUMNS",
    "CPS_COLUMNS",
    "GT_COLUMNS",
    "aggregate_records",
    "build_issue_bank",
    "cfi_report",
    "mean_std_n",
    "normalize_reviewer_key",
    "paper_cps",
    "reviewer_values",
    "score_review",
]

#: output column → field of a CFI ranking row
CFI_COLUMNS = {
    "Minor_Recall": "Minor_Recall",
    "Critical_Recall": "Critical_Recall",
    "Minor_Recall_CW": "Minor_Recall_ConsensusWeighted",
    "Critical_Recall_CW": "Critical_Recall_ConsensusWeighted",
    "Total_Valid_Flaws_Found": "Total_Valid_Flaws_Found",
}
CPS_COLUMNS = {k: k for k in ("Raw_CPS", "ICPS", "nCPS", "CPS_norm", "Total_Arguments")}
#: output column → field of the CFI ground-truth summary
GT_COLUMNS = {
    "GT_Total_Valid_Flaws": "Total_Valid_Flaws",
    "GT_Critical_Flaws": "Total_Critical_Flaws",
    "GT_Minor_Flaws": "Total_Minor_Flaws",
    "GT_Minor_ConsensusWeight": "Total_Minor_ConsensusWeight",
}
ALL_COLUMNS = [*CFI_COLUMNS, *CPS_COLUMNS, *GT_COLUMNS]


def mean_std_n(values: Iterable[float | int | None]) -> tuple[float | None, float | None, int]:
    """Mean, population std (ddof 0) and count of the non-null values, rounded to 4."""
    xs = [float(v) for v in values if v is not None and not _isnan(v)]
    if not xs:
        return None, None, 0
    m = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs))
    return round(m, 4), round(sd, 4), len(xs)


def _isnan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)


def reviewer_values(record: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Per reviewer id, the metric columns of one per-paper record (missing → None)."""
    report = record.get("metrics_report") or {}
    cfi, cps = report.get("cfi"), report.get("cps")
    out: dict[str, dict[str, Any]] = {}

    def row(rid: str) -> dict[str, Any]:
        return out.setdefault(rid, dict.fromkeys(ALL_COLUMNS))

    gt = (cfi or {}).get("Ground_Truth_Summary") or {}
    for r in (cfi or {}).get("Reviewer_Rankings") or []:
        rid = r.get("Reviewer_ID")
        if rid:
            row(rid).update({k: r.get(src) for k, src in CFI_COLUMNS.items()})
    for r in (cps or {}).get("Reviewer_Rankings") or []:
        rid = r.get("Reviewer_ID")
        if rid:
            row(rid).update({k: r.get(src) for k, src in CPS_COLUMNS.items()})
    if cfi:
        for vals in out.values():
            vals.update({k: gt.get(src) for k, src in GT_COLUMNS.items()})
    return out


def _summary_row(head: dict[str, Any], per_paper: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    row = dict(head)
    row["n_papers"] = len(per_paper)
    for col in ALL_COLUMNS:
        m, s, n = mean_std_n(p.get(col) for p in per_paper)
        row[f"{col}_mean"], row[f"{col}_std"], row[f"{col}_n"] = m, s, n
    return row


def _human_avg(humans: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    avg: dict[str, Any] = {}
    for col in ALL_COLUMNS:
        xs = [h[col] for h in humans if h.get(col) is not None]
        avg[col] = round(sum(xs) / len(xs), 4) if xs else None
    return avg


def aggregate_records(
    records: Sequence[Mapping[str, Any]],
    *,
    conference: str = "",
    llm_type: str = "",
    paper_ids: Iterable[str] | None = None,
) -> list[dict[str, Any]]:
    """Rows for ``LLM_Reviewer``, each ``Human_k`` (string order) and ``Human_avg``."""
    keep = set(paper_ids) if paper_ids is not None else None
    by_reviewer: dict[str, list[dict[str, Any]]] = {}
    human_avg: list[dict[str, Any]] = []
    for rec in records:
        if keep is not None and rec.get("paper_id") not in keep:
            continue
        vals = reviewer_values(rec)
        for rid, v in vals.items():
            by_reviewer.setdefault(rid, []).append(v)
        humans = [v for rid, v in vals.items() if rid.startswith("Human_")]
        if humans:
            human_avg.append(_human_avg(humans))
    head = {"conference": conference, "llm_type": llm_type}
    rows = []
    if LLM_ID in by_reviewer:
        rows.append(
            _summary_row(
                {**head, "reviewer_id": LLM_ID, "reviewer_role": "LLM"}, by_reviewer[LLM_ID]
            )
        )
    for rid in sorted(r for r in by_reviewer if r.startswith("Human_")):
        rows.append(
            _summary_row({**head, "reviewer_id": rid, "reviewer_role": "Human"}, by_reviewer[rid])
        )
    if human_avg:
        rows.append(
            _summary_row(
                {**head, "reviewer_id": "Human_avg", "reviewer_role": "Human_avg"}, human_avg
            )
        )
    return rows
