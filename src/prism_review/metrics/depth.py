"""Depth of Analysis metrics (prism-reference §4.3–4.4) as pure functions.

A review is judged as a list of classified argumentative units, each a mapping with ``role``
(Claim/Premise), ``aspect`` and ``grounding_score`` (0–2, or None for non-premises and for
premises that got no score). From it:

* ``R_premise = |P| / n`` — share of units that are premises;
* ``S_depth`` = mean of the non-null grounding scores over P (0–2; 0 when there are none);
* ``DoA = 2·R·d / (R + d)`` with ``d = S_depth / 2`` — the harmonic mean, the headline;
* ``DoA_product = R · d`` — the secondary product form;
* ``Ratio_All_<a>`` / ``Ratio_Prem_<a>`` — aspect shares among all units / among premises.

An empty list gives every metric 0 (spec §14.4). Roles are normalised case-insensitively and
anything that is not "premise" counts as a Claim (REC); ``compat=True`` reproduces the original's
exact ``role == "Premise"`` test. Aspect labels are used verbatim (falsy ones get no ratio key),
as in the original; label normalisation happens in the classify step, not here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

PREMISE = "Premise"
CLAIM = "Claim"
ASPECTS: tuple[str, ...] = ("Soundness", "Clarity", "Contribution", "Other")

Number = float | int
Metrics = dict[str, float | int | None]


def normalise_role(role: Any, *, compat: bool = False) -> str:
    """``Premise`` or ``Claim``. Case-insensitive; unknown or missing roles are Claims.

    With ``compat`` only the exact string ``"Premise"`` is a premise (original behaviour).
    """
    if compat:
        return PREMISE if role == PREMISE else CLAIM
    if isinstance(role, str) and role.strip().lower() == "premise":
        return PREMISE
    return CLAIM


def is_premise(unit: Mapping[str, Any], *, compat: bool = False) -> bool:
    """Whether a classified unit counts as a premise."""
    return normalise_role(unit.get("role"), compat=compat) == PREMISE


def r_premise(units: Sequence[Mapping[str, Any]], *, compat: bool = False) -> float:
    """Share of units that are premises; 0 for an empty list."""
    if not units:
        return 0.0
    return sum(is_premise(u, compat=compat) for u in units) / len(units)


def s_depth(units: Sequence[Mapping[str, Any]], *, compat: bool = False) -> float:
    """Mean non-null grounding score over the premises (0–2); 0 when no premise is scored."""
    scores = [
        float(u["grounding_score"])
        for u in units
        if is_premise(u, compat=compat) and u.get("grounding_score") is not None
    ]
    return sum(scores) / len(scores) if scores else 0.0


def doa_hm(r: float, s: float) -> float:
    """Headline DoA: harmonic mean of ``r`` and ``s/2``; 0 when both are 0."""
    d = s / 2.0
    den = r + d
    return 2.0 * r * d / den if den > 0 else 0.0


def doa_product(r: float, s: float) -> float:
    """Secondary DoA: ``r · s/2``."""
    return r * (s / 2.0)


def aspect_ratios(units: Sequence[Mapping[str, Any]], *, compat: bool = False) -> Metrics:
    """``Ratio_All_<a>`` and ``Ratio_Prem_<a>`` for every (truthy) aspect label present."""
    n = len(units)
    premises = [u for u in units if is_premise(u, compat=compat)]
    out: Metrics = {}
    labels: list[str] = []
    for u in units:
        a = u.get("aspect")
        if a and a not in labels:
            labels.append(a)
    for a in labels:
        out[f"Ratio_All_{a}"] = sum(1 for u in units if u.get("aspect") == a) / n
        out[f"Ratio_Prem_{a}"] = (
            sum(1 for u in premises if u.get("aspect") == a) / len(premises) if premises else 0.0
        )
    return out


def review_metrics(units: Sequence[Mapping[str, Any]], *, compat: bool = False) -> Metrics:
    """All per-review DoA metrics of one classified, grounded unit list.

    Keys: ``doa`` (headline), ``r_premise``, ``s_depth``, ``doa_product``, ``n_units``,
    ``n_premises``, ``n_claims`` (units that are not premises), ``n_graded`` (premises with a
    score), and the aspect ratios.
    """
    r = r_premise(units, compat=compat)
    s = s_depth(units, compat=compat)
    n_prem = sum(is_premise(u, compat=compat) for u in units)
    out: Metrics = {
        "doa": doa_hm(r, s),
        "r_premise": r,
        "s_depth": s,
        "doa_product": doa_product(r, s),
        "n_units": len(units),
        "n_premises": n_prem,
        "n_claims": len(units) - n_prem,
        "n_graded": sum(
            1
            for u in units
            if is_premise(u, compat=compat) and u.get("grounding_score") is not None
        ),
    }
    out.update(aspect_ratios(units, compat=compat))
    return out


def reference_view(m: Mapping[str, Any]) -> dict[str, Any]:
    """The metrics under the original's names (``doa_score_hm``, ``total_claims`` = all units …).

    Used to compare with the reference vectors and to write compatibility CSVs.
    """
    out: dict[str, Any] = {
        "r_premise": m["r_premise"],
        "s_depth": m["s_depth"],
        "doa_score": m["doa_product"],
        "doa_score_hm": m["doa"],
        "total_claims": float(m["n_units"]),
        "total_premises": float(m["n_premises"]),
    }
    for k, v in m.items():
        if k.startswith("Ratio_Prem_"):
            out[k] = v
            out["Ratio_Prem__" + k[len("Ratio_Prem_") :]] = v
        elif k.startswith("Ratio_All_"):
            out[k] = v
    return out


def mean_over(rows: Iterable[Mapping[str, Any]]) -> Metrics:
    """Column mean over metric dicts, skipping missing and None values (pandas ``mean``).

    This is the per-paper human value: the mean over the paper's reviewers. A key absent from
    some reviewers (an aspect they never used) is averaged over the reviewers that have it.
    """
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    for row in rows:
        for k, v in row.items():
            if v is None or isinstance(v, bool) or not isinstance(v, int | float):
                continue
            sums[k] = sums.get(k, 0.0) + float(v)
            counts[k] = counts.get(k, 0) + 1
    return {k: sums[k] / counts[k] for k in sums}


def mean_sd_n(
    values: Iterable[Number | None], *, ddof: int = 1
) -> tuple[float | None, float | None, int]:
    """Mean, standard deviation (``ddof``, default sample sd) and n of the non-null values.

    The mean is None when n = 0; the sd is None when n ≤ ddof.
    """
    xs = [float(v) for v in values if v is not None]
    n = len(xs)
    if n == 0:
        return None, None, 0
    mu = sum(xs) / n
    if n <= ddof:
        return mu, None, n
    var = sum((x - mu) ** 2 for x in xs) / (n - ddof)
    return mu, math.sqrt(var), n
