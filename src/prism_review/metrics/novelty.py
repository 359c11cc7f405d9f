"""Novelty metrics (prism-reference §5.5–5.6): pure functions, no model calls.

Per claim, the pair scores ``s_j`` ∈ {−2…2} of the claim against each candidate are folded into
one ``final_score`` by a policy (:func:`aggregate_scores`). Per review text, the claims' final
scores give NS, SR and SSR (:func:`review_metrics`); per system, the means over reviews with at
least one scored claim plus the claim rate (:func:`summarize`).

Compatibility (``compat=True``) reproduces the original where the spec flags a risk:

* N6 — a claim-less review gets NS 0.5 and SR = SSR = 0 and stays in the averages (REC: it is
  excluded from NS/SR/SSR and counted only in the claim rate);
* N3 — handled upstream: in compat mode the candidate pool drops ``relevance_score``, so
  ``top3_relevance`` falls to its no-relevance branch (mean of the 3 largest ``|s|``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

LABEL_SCORES: dict[str, int] = {
    "SUPPORTED": 2,
    "OVERSTATED": 1,
    "AMBIGUOUS": 0,
    "UNDERSTATED": -1,
    "UNSUPPORTED": -2,
}
SCORE_LABELS: dict[int, str] = {v: k for k, v in LABEL_SCORES.items()}
STANCES = ("not_novel", "somewhat_novel", "novel", "unclear")
POLICIES = ("top3_relevance", "max", "mean", "weighted")
#: a final score is rounded to this many decimals before the SR/SSR thresholds, so a weighted
#: mean that is 1 up to float error (0.9999999999999999) counts as 1
FINAL_SCORE_DIGITS = 9


def _num(x: Any) -> float | None:
    if x is None or isinstance(x, bool):
        return None
    if isinstance(x, int | float):
        return float(x) if math.isfinite(float(x)) else None
    if isinstance(x, str):
        try:
            v = float(x.strip())
        except ValueError:
            return None
        return v if math.isfinite(v) else None
    return None


def aggregate_scores(
    scores: Sequence[float],
    policy: str | None = "top3_relevance",
    relevance_scores: Sequence[float | None] | None = None,
    *,
    ndigits: int | None = FINAL_SCORE_DIGITS,
) -> tuple[float, list[int], list[float]]:
    """Fold one claim's pair scores into ``(final_score, ranked_indices, ranked_weights)``.

    The final score is rounded to ``ndigits`` decimals (None: unrounded, as the original).
    """
    final, idx, weights = _aggregate(scores, policy, relevance_scores)
    return (round(final, ndigits) if ndigits is not None else final), idx, weights


def _aggregate(
    scores: Sequence[float],
    policy: str | None,
    relevance_scores: Sequence[float | None] | None,
) -> tuple[float, list[int], list[float]]:
    """:func:`aggregate_scores` before rounding.

    Policies (case-insensitive; None or unknown → ``max``):

    * ``max``: the largest score; every index at the max, equal weights.
    * ``mean``: the plain mean; indices ranked by ``|s|`` (stable), equal weights.
    * ``weighted``: ``Σ s(1+|s|) / Σ(1+|s|)``; indices ranked by ``|s|`` (stable).
    * ``top3_relevance``: with any non-null relevance, the 3 pairs of highest relevance (null = 0,
      stable) weighted by relevance, or their plain mean when those weights sum to ≤ 0; with no
      relevance at all, the plain mean of the 3 largest ``|s|`` (stable) — the degenerate
      branch the original always took (risk N3).

    No scores → ``(0.0, [], [])``.
    """
    s = [float(x) for x in scores]
    n = len(s)
    if n == 0:
        return 0.0, [], []
    pol = (policy or "max").lower()
    by_abs = sorted(range(n), key=lambda i: -abs(s[i]))
    if pol == "mean":
        return sum(s) / n, by_abs, [1.0 / n] * n
    if pol == "weighted":
        w = [1.0 + abs(x) for x in s]
        tot = sum(w)
        return sum(x * wi for x, wi in zip(s, w, strict=True)) / tot, by_abs, [w[i] / tot for i in by_abs]
    if pol == "top3_relevance":
        rel = list(relevance_scores) if relevance_scores is not None else [None] * n
        rel = (rel + [None] * n)[:n]
        if any(r is not None for r in rel):
            r = [_num(x) or 0.0 for x in rel]
            top = sorted(range(n), key=lambda i: -r[i])[:3]
            tot = sum(r[i] for i in top)
            if tot <= 0:
                k = len(top)
                return sum(s[i] for i in top) / k, top, [1.0 / k] * k
            return sum(s[i] * r[i] for i in top) / tot, top, [r[i] / tot for i in top]
        top = by_abs[:3]
        k = len(top)
        return sum(s[i] for i in top) / k, top, [1.0 / k] * k
    best = max(s)
    idx = [i for i in range(n) if s[i] == best]
    return best, idx, [1.0 / len(idx)] * len(idx)


def best_evidence(
    results: Sequence[Mapping[str, Any]],
    ranked_indices: Sequence[int],
    ranked_weights: Sequence[float],
    max_ids: int = 3,
) -> tuple[list[str], list[dict[str, Any]]]:
    """Up to ``max_ids`` distinct candidate ids in ranked order, with their score and weight.

    The weight is taken by rank *position*; out-of-range indices and missing ids are skipped; a
    non-numeric score is omitted from the detail.
    """
    ids: list[str] = []
    details: list[dict[str, Any]] = []
    for pos, idx in enumerate(ranked_indices):
        if len(ids) >= max_ids:
            break
        if not 0 <= idx < len(results):
            continue
        rid = results[idx].get("related_paper_id")
        if not rid or rid in ids:
            continue
        ids.append(str(rid))
        detail: dict[str, Any] = {"related_paper_id": str(rid)}
        score = _num(results[idx].get("score"))
        if score is not None:
            detail["score"] = score
        if pos < len(ranked_weights):
            detail["weight"] = round(float(ranked_weights[pos]), 4)
        details.append(detail)
    return ids, details


def normalized_score(mean_score: float, ndigits: int | None = None) -> float:
    """NS = clip((m + 2) / 4, 0, 1), optionally rounded."""
    v = min(1.0, max(0.0, (mean_score + 2.0) / 4.0))
    return round(v, ndigits) if ndigits is not None else v


def support_rate(scores: Sequence[float], threshold: float, ndigits: int | None = None) -> float:
    """Share of scores ≥ ``threshold`` (SR: 1, SSR: 2); empty → 0.0."""
    if not scores:
        return 0.0
    v = sum(1 for x in scores if x >= threshold) / len(scores)
    return round(v, ndigits) if ndigits is not None else v


def verdict_label(final_score: float | None) -> str:
    """A claim's label from its final score, truncating toward zero (−1.5 → UNDERSTATED)."""
    if final_score is None:
        return "unknown"
    return SCORE_LABELS.get(int(final_score), "unknown")


