"""The one definition of a multiple-comparison family, shared by ``prism compare`` and the report.

**One Holm family = one pair of systems × one dimension's comparison metrics.** For a pair
(A, B) and a dimension, the family is the dimension's ``compare_metrics`` when it names them, else
all its summary metrics, in that order, restricted to the metrics some ok row holds; each metric
is paired paper by paper (:mod:`prism_review.pipelines.pairing`), tested with Wilcoxon and
Holm-adjusted over the family (:func:`prism_review.metrics.stats.paired_analysis`). A family never
spans dimensions or pairs, so adding a system or a dimension to a run changes no adjusted p of
another pair, and the same pair gives the same adjusted p in ``prism compare`` and in the
report's "each system vs Human" table. ``prism compare --metric`` narrows the family to the named
metrics (its output says so): those p-values are then not the report's.

:func:`compare_pair` also applies the judge's card (:mod:`prism_review.report.judge_card`): a
metric the card calls not informative keeps its difference, CI and p but is never a finding (no
star, never "better").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from prism_review.dimensions.base import Dimension, ResultRow

#: a column of this card class is never a finding (no star, never "better")
NO_FINDING = "not_informative"


def is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def family_metrics(dim: Dimension | None, rows: Sequence[ResultRow], wanted: Sequence[str] | None = None) -> list[str]:
    """The metrics of one family: ``wanted`` (``--metric``) when given, else the dimension's
    ``compare_metrics`` (else its summary metrics), keeping those an ok row holds as a number;
    a dimension this install does not know tests every numeric key of its rows."""
    present: list[str] = []
    for r in rows:
        if r.status != "ok":
            continue
        for k, v in r.metrics.items():
            if is_number(v) and k not in present:
                present.append(k)
    if wanted:
        return [k for k in wanted if k in present]
    spec = list(getattr(dim, "compare_metrics", None) or [m.key for m in dim.metrics]) if dim else []
    ordered = [k for k in spec if k in present]
    return ordered or present


def compare_pair(
    rows: Sequence[ResultRow],
    dim: Dimension | None,
    a: str,
    b: str,
    *,
    metrics: Sequence[str] | None = None,
    classes: Mapping[str, str] | None = None,
    compat: bool = False,
    n_bootstrap: int = 10_000,
) -> dict[str, Any]:
    """One family's analysis: groups ``a`` vs ``b`` on one dimension's ``rows``.

    ``classes`` maps a metric to its card class; a ``not_informative`` metric's
    ``significant_after_correction`` is kept as ``significant_raw`` and set False, and it leaves
    the summary's better lists for ``no_finding``. Each metric records its ``card_class``.
    """
    from prism_review.metrics import stats
    from prism_review.pipelines import pairing

    keys = family_metrics(dim, rows, metrics)
    papers = pairing.paired_papers(list(rows), dim, keys, a, b)
    lower = {m.key for m in dim.metrics if not m.higher_is_better} if dim else set()
    res = stats.full_analysis(papers, keys, n_bootstrap=n_bootstrap, lower_is_better=lower)
    describe_untested(res, papers)
    res["groups_present"] = [g for g in (a, b) if any(
        r.status == "ok" and pairing.group_of(dim, r) == g for r in rows)]
    res["subgroups"] = stats.subgroup_analysis(papers, keys, compat=compat)
    res["metrics"] = keys
    res["family"] = {"pair": [a, b], "dimension": dim.name if dim else None, "metrics": keys,
                     "narrowed": bool(metrics)}
    gate(res, classes or {})
    return res


def describe_untested(res: dict[str, Any], papers: Sequence[Any]) -> None:
    """Metrics with too few pairs for a test still get their means (descriptive, no p)."""
    for m, r in res["per_metric"].items():
        pairs = [p.values[m] for p in papers if p.values.get(m) is not None
                 and None not in p.values[m]]
        if r.get("skipped") and pairs:
            ma = sum(float(x) for x, _ in pairs) / len(pairs)
            mb = sum(float(y) for _, y in pairs) / len(pairs)
            r.update(mean_a=round(ma, 4), mean_b=round(mb, 4), mean_diff=round(ma - mb, 4))


def gate(res: dict[str, Any], classes: Mapping[str, str]) -> None:
    """Record each metric's card class; no finding on a not-informative one."""
    no_finding: list[str] = []
    for m, r in res["per_metric"].items():
        cls = classes.get(m, "unmeasured")
        r["card_class"] = cls
        if cls == NO_FINDING and not r.get("skipped"):
            r["significant_raw"] = r["significant_after_correction"]
            r["significant_after_correction"] = False
            no_finding.append(m)
    s = res["summary"]
    for key in ("a_better", "b_better"):
        s[key] = [m for m in s[key] if m not in no_finding]
    s["no_difference"] = [m for m in s["no_difference"] if m not in no_finding]
    s["no_finding"] = no_finding
