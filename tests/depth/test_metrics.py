"""DoA metrics: hand-computed cases and the reference vectors (depth_metrics.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prism_review.metrics import depth as M
from prism_review.testing.shared import SHARED

VECTORS = Path(f"{SHARED}/spec/vectors/depth_metrics.json")


def u(role: str | None, aspect: str | None = "Soundness", g: float | None = None) -> dict:
    return {"argument": "x", "role": role, "aspect": aspect, "grounding_score": g}


def test_empty_is_all_zero() -> None:
    m = M.review_metrics([])
    assert m == {
        "doa": 0.0,
        "r_premise": 0.0,
        "s_depth": 0.0,
        "doa_product": 0.0,
        "n_units": 0,
        "n_premises": 0,
        "n_claims": 0,
        "n_graded": 0,
    }


def test_hand_computed_mixed() -> None:
    # 4 units, 2 premises scored 2 and 1 -> R = 0.5, S = 1.5, d = 0.75
    # HM = 2*0.5*0.75/1.25 = 0.6 ; product = 0.375
    units = [u("Claim"), u("Premise", g=2), u("Premise", "Clarity", 1), u("Claim", "Contribution")]
    m = M.review_metrics(units)
    assert m["r_premise"] == pytest.approx(0.5)
    assert m["s_depth"] == pytest.approx(1.5)
    assert m["doa"] == pytest.approx(0.6)
    assert m["doa_product"] == pytest.approx(0.375)
    assert (m["n_units"], m["n_premises"], m["n_claims"], m["n_graded"]) == (4, 2, 2, 2)
    assert m["Ratio_All_Soundness"] == pytest.approx(0.5)
    assert m["Ratio_Prem_Soundness"] == pytest.approx(0.5)
    assert m["Ratio_Prem_Clarity"] == pytest.approx(0.5)
    assert m["Ratio_All_Contribution"] == pytest.approx(0.25)
    assert m["Ratio_Prem_Contribution"] == 0.0


def test_null_grounding_counts_in_r_not_in_s() -> None:
    # 3 units, premises: 2 (scored 0) + 1 unscored -> R = 2/3, S = 0 -> HM 0
    units = [u("Premise", g=0), u("Premise", g=None), u("Claim")]
    m = M.review_metrics(units)
    assert m["r_premise"] == pytest.approx(2 / 3)
    assert m["s_depth"] == 0.0 and m["doa"] == 0.0 and m["n_graded"] == 1


def test_hm_when_r_zero_and_s_zero() -> None:
    assert M.doa_hm(0.0, 0.0) == 0.0
    assert M.doa_hm(1.0, 2.0) == 1.0
    # R = 0.25, S = 1 -> d = 0.5 -> 2*0.125/0.75 = 1/3
    assert M.doa_hm(0.25, 1.0) == pytest.approx(1 / 3)
    assert M.doa_product(0.25, 1.0) == pytest.approx(0.125)


def test_role_normalisation() -> None:
    assert M.normalise_role("premise") == "Premise"
    assert M.normalise_role(" PREMISE ") == "Premise"
    assert M.normalise_role("Non-Premise") == "Claim"
    assert M.normalise_role(None) == "Claim"
    assert M.normalise_role("evidence") == "Claim"
    assert M.normalise_role("premise", compat=True) == "Claim"
    assert M.normalise_role("Premise", compat=True) == "Premise"


def test_mean_over_skips_missing_keys_and_none() -> None:
    rows = [{"doa": 0.2, "Ratio_All_Clarity": 1.0}, {"doa": 0.6, "s_depth": None}]
    out = M.mean_over(rows)
    assert out["doa"] == pytest.approx(0.4)
    assert out["Ratio_All_Clarity"] == 1.0  # only the reviewer that has it
    assert "s_depth" not in out


def test_mean_sd_n() -> None:
    mu, sd, n = M.mean_sd_n([1.0, 2.0, 3.0, None])
    assert (mu, n) == (2.0, 3)
    assert sd == pytest.approx(1.0)  # sample sd of 1,2,3
    assert M.mean_sd_n([5.0]) == (5.0, None, 1)
    assert M.mean_sd_n([]) == (None, None, 0)
    assert M.mean_sd_n([1.0, 3.0], ddof=0)[1] == pytest.approx(1.0)


def _cases() -> list[dict]:
    # no shared folder (a clone on its own): no cases, so the vector tests skip, not error
    return json.loads(VECTORS.read_text())["cases"] if VECTORS.exists() else []


def _close(got: dict, want: dict) -> None:
    assert set(got) == set(want)
    for k, v in want.items():
        assert abs(float(got[k]) - float(v)) <= 1e-9, k


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c["name"])
def test_reference_vectors(case: dict) -> None:
    args = case["input"]["arguments"]
    if case["compat"]:
        # the recorded value holds under the compat switch ...
        _close(M.reference_view(M.review_metrics(args, compat=True)), case["expected"])
        # ... and by default roles are case-insensitive, so the upper/lower-case premise counts
        default = M.review_metrics(args)
        n_prem = sum(1 for a in args if str(a.get("role", "")).lower() == "premise")
        assert default["r_premise"] == pytest.approx(n_prem / len(args))
        assert default["r_premise"] > case["expected"]["r_premise"]
    else:
        _close(M.reference_view(M.review_metrics(args)), case["expected"])
        _close(M.reference_view(M.review_metrics(args, compat=True)), case["expected"])


@pytest.mark.skipif(not VECTORS.exists(), reason=f"{VECTORS} not available")
def test_compat_recommended_values_from_notes() -> None:
    by = {c["name"]: c for c in _cases()}
    m = M.review_metrics(by["role_lowercase_premise_not_counted"]["input"]["arguments"])
    assert m["r_premise"] == pytest.approx(2 / 3)  # the note's recommended value
    m = M.review_metrics(by["role_PREMISE_uppercase_not_counted"]["input"]["arguments"])
    assert m["r_premise"] == pytest.approx(0.5)
