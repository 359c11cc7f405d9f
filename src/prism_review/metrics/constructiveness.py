"""Constructiveness metrics (PRISM §7.3–7.4): pure functions over atomic review comments (ARCs).

An ARC is a dict with the five rubric scores ``D1_actionability`` … ``D5_tone`` (0/1/2) and a
``comment_type``. Per review:

* CLC = (D1 + D2 + D3 + D4 + D5) / 10 for one ARC;
* MCS = mean CLC; AR = share with D1 ≥ 1; SD = share with D4 == 2; CD = share with CLC ≥ 0.6;
* ``Dk_mean`` per dimension, and counts per comment type.

A review with no ARCs has every ratio and mean **null** (never 0) and zero counts. A score that
is not a number (including a numeric string such as ``"2"``) counts as 0, as in the reference.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: the five rubric dimensions, in order
DIMENSIONS: tuple[str, ...] = (
    "D1_actionability",
    "D2_specificity",
    "D3_justification",
    "D4_solution",
    "D5_tone",
)
#: the comment types the rubric allows (case-sensitive)
COMMENT_TYPES: tuple[str, ...] = ("weakness", "strength", "question", "suggestion", "observation")
#: count key per comment type
COUNT_KEYS: dict[str, str] = {
    "weakness": "n_weaknesses",
    "strength": "n_strengths",
    "question": "n_questions",
    "suggestion": "n_suggestions",
    "observation": "n_observations",
}
#: the per-review metrics that are null for an empty review (reference key names)
RATIO_KEYS: tuple[str, ...] = ("MCS", "AR", "SD", "CD") + tuple(f"{d}_mean" for d in DIMENSIONS)
CD_THRESHOLD = 0.6


def score_value(value: Any) -> float:
    """A rubric score as a number: ints, floats and bools count; anything else (str, None) is 0."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        v = float(value)
        return v if math.isfinite(v) else 0.0
    return 0.0


def compute_clc(arc: Mapping[str, Any]) -> float:
    """Comment-level constructiveness: the sum of the five scores divided by 10."""
    return sum(score_value(arc.get(d)) for d in DIMENSIONS) / 10


def _r(x: float, digits: int | None) -> float:
    return round(x, digits) if digits is not None else x


def compute_review_metrics(
    arcs: Sequence[Mapping[str, Any]], *, digits: int | None = None
) -> dict[str, float | int | None]:
    """MCS, AR, SD, CD, the Dk means and the type counts of one review (reference key names).

    ``digits=4`` rounds the ratios as the reference does; the default keeps full precision.
    """
    n = len(arcs)
    out: dict[str, float | int | None] = {}
    if n == 0:
        out.update({k: None for k in RATIO_KEYS})
    else:
        clcs = [compute_clc(a) for a in arcs]
        out["MCS"] = _r(sum(clcs) / n, digits)
        out["AR"] = _r(sum(score_value(a.get("D1_actionability")) >= 1 for a in arcs) / n, digits)
        out["SD"] = _r(sum(score_value(a.get("D4_solution")) == 2 for a in arcs) / n, digits)
        out["CD"] = _r(sum(c >= CD_THRESHOLD for c in clcs) / n, digits)
        for d in DIMENSIONS:
            out[f"{d}_mean"] = _r(sum(score_value(a.get(d)) for a in arcs) / n, digits)
    out["n_arcs"] = n
    for t, key in COUNT_KEYS.items():
        out[key] = sum(1 for a in arcs if a.get("comment_type") == t)
    return out


def _clamp_score(value: Any) -> int:
    v = score_value(value)
    # Python's round() is round-half-even (2.5 -> 2), as in the reference
    return max(0, min(2, int(round(v))))


