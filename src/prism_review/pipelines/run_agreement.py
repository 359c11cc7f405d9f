"""Agreement of two runs of the same systems (two judges, or two protocols), per metric.

``prism compare --runs A B`` (this module's :func:`compare_runs`): for each dimension and metric,
over the reviews both runs scored (paired by :func:`~prism_review.pipelines.pairing.pair_reviews`,
the same review on the same dimension and, for flaws, in the same pairing):

* ``spearman`` and ``pearson``: per-review rank and linear correlation of A's and B's values
  (scipy; null when fewer than 3 reviews or a side is constant, where they are undefined);
* ``mean_diff`` (B − A) with its bootstrap 95% CI over reviews
  (:func:`~prism_review.metrics.stats.bootstrap_ci`, the resampling ``prism compare`` uses);
* ``rankings_preserved``: of the pairs of Table-1 groups (systems) with different values in
  run A, the share ordered the same way in run B, the group values being the Table-1 means over
  the papers both runs scored (:func:`~prism_review.pipelines.pairing.group_means_on_shared_papers`);
  null with fewer than two groups. A tie in B of a pair ordered in A counts as not preserved.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from prism_review.dimensions.base import Dimension, ResultRow
from prism_review.pipelines import pairing


def _corr(x: Sequence[float], y: Sequence[float]) -> tuple[float | None, float | None]:
    if len(x) < 3 or len(set(x)) < 2 or len(set(y)) < 2:
        return None, None
    from scipy import stats as sps

    s = float(sps.spearmanr(x, y).statistic)
    p = float(sps.pearsonr(x, y).statistic)
    return (round(s, 4) if math.isfinite(s) else None, round(p, 4) if math.isfinite(p) else None)


def rankings_preserved(groups: dict[str, tuple[float, float]]) -> dict[str, Any]:
    """Share of group pairs ordered in A that B orders the same way (see module docstring)."""
    pairs = preserved = 0
    flipped: list[str] = []
    for (ga, (a1, b1)), (gb, (a2, b2)) in itertools.combinations(sorted(groups.items()), 2):
        if a1 == a2:
            continue
        pairs += 1
        if (a1 - a2) * (b1 - b2) > 0:
            preserved += 1
        else:
            flipped.append(f"{ga} vs {gb}")
    return {"share": round(preserved / pairs, 4) if pairs else None, "pairs": pairs,
            "preserved": preserved, "not_preserved": flipped}


def metric_agreement(rows_a: Sequence[ResultRow], rows_b: Sequence[ResultRow], dim: Dimension | None,
                     metric: str, *, n_bootstrap: int = 10_000) -> dict[str, Any]:
    """The agreement figures of one metric (see the module docstring)."""
    from prism_review.metrics.stats import bootstrap_ci

    paired = pairing.pair_reviews(rows_a, rows_b, metric)
    xa = [a for _, a, _ in paired]
    xb = [b for _, _, b in paired]
    spearman, pearson = _corr(xa, xb)
    ci = bootstrap_ci(xb, xa, n_bootstrap=n_bootstrap) if paired else None
    groups = pairing.group_means_on_shared_papers(rows_a, rows_b, dim, metric)
    return {
        "n_reviews": len(paired),
        "mean_a": round(sum(xa) / len(xa), 4) if xa else None,
        "mean_b": round(sum(xb) / len(xb), 4) if xb else None,
        "spearman": spearman,
        "pearson": pearson,
        "mean_diff": ci["mean_diff"] if ci else None,
        "ci_lower": ci["ci_lower"] if ci else None,
        "ci_upper": ci["ci_upper"] if ci else None,
        "rankings_preserved": rankings_preserved(groups),
        "groups": {g: {"a": round(a, 4), "b": round(b, 4)} for g, (a, b) in groups.items()},
    }


def compare_runs(rows_a: Sequence[ResultRow], rows_b: Sequence[ResultRow], metric_keys: Any,
                 dimension_of: Any, *, n_bootstrap: int = 10_000) -> dict[str, Any]:
    """Per dimension present in both runs, per metric: :func:`metric_agreement`.

    ``metric_keys(dimension, ok_rows)`` gives a dimension's metrics and ``dimension_of(name)``
    its plug-in (or None)."""
    by_a: dict[str, list[ResultRow]] = defaultdict(list)
    by_b: dict[str, list[ResultRow]] = defaultdict(list)
    for r in rows_a:
        by_a[r.dimension].append(r)
    for r in rows_b:
        by_b[r.dimension].append(r)
    out: dict[str, Any] = {}
    for dim in sorted(by_a.keys() & by_b.keys()):
        ok = [r for r in (*by_a[dim], *by_b[dim]) if r.status == "ok"]
        keys = metric_keys(dim, ok)
        plug = dimension_of(dim)
        out[dim] = {
            "rows": {"a": len(by_a[dim]), "b": len(by_b[dim]),
                     "ok_a": sum(r.status == "ok" for r in by_a[dim]),
                     "ok_b": sum(r.status == "ok" for r in by_b[dim])},
            "metrics": {k: metric_agreement(by_a[dim], by_b[dim], plug, k, n_bootstrap=n_bootstrap)
                        for k in keys},
        }
    return out
