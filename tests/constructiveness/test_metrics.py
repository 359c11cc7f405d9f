"""Constructiveness metrics: hand-computed cases and the reference vectors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prism_review.metrics import constructiveness as cm
from prism_review.testing.shared import SHARED

VEC = Path(f"{SHARED}/spec/vectors/constructiveness_metrics.json")
CASES = json.loads(VEC.read_text())["cases"] if VEC.exists() else []
needs_vec = pytest.mark.skipif(not CASES, reason="reference vectors not available")


def _cases(fn: str) -> list[dict]:
    return [c for c in CASES if c["function"].endswith("::" + fn)]


def _close(a: Any, b: Any, tol: float = 1e-4 + 1e-9) -> None:
    if isinstance(b, dict):
        assert set(a) == set(b)
        for k in b:
            _close(a[k], b[k], tol)
    elif b is None or isinstance(b, bool | str):
        assert a == b
    else:
        assert abs(a - b) <= tol, (a, b)


def arc(d1: Any, d2: Any, d3: Any, d4: Any, d5: Any, t: str = "weakness") -> dict:
    return {
        "D1_actionability": d1,
        "D2_specificity": d2,
        "D3_justification": d3,
        "D4_solution": d4,
        "D5_tone": d5,
        "comment_type": t,
    }


def test_hand_review_metrics() -> None:
    arcs = [arc(2, 2, 2, 2, 2), arc(0, 1, 0, 0, 1, "strength"), arc(1, 1, 1, 0, 2, "question")]
    m = cm.compute_review_metrics(arcs)
    # CLCs 1.0, 0.2, 0.5 -> MCS 1.7/3; AR 2/3; SD 1/3; CD (>=0.6) 1/3
    assert m["MCS"] == pytest.approx(1.7 / 3)
    assert m["AR"] == pytest.approx(2 / 3)
    assert m["SD"] == pytest.approx(1 / 3)
    assert m["CD"] == pytest.approx(1 / 3)
    assert m["D5_tone_mean"] == pytest.approx(5 / 3)
    assert (m["n_weaknesses"], m["n_strengths"], m["n_questions"]) == (1, 1, 1)


def test_empty_review_is_null_not_zero() -> None:
    m = cm.compute_review_metrics([])
    assert all(m[k] is None for k in cm.RATIO_KEYS)
    assert m["n_arcs"] == 0


def test_validate_round_half_even_and_renumber() -> None:
    arcs = cm.validate_arcs([{"D1_actionability": 2.5, "D2_specificity": 0.5}, "junk", {}])
    assert [a["arc_id"] for a in arcs] == ["ARC_01", "ARC_02"]
    assert arcs[0]["D1_actionability"] == 2 and arcs[0]["D2_specificity"] == 0
    assert cm.validate_arc({"D3_justification": float("nan")})["D3_justification"] == 0


def test_adaptive_tokens_by_hand() -> None:
    assert cm.adaptive_max_tokens(100) == 3000
    assert cm.adaptive_max_tokens(13000) == int(13000 / 350 * 195)  # ratio beats table 7000
    assert cm.adaptive_max_tokens(100, include_paper=True) == 3600
    assert cm.adaptive_max_tokens(10**6) == 8000


@needs_vec
@pytest.mark.parametrize("case", _cases("compute_clc"), ids=lambda c: c["name"])
def test_vec_clc(case: dict) -> None:
    assert cm.compute_clc(case["input"]["arc"]) == pytest.approx(case["expected"], abs=1e-9)


@needs_vec
@pytest.mark.parametrize("case", _cases("compute_review_metrics"), ids=lambda c: c["name"])
def test_vec_review(case: dict) -> None:
    _close(cm.compute_review_metrics(case["input"]["arcs"], digits=4), case["expected"])


@needs_vec
@pytest.mark.parametrize("case", _cases("compute_paper_comparison"), ids=lambda c: c["name"])
def test_vec_comparison(case: dict) -> None:
    i = case["input"]
    _close(cm.compute_paper_comparison(i["human_metrics_list"], i["llm_metrics"]), case["expected"])


@needs_vec
@pytest.mark.parametrize("case", _cases("_validate_arc"), ids=lambda c: c["name"])
def test_vec_validate(case: dict) -> None:
    assert cm.validate_arc(case["input"]["arc"]) == case["expected"]


@needs_vec
@pytest.mark.parametrize(
    "case", _cases("ConstructivenessEvaluator._calculate_adaptive_tokens"), ids=lambda c: c["name"]
)
def test_vec_adaptive_tokens(case: dict) -> None:
    i = case["input"]
    got = cm.adaptive_max_tokens(i["review_length_chars"], include_paper=i["include_paper"])
    assert got == case["expected"]