def review_metrics(
    final_scores: Sequence[float | None],
    stances: Sequence[str] = (),
    *,
    compat: bool = False,
) -> dict[str, float | int | None]:
    """NS, SR, SSR and friends for one review text (paper × system).

    ``final_scores`` holds one entry per extracted claim; None marks a claim whose judging
    failed (unscored) — it is left out of the means. ``n_claims`` / ``has_claim`` count every
    extracted claim. With no scored claim, NS/SR/SSR are None (excluded from averages, N6);
    under ``compat`` they are 0.5 / 0 / 0 as in the original comparison script.
    """
    scored = [float(x) for x in final_scores if x is not None]
    n_claims = len(final_scores)
    out: dict[str, float | int | None] = {
        "n_claims": n_claims,
        "n_scored_claims": len(scored),
        "has_claim": 1 if n_claims > 0 else 0,
    }
    if scored:
        m = sum(scored) / len(scored)
        out.update(
            mean_score=m,
            max_score=max(scored),
            ns=normalized_score(m),
            sr=support_rate(scored, 1.0),
            ssr=support_rate(scored, 2.0),
        )
    elif compat:
        out.update(mean_score=0.0, max_score=0.0, ns=0.5, sr=0.0, ssr=0.0)
    else:
        out.update(mean_score=None, max_score=None, ns=None, sr=None, ssr=None)
    out.update(stance_shares(stances))
    return out


def stance_shares(stances: Sequence[str]) -> dict[str, float | None]:
    """``stance_<name>`` = share of claims with that stance (None when there are no claims)."""
    counts = Counter(s if s in STANCES else "unclear" for s in stances)
    n = len(stances)
    return {f"stance_{k}": (counts[k] / n if n else None) for k in STANCES}


def summarize(rows: Iterable[Mapping[str, float | int | None]]) -> dict[str, float | int | None]:
    """System-level means over per-review metric dicts: None values are skipped.

    ``claim_rate`` is the mean of ``has_claim`` over *all* reviews; ``ns``/``sr``/``ssr`` are
    means over the reviews that have a value (all reviews in compat mode, N6).
    """
    rows = list(rows)
    out: dict[str, float | int | None] = {"n_reviews": len(rows)}
    for key in ("ns", "sr", "ssr", "mean_score", "n_claims"):
        vals = [float(v) for r in rows if (v := r.get(key)) is not None]
        out[key] = sum(vals) / len(vals) if vals else None
        out[f"{key}_n"] = len(vals)
    has = [float(v) for r in rows if (v := r.get("has_claim")) is not None]
    out["claim_rate"] = sum(has) / len(has) if has else None
    return out


def recompute_from_pairs(
    pairs: Sequence[Mapping[str, Any]],
    relevance_by_id: Mapping[str, float | None],
    policy: str = "top3_relevance",
) -> list[float]:
    """Re-aggregate logged pair verdicts under another policy (the aggregation ablation).

    ``pairs`` are ``{review_sentence_id, related_paper_id, score}`` in judging order; pairs with
    a non-numeric score are skipped; claims keep their first-appearance order.
    """
    by_claim: dict[str, list[tuple[float, float | None]]] = {}
    for p in pairs:
        score = _num(p.get("score"))
        if score is None:
            continue
        cid = str(p.get("review_sentence_id"))
        by_claim.setdefault(cid, []).append(
            (score, relevance_by_id.get(str(p.get("related_paper_id"))))
        )
    finals = []
    for items in by_claim.values():
        final, _, _ = aggregate_scores([x for x, _ in items], policy, [r for _, r in items])
        finals.append(final)
    return finals
