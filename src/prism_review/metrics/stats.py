"""Paired statistics for comparing two reviewer systems paper by paper (PRISM §7.5).

Used by every dimension's comparison (``prism compare``): for each metric, the per-paper values
of system A and system B are paired and tested with

* the **Wilcoxon signed-rank** test on the paired differences A − B (scipy defaults,
  two-sided; a ``ValueError`` gives statistic 0, p = 1);
* **Cliff's delta** between the two samples (treated as unpaired), with magnitude bands taken
  from the unrounded |δ| with strict ``<`` at 0.147 / 0.33 / 0.474;
* a **bootstrap 95% CI** of the mean paired difference (10,000 resamples,
  ``numpy.random.default_rng(42)``, one ``rng.integers(0, n, size=n)`` draw per resample, in
  sequence, then ``numpy.percentile`` 2.5 / 97.5), so the bounds match the reference vectors;
* **Holm–Bonferroni** across the tested metrics.

Metrics with fewer than 10 pairs are skipped. :func:`subgroup_analysis` gives the same means,
difference and Cliff's δ (no tests) per decision class and per rating tier.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np

MIN_PAIRS = 10
MIN_SUBGROUP_PAIRS = 5
ALPHA = 0.05


def cliffs_magnitude(delta: float) -> str:
    """negligible / small / medium / large from the unrounded |δ| (strict ``<`` bands)."""
    d = abs(delta)
    if d < 0.147:
        return "negligible"
    if d < 0.33:
        return "small"
    if d < 0.474:
        return "medium"
    return "large"


def cliffs_delta_raw(x: Sequence[float], y: Sequence[float]) -> float:
    """Unrounded δ = (#(x > y) − #(x < y)) / (n_x · n_y); 0 when either sample is empty."""
    xa = np.asarray(x, dtype=float)
    ya = np.sort(np.asarray(y, dtype=float))
    if xa.size == 0 or ya.size == 0:
        return 0.0
    # exact pair counts in O(n log n): y strictly below / strictly above each x
    below = np.searchsorted(ya, xa, side="left")
    above = ya.size - np.searchsorted(ya, xa, side="right")
    return float(int(below.sum()) - int(above.sum())) / (xa.size * ya.size)


def cliffs_delta(x: Sequence[float], y: Sequence[float]) -> tuple[float, str]:
    """Cliff's δ rounded to 4 decimals, with its magnitude band (from the unrounded value)."""
    d = cliffs_delta_raw(x, y)
    return round(d, 4), cliffs_magnitude(d)


def bootstrap_ci(
    x: Sequence[float],
    y: Sequence[float],
    n_bootstrap: int = 10_000,
    seed: int = 42,
) -> dict[str, float]:
    """Bootstrap 95% CI of mean(x − y) over paired resamples; values rounded to 4.

    Draw order follows the reference (one ``integers(0, n, size=n)`` call per resample) so the
    bounds reproduce it exactly. An empty input gives zeros.
    """
    diff = np.asarray(x, dtype=float) - np.asarray(y, dtype=float)
    n = diff.size
    if n == 0:
        return {"mean_diff": 0.0, "ci_lower": 0.0, "ci_upper": 0.0}
    rng = np.random.default_rng(seed)
    means = np.empty(n_bootstrap)
    for i in range(n_bootstrap):
        means[i] = diff[rng.integers(0, n, size=n)].mean()
    lo, hi = np.percentile(means, [2.5, 97.5])
    return {
        "mean_diff": round(float(diff.mean()), 4),
        "ci_lower": round(float(lo), 4),
        "ci_upper": round(float(hi), 4),
    }


def wilcoxon(diffs: Sequence[float]) -> tuple[float, float]:
    """Two-sided Wilcoxon signed-rank on the paired differences (scipy defaults).

    ``ValueError`` (older scipy on all-zero differences) or a NaN p-value gives (0.0, 1.0).
    """
    from scipy.stats import wilcoxon as _wilcoxon

    try:
        with warnings.catch_warnings():  # scipy warns (0/0) on all-zero differences
            warnings.simplefilter("ignore", RuntimeWarning)
            res = _wilcoxon(np.asarray(diffs, dtype=float), alternative="two-sided")
    except ValueError:
        return 0.0, 1.0
    stat, p = float(res.statistic), float(res.pvalue)
    if math.isnan(p):
        return 0.0, 1.0
    return stat, p


def holm_bonferroni(p_values: Sequence[tuple[str, float]], alpha: float = ALPHA) -> list[dict]:
    """Holm–Bonferroni as in the reference.

    Sort by raw p ascending (stable); ``adj_r = min(p_r · (m − r), 1)`` with r 0-based; round
    to 6; force the rounded values to be non-decreasing; significant iff adjusted p < alpha.
    """
    m = len(p_values)
    ordered = sorted(p_values, key=lambda t: t[1])
    out: list[dict] = []
    prev = 0.0
    for r, (name, p) in enumerate(ordered):
        adj = round(min(p * (m - r), 1.0), 6)
        adj = max(adj, prev)
        prev = adj
        out.append(
            {"test_name": name, "raw_p": round(p, 6), "adjusted_p": adj, "significant": adj < alpha}
        )
    return out


Pairs = Sequence[tuple[float, float]]


def _mean(v: Sequence[float]) -> float:
    return float(np.mean(np.asarray(v, dtype=float)))


def paired_analysis(
    pairs_by_metric: Mapping[str, Pairs],
    *,
    min_pairs: int = MIN_PAIRS,
    n_bootstrap: int = 10_000,
    seed: int = 42,
    lower_is_better: Collection[str] = (),
) -> dict[str, Any]:
    """The full per-metric comparison of system A vs B (pairs are (a, b) per paper).

    The summary's ``a_better``/``b_better`` read a significant difference in the metric's own
    direction: for the metrics in ``lower_is_better`` (e.g. the hallucination rate) the system
    with the *smaller* mean is the better one.

    Returns ``{"per_metric": {m: {...}}, "holm": [...], "summary": {...}}``. Each tested metric
    has ``n_valid_pairs, mean_a, mean_b, mean_diff, wilcoxon_statistic, wilcoxon_p,
    cliffs_delta, cliffs_delta_magnitude, bootstrap_95ci, adjusted_p,
    significant_after_correction``; one with fewer than ``min_pairs`` pairs is skipped.
    """
    per: dict[str, dict[str, Any]] = {}
    pvals: list[tuple[str, float]] = []
    for m, pairs in pairs_by_metric.items():
        a = [p[0] for p in pairs]
        b = [p[1] for p in pairs]
        n = len(pairs)
        if n < min_pairs:
            per[m] = {
                "n_valid_pairs": n,
                "skipped": True,
                "reason": f"insufficient pairs (< {min_pairs})",
            }
            continue
        mean_a, mean_b = _mean(a), _mean(b)
        stat, p = wilcoxon([ai - bi for ai, bi in zip(a, b, strict=True)])
        delta, mag = cliffs_delta(a, b)
        per[m] = {
            "n_valid_pairs": n,
            "mean_a": round(mean_a, 4),
            "mean_b": round(mean_b, 4),
            "mean_diff": round(mean_a - mean_b, 4),
            "wilcoxon_statistic": stat,
            "wilcoxon_p": round(p, 6),
            "cliffs_delta": delta,
            "cliffs_delta_magnitude": mag,
            "bootstrap_95ci": bootstrap_ci(a, b, n_bootstrap=n_bootstrap, seed=seed),
        }
        pvals.append((m, p))
    holm = holm_bonferroni(pvals)
    for h in holm:
        per[h["test_name"]]["adjusted_p"] = h["adjusted_p"]
        per[h["test_name"]]["significant_after_correction"] = h["significant"]
    summary: dict[str, list[str]] = {"a_better": [], "b_better": [], "no_difference": []}
    for m, r in per.items():
        if r.get("skipped"):
            continue
        diff = -r["mean_diff"] if m in lower_is_better else r["mean_diff"]
        if r["significant_after_correction"] and diff > 0:
            summary["a_better"].append(m)
        elif r["significant_after_correction"] and diff < 0:
            summary["b_better"].append(m)
        else:
            summary["no_difference"].append(m)
    return {"per_metric": per, "holm": holm, "summary": summary}


def describe_subgroup(pairs_by_metric: Mapping[str, Pairs], n_papers: int) -> dict[str, Any]:
    """Means, difference and Cliff's δ per metric for one subgroup (no tests; ≥ 5 pairs)."""
    out: dict[str, Any] = {"n_papers": n_papers}
    for m, pairs in pairs_by_metric.items():
        if len(pairs) < MIN_SUBGROUP_PAIRS:
            out[m] = {"skipped": True}
            continue
        a = [p[0] for p in pairs]
        b = [p[1] for p in pairs]
        mean_a, mean_b = _mean(a), _mean(b)
        delta, mag = cliffs_delta(a, b)
        out[m] = {
            "mean_a": round(mean_a, 4),
            "mean_b": round(mean_b, 4),
            "diff": round(mean_a - mean_b, 4),
            "cliffs_delta": delta,
            "magnitude": mag,
        }
    return out


def is_accept(decision: Any) -> bool:
    """Reference rule: accept iff "accept" is a substring of the lower-cased decision."""
    return "accept" in str(decision or "").lower()


def rating_tiers(ratings: Sequence[float | None], *, compat: bool = False) -> list[str | None]:
    """Assign ``top_25`` / ``middle_50`` / ``bottom_25`` per paper from its average rating.

    q25 = sorted[n//4], q75 = sorted[3n//4] over the non-null ratings; bottom ≤ q25,
    top ≥ q75, middle strictly between. A null rating gets no tier (None) by default; with
    ``compat=True`` it counts as 0 (risk K3), which puts it in the bottom tier.
    """
    known = sorted(float(r) for r in ratings if r is not None)
    if not known:
        return [None] * len(ratings)
    q25 = known[len(known) // 4]
    q75 = known[3 * len(known) // 4]
    tiers: list[str | None] = []
    for r in ratings:
        if r is None and not compat:
            tiers.append(None)
            continue
        v = float(r) if r is not None else 0.0
        tiers.append("top_25" if v >= q75 else "bottom_25" if v <= q25 else "middle_50")
    return tiers


class PairedPaper:
    """One paper's paired values: ``values[m] = (a, b)`` (None when either side is missing)."""

    def __init__(
        self,
        values: Mapping[str, tuple[float, float] | None],
        decision: Any = None,
        avg_rating: float | None = None,
    ) -> None:
        self.values = dict(values)
        self.decision = decision
        self.avg_rating = avg_rating


def _pairs(
    papers: Sequence[PairedPaper], metrics: Sequence[str]
) -> dict[str, list[tuple[float, float]]]:
    out: dict[str, list[tuple[float, float]]] = {m: [] for m in metrics}
    for p in papers:
        for m in metrics:
            v = p.values.get(m)
            if v is not None and v[0] is not None and v[1] is not None:
                out[m].append((float(v[0]), float(v[1])))
    return out


def full_analysis(
    papers: Sequence[PairedPaper], metrics: Sequence[str], **kw: Any
) -> dict[str, Any]:
    """:func:`paired_analysis` over papers (a pair is dropped per metric when a side is null)."""
    res = paired_analysis(_pairs(papers, metrics), **kw)
    res["n_papers"] = len(papers)
    return res


def subgroup_analysis(
    papers: Sequence[PairedPaper], metrics: Sequence[str], *, compat: bool = False
) -> dict[str, Any]:
    """Subgroup views: ``by_decision`` (accept / reject) and ``by_quality_tier``.

    ``by_decision`` appears only when both classes have papers; ``by_quality_tier`` only when
    some paper has a rating. Null ratings are left out of the tiers, and missing decisions out of
    the decision split, unless ``compat`` (K3; the reference counts them as 0 / reject).
    """
    out: dict[str, Any] = {}
    acc = [p for p in papers if is_accept(p.decision)]
    # the reference counts a missing decision as reject; by default it is left out
    rej = [p for p in papers if not is_accept(p.decision) and (compat or p.decision is not None)]
    if acc and rej:
        out["by_decision"] = {
            "accept": describe_subgroup(_pairs(acc, metrics), len(acc)),
            "reject": describe_subgroup(_pairs(rej, metrics), len(rej)),
        }
    tiers = rating_tiers([p.avg_rating for p in papers], compat=compat)
    if any(t is not None for t in tiers):
        out["by_quality_tier"] = {}
        for name in ("top_25", "middle_50", "bottom_25"):
            group = [p for p, t in zip(papers, tiers, strict=True) if t == name]
            out["by_quality_tier"][name] = describe_subgroup(_pairs(group, metrics), len(group))
    return out
