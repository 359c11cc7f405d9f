"""The reference vectors of ``perturbation_matching.json`` plus hand checks."""

from __future__ import annotations

from typing import Any

import pytest

from prism_review.metrics import perturbation as pm
from prism_review.testing.vectors import close
from prism_review.testing.vectors import vector_cases as cases


@pytest.mark.parametrize("case", cases("perturbation_matching.json"))
def test_matching_vector(case: dict[str, Any]) -> None:
    fn = case["function"].split("::")[1]
    inp, exp = case["input"], case["expected"]
    if fn == "_normalize_for_match":
        assert pm.normalize_for_match(inp["text"]) == exp
    elif fn == "_quote_coverage":
        assert pm.quote_coverage(inp["quote"], inp["window"]) == pytest.approx(exp, abs=1e-9)
    elif fn == "_substring_match":
        assert pm.substring_match(inp["quote"], inp["perturbed"]) is exp
    elif fn == "_explanation_match_fuzzy":
        assert pm.explanation_match_fuzzy(inp["explanation"], inp["why_wrong"]) is exp
    elif fn == "score_review":
        got = pm.score_review(inp["perturbations"], inp["review_comments"], method=inp["method"])
        assert got.pop("method") == "fuzzy" and got.pop("threshold") == 70.0
        # not in the reference output: the fuzzy method never leaves a perturbation unscored
        assert got.pop("unscored") == [] and got.pop("n_unscored") == 0
        close(got, exp, tol=1e-9)
    elif fn == "locate_comment_in_document":
        assert (
            pm.locate_comment_in_document(inp["quote"], inp["paragraphs"], inp["threshold"]) == exp
        )
    else:  # pragma: no cover
        pytest.fail(fn)


def test_llm_method_threshold_is_a_setting() -> None:
    perts = [{"perturbation_id": "p", "perturbed": "rate 0.1", "why_wrong": "w"}]
    comments = [{"quote": "the rate 0.1", "explanation": "e"}]
    assert pm.score_review(perts, comments, method="llm", judge=lambda e, w: 3)["n_detected"] == 0
    res = pm.score_review(perts, comments, method="llm", judge=lambda e, w: 3, judge_threshold=3)
    assert res["n_detected"] == 1 and res["threshold"] == 3
    # an unscored judge reply is neither a detection nor a miss: unscored, out of recall
    res = pm.score_review(perts, comments, method="llm", judge=lambda e, w: None)
    assert res["n_detected"] == 0 and res["missed"] == [] and res["unscored"] == ["p"]
    assert res["recall"] is None


def test_unscored_perturbations_leave_the_denominator() -> None:
    perts = [
        {"perturbation_id": "a", "perturbed": "rate 0.1", "why_wrong": "wa"},
        {"perturbation_id": "b", "perturbed": "batch 512", "why_wrong": "wb"},
        {"perturbation_id": "c", "perturbed": "depth 12", "why_wrong": "wc"},
        {"perturbation_id": "d", "perturbed": "width 64", "why_wrong": "wd"},
    ]
    comments = [
        {"quote": "the rate 0.1", "explanation": "good"},  # a: rated 5 -> detected
        {"quote": "batch 512 here", "explanation": "bad"},  # b: rated 1 -> missed
        {"quote": "depth 12 layers", "explanation": "lost"},  # c: unreadable rating -> unscored
    ]  # d: no quote -> missed
    ratings = {"good": 5, "bad": 1, "lost": None}
    res = pm.score_review(perts, comments, method="llm", judge=lambda e, w: ratings[e])
    assert (res["detected"], res["missed"], res["unscored"]) == (["a"], ["b", "d"], ["c"])
    assert res["recall"] == 1 / 3  # 1 detected of 3 judged, not 1 of 4
    # a later comment that passes still detects it, whatever an earlier unscored rating was
    both = [{"quote": "depth 12", "explanation": "lost"}, {"quote": "depth 12", "explanation": "good"}]
    assert pm.score_review(perts[2:3], both, method="llm", judge=lambda e, w: ratings[e])["detected"] == ["c"]
    rows = [
        {"error_category": "Claim", "n_injected": 4, "n_detected": 1, "n_unscored": 1, "recall": 1 / 3},
        {"error_category": "Claim", "n_injected": 1, "n_detected": 0, "n_unscored": 1, "recall": None},
    ]
    out = pm.recall_by_category(rows)["Claim"]
    assert out["recall"] == 1 / 3 and out["n_unscored"] == 2 and out["mean_row_recall"] == 1 / 3
    assert out["n_rows"] == 2


def test_recall_by_category_pools_rows() -> None:
    rows = [
        {"error_category": "Surface", "n_injected": 4, "n_detected": 1, "recall": 0.25},
        {"error_category": "Surface", "n_injected": 1, "n_detected": 1, "recall": 1.0},
        {"error_category": "Claim", "n_injected": 2, "n_detected": 0, "recall": 0.0},
    ]
    out = pm.recall_by_category(rows)
    assert out["Surface"]["recall"] == 2 / 5
    assert out["Surface"]["mean_row_recall"] == 0.625
    assert out["Claim"]["n_rows"] == 1 and out["Claim"]["recall"] == 0.0
