"""Paper-level pairing of two summary groups' values for one metric.

This is the one place that decides which value system A and system B have for a paper, used by
``prism compare``, the HTML report's comparison table and the statistics tests:

- rows are grouped exactly as Table 1 groups them, by :meth:`Dimension.summary_system`: for
  flaws the human-only bank (``human-only-bank``) and panel-reference rows (``<System>@panel``)
  are groups of their own, never pooled into ``Human`` or the system;
- a group's value for a paper is the mean of its ok rows' non-null values for that paper
  (:func:`~prism_review.pipelines.summary.per_paper_values`, the same numbers Table 1 averages);
- a paper is paired when both groups have a value.

Groups are named as Table 1 names them (:func:`group_name`); :func:`resolve` turns a name a user
typed (case-insensitive) into its group and says which names exist, closest first, otherwise.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from prism_review.dimensions.base import Dimension, ResultRow
from prism_review.pipelines.summary import per_paper_values, system_label, system_order

if TYPE_CHECKING:
    from prism_review.metrics.stats import PairedPaper

Paper = tuple[str, str]  # (venue, paper_id)


class UnknownGroup(KeyError):
    """A system name that is not one of the run's Table-1 groups."""

    def __init__(self, name: str, valid: Sequence[str]) -> None:
        self.name = name
        self.valid = list(valid)
        super().__init__(name)

    def __str__(self) -> str:
        if not self.valid:
            return f"unknown system {self.name!r}: the run has no scored rows"
        return f"unknown system {self.name!r}; valid names (as in Table 1): {', '.join(self.valid)}"


def group_of(dim: Dimension | None, row: ResultRow) -> str | None:
    """The Table-1 group of a row (its system unless the dimension groups it apart)."""
    return dim.summary_system(row) if dim is not None else row.system


def group_name(group: str) -> str:
    """The name Table 1 shows for a group (and ``compare`` accepts)."""
    return system_label(group)


def group_names(rows: Iterable[ResultRow], dims: Mapping[str, Dimension | None]) -> dict[str, str]:
    """``{Table-1 name: group}`` of the ok rows, in Table-1 order; ``dims`` maps a row's
    dimension name to its plug-in (None: group by system)."""
    groups = {
        g
        for r in rows
        if r.status == "ok" and (g := group_of(dims.get(r.dimension), r)) is not None
    }
    return {group_name(g): g for g in system_order(groups)}


def closest(name: str, valid: Sequence[str]) -> list[str]:
    """``valid`` ordered by similarity to ``name`` (case-insensitive), most similar first."""
    low = name.strip().lower()

    def score(v: str) -> float:
        return difflib.SequenceMatcher(None, low, v.lower()).ratio()

    return sorted(valid, key=lambda v: -score(v))


def resolve(name: str, names: Mapping[str, str]) -> str:
    """The group a typed name means: a Table-1 name, compared case-insensitively.

    Raises :class:`UnknownGroup` (listing the valid names, closest first) otherwise.
    """
    low = name.strip().lower()
    hits = {g for n, g in names.items() if n.lower() == low}
    if len(hits) == 1:
        return hits.pop()
    raise UnknownGroup(name, closest(name, list(names)))


def pair(
    rows: Iterable[ResultRow], dim: Dimension | None, metric: str, a: str, b: str
) -> list[tuple[Paper, float, float]]:
    """``(paper, value of A, value of B)`` for every paper where both groups have a value."""
    groups = per_paper_values(rows, dim, metric, False)
    va, vb = groups.get(("ALL", a), {}), groups.get(("ALL", b), {})
    return [(p, va[p], vb[p]) for p in sorted(set(va) & set(vb))]


def decision(meta: Mapping[str, Any]) -> str | None:
    """A paper's decision for the subgroup views: ``accepted`` (bool) wins over ``decision``."""
    acc = meta.get("accepted")
    if isinstance(acc, bool):
        return "accept" if acc else "reject"
    d = meta.get("decision")
    if isinstance(d, dict):
        d = d.get("raw") or d.get("kind")
    return str(d) if d else None


def rating(meta: Mapping[str, Any]) -> float | None:
    """A paper's average rating (finite number) or None."""
    v = meta.get("avg_rating")
    if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v):
        return float(v)
    return None


def paired_papers(
    rows: Sequence[ResultRow], dim: Dimension | None, metrics: Sequence[str], a: str, b: str
) -> list[PairedPaper]:
    """One :class:`~prism_review.metrics.stats.PairedPaper` per paper paired on any of
    ``metrics`` (a metric the paper cannot pair on is None), with its decision and rating."""
    from prism_review.metrics.stats import PairedPaper

    by_metric = {m: {p: (x, y) for p, x, y in pair(rows, dim, m, a, b)} for m in metrics}
    papers = sorted({p for vals in by_metric.values() for p in vals})
    meta: dict[Paper, dict[str, Any]] = {}
    for r in rows:
        if r.status == "ok" and group_of(dim, r) in (a, b):
            meta.setdefault((r.venue, r.paper_id), {}).update(
                {k: v for k, v in r.meta.items() if v is not None}
            )
    out = []
    for p in papers:
        md = meta.get(p, {})
        out.append(PairedPaper({m: by_metric[m].get(p) for m in metrics}, decision(md), rating(md)))
    return out


# ---- two runs of the same systems (``prism compare --runs A B``) -------------------------

ReviewKey = tuple[str, str, str, str, str, str | None]  # dimension, venue, paper, system, reviewer, pairing


def review_key(row: ResultRow) -> ReviewKey:
    """A review's identity across runs: the same review judged on the same dimension (and, for
    flaws, in the same pairing) has the same key in any run of the same data."""
    return (row.dimension, row.venue, row.paper_id, row.system, row.reviewer_id, row.pairing)


def pair_reviews(
    rows_a: Iterable[ResultRow], rows_b: Iterable[ResultRow], metric: str
) -> list[tuple[ReviewKey, float, float]]:
    """``(review, value in run A, value in run B)`` for every review both runs scored (ok rows,
    non-null finite values) on ``metric``."""

    def values(rows: Iterable[ResultRow]) -> dict[ReviewKey, float]:
        out: dict[ReviewKey, float] = {}
        for r in rows:
            v = r.metrics.get(metric)
            if r.status == "ok" and isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v):
                out[review_key(r)] = float(v)
        return out

    va, vb = values(rows_a), values(rows_b)
    return [(k, va[k], vb[k]) for k in sorted(va.keys() & vb.keys(), key=str)]


def group_means_on_shared_papers(
    rows_a: Sequence[ResultRow], rows_b: Sequence[ResultRow], dim: Dimension | None, metric: str
) -> dict[str, tuple[float, float]]:
    """``{Table-1 name: (A's value, B's value)}`` per group present in both runs: the mean over
    the papers both runs have a value for of the group's per-paper values (Table 1's numbers,
    restricted to the shared papers so the two runs are compared on the same papers)."""
    ga = per_paper_values(rows_a, dim, metric, False)
    gb = per_paper_values(rows_b, dim, metric, False)
    out: dict[str, tuple[float, float]] = {}
    for (venue, group), pa in ga.items():
        pb = gb.get((venue, group), {})
        shared = sorted(set(pa) & set(pb))
        if shared:
            out[group_name(group)] = (sum(pa[p] for p in shared) / len(shared),
                                      sum(pb[p] for p in shared) / len(shared))
    return out