def validate_arc(arc: Mapping[str, Any]) -> dict[str, Any]:
    """Normalise one ARC as the reference does.

    Scores: non-numbers → 0, otherwise round-half-even and clamp to [0, 2]. Missing or empty
    ``arc_id`` → ``ARC_00``; ``section`` → ``Unknown``; an unknown (case-sensitive)
    ``comment_type`` → ``observation``; missing ``content``/``anchor_quote`` → ``""``.
    Other fields are kept.
    """
    out = dict(arc)
    for d in DIMENSIONS:
        out[d] = _clamp_score(arc.get(d))
    out["arc_id"] = arc.get("arc_id") or "ARC_00"
    out["section"] = arc.get("section") or "Unknown"
    if arc.get("comment_type") not in COMMENT_TYPES:
        out["comment_type"] = "observation"
    out["content"] = arc.get("content") or ""
    out["anchor_quote"] = arc.get("anchor_quote") or ""
    return out


def validate_arcs(items: Iterable[Any]) -> list[dict[str, Any]]:
    """Validate every dict item (others are dropped) and renumber them ARC_01, ARC_02, …"""
    arcs = [validate_arc(a) for a in items if isinstance(a, Mapping)]
    for i, a in enumerate(arcs, start=1):
        a["arc_id"] = f"ARC_{i:02d}"
    return arcs


def arc_ratio_tokens(review_length: int) -> int:
    """The reference's reply estimate for one review (§7.2 "ratio budget", its "primary
    estimate"): ``int(max(5, L/350)·130·1.5)``, about one ARC per 350 characters at 130 output
    tokens per ARC, with a 1.5× safety margin."""
    return int(max(5.0, review_length / 350) * 130 * 1.5)


def adaptive_max_tokens(review_length: int, *, include_paper: bool = False) -> int:
    """The per-call output-token budget of §7.2 (risk K1: computed per call, never stored).

    max(table budget by review length, int(max(5, L/350)·130·1.5)); ×1.2 when a paper is
    included; clamped to [2500, 8000].
    """
    L = review_length
    if L < 3000:
        table = 3000
    elif L < 6000:
        table = 4500
    elif L < 10000:
        table = 6000
    elif L < 15000:
        table = 7000
    else:
        table = 8000
    budget = max(table, arc_ratio_tokens(L))
    if include_paper:
        budget = int(budget * 1.2)
    return max(2500, min(8000, budget))


def compute_paper_comparison(
    human_metrics_list: Sequence[Mapping[str, Any]],
    llm_metrics: Mapping[str, Any] | None,
    *,
    digits: int = 4,
) -> dict[str, Any]:
    """Human-average vs one LLM for one paper (§7.4).

    Valid humans are those with ``n_arcs > 0``; ``human_avg_<m>`` is their mean (a null metric
    inside a valid human counts as 0, as in the reference); ``delta_<m> = llm − human_avg``
    (null when either side is missing). ``comparison_valid`` needs ≥ 1 valid human and a
    valid LLM (``n_arcs > 0``).
    """
    valid = [h for h in human_metrics_list if (h.get("n_arcs") or 0) > 0]
    llm_valid = llm_metrics is not None and (llm_metrics.get("n_arcs") or 0) > 0
    out: dict[str, Any] = {
        "n_human_reviewers_total": len(human_metrics_list),
        "n_human_reviewers_valid": len(valid),
        "llm_valid": llm_valid,
        "comparison_valid": bool(valid) and llm_valid,
    }
    for m in RATIO_KEYS:
        h_avg = round(sum((h.get(m) or 0) for h in valid) / len(valid), digits) if valid else None
        llm_v = llm_metrics.get(m) if (llm_valid and llm_metrics is not None) else None
        out[f"human_avg_{m}"] = h_avg
        out[f"llm_{m}"] = llm_v
        out[f"delta_{m}"] = (
            round(llm_v - h_avg, digits) if llm_v is not None and h_avg is not None else None
        )
    out["n_arcs_llm"] = (llm_metrics.get("n_arcs") or 0) if llm_metrics is not None else 0
    out["n_arcs_human_avg"] = round(sum(h["n_arcs"] for h in valid) / len(valid), 1) if valid else 0
    return out
