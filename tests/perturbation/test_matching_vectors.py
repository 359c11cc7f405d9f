"""The reference vectors of ``perturbation_matching.json`` plus hand checks."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from prism_review.metrics import perturbation as pm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from flaws._vectors import cases, close  # noqa: E402


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
    # an unscored judge reply never counts as a detection
    assert pm.score_review(perts, comments, method="llm", judge=lambda e, w: None)["recall"] == 0.0


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
