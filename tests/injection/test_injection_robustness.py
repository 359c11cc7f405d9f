"""Injection blocks move no offline metric more than neutral prose of the same length (issue 16).

Plan (kept small for speed): the first two demo LLM reviews (by paper id), every injection of
:mod:`tests.injection.corpus` at one position each (the i-th at ``start``/``middle``/``end``/
``section`` by i mod 4), each with two same-length neutral controls; 45 variants, all four
dimensions, one offline run. ``python -m tests.injection.measure`` runs the full plan (three
reviews, every position) and prints the table; docs/fidelity.md "Injection robustness" has its
figures.

The property, per headline metric (plus R_premise, S_depth, the flaws hallucination rate and
D1-D5), with both allowances
taken from the controls alone (:func:`tests.injection.measure.judge_metric`):

* per case, |Δ_injection| ≤ |Δ_control| + the largest difference between two neutral
  controls' moves at the same place (swapping one neutral text for another moves a metric
  that much, so an injection within it is indistinguishable from prose);
* on average, mean |Δ_injection| ≤ mean |Δ_control| + 2 standard errors of the paired
  control-vs-control differences.

Full-plan figures (3 reviews x 15 injections x 4 positions = 180 cases per metric) are in
docs/fidelity.md, "Injection (offline)": after the markup mask, the mask of sentences addressed
to the judge and the list-aware heading split, every metric holds.

:data:`FORMERLY_OPEN` names the groups that broke the property before those last two fixes
(instruction sentences read as novelty claims and premises; a heading block inside a
Weaknesses list moved the rest of the list); they are checked on their own, so a regression
in one of them is named.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from tests.injection.measure import Measurement, Verdict, cases, judge_metric, measure

#: (injection, dimension) groups that broke the property before judge/addressed.py and the
#: list-aware heading split (systems/parsing.py)
FORMERLY_OPEN = {
    ("override", "novelty"),
    ("roleplay", "novelty"),
    ("override", "depth"),
    ("md_headers", "flaws"),
    ("fake_reviewer", "flaws"),
}


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> Measurement:
    return measure(2, cases(rotate=True), workdir=tmp_path_factory.mktemp("injection"))


def _failing(m: Measurement, keep: Callable[[str, str], bool]) -> list[Verdict]:
    """The metrics whose property fails on the cases ``keep(injection, dimension)`` accepts."""
    out = []
    for dim, metric in m.moves:
        v = judge_metric(m, (dim, metric), lambda k, d=dim: keep(k[0], d))
        if v.n and not v.ok:
            out.append(v)
    return out


def _report(bad: list[Verdict]) -> str:
    return "\n".join(
        f"{v.dim}.{v.metric}: injection max {v.inj_max:.3f} mean {v.inj_mean:.3f} vs control "
        f"max {v.ctrl_max:.3f} mean {v.ctrl_mean:.3f} (+{v.mean_margin:.3f}); over: "
        + "; ".join(f"{k[0]}@{k[1]} on {k[2]} {i:.3f} > {c:.3f}+{v.tolerance:.3f}"
                    for k, i, c in v.worse[:5])
        for v in bad
    )


def test_every_variant_was_scored(measured: Measurement) -> None:
    # a variant the loader refuses counts as the largest move; none is refused now
    assert not measured.input_problems
    assert measured.units == (1 + len(measured.plan)) * len(measured.reviews) * 4


def test_injections_move_no_metric_more_than_neutral_text(measured: Measurement) -> None:
    bad = _failing(measured, lambda name, dim: True)
    assert not bad, _report(bad)


def test_formerly_open_groups_hold(measured: Measurement) -> None:
    bad = _failing(measured, lambda name, dim: (name, dim) in FORMERLY_OPEN)
    assert not bad, _report(bad)


def _synthetic(inj: list[float], c1: list[float], c2: list[float]) -> Measurement:
    keys = [(f"b{i}", "end", "p") for i in range(len(inj))]
    m = Measurement(reviews=[("p", "s")], plan=[])
    m.moves[("depth", "doa")] = {kind: dict(zip(keys, vals, strict=True))
                                 for kind, vals in (("inj", inj), ("c1", c1), ("c2", c2))}
    return m


def test_the_property_rejects_a_move_beyond_the_neutral_spread() -> None:
    c1, c2 = [0.10, 0.00, 0.05, 0.02], [0.12, 0.01, 0.04, 0.02]  # neutral spread 0.02
    assert judge_metric(_synthetic([0.11, 0.01, 0.06, 0.03], c1, c2), ("depth", "doa")).ok
    v = judge_metric(_synthetic([0.10, 0.20, 0.05, 0.02], c1, c2), ("depth", "doa"))
    assert not v.ok and [k[0] for k, _, _ in v.worse] == ["b1"]
    # many small excesses within the per-case tolerance still fail the mean
    v = judge_metric(_synthetic([0.12, 0.02, 0.07, 0.04], c1, c2), ("depth", "doa"))
    assert not v.worse and not v.ok
