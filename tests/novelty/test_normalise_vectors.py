import pytest

from prism_review.judge.novelty.normalise import (
    coerce_boolint,
    coerce_score,
    heuristic_classification,
    normalize_label,
    normalize_verdict,
)
from prism_review.testing.vectors import vector_cases as cases

N5_RECOMMENDED = {
    "label_unsupported_with_period": ("UNSUPPORTED", "contradicted"),
    "label_not_supported": ("UNSUPPORTED", "contradicted"),
    "label_ambiguous_slash_unsupported": ("UNSUPPORTED", "contradicted"),
    "label_unsupported_with_stance_contradicted": ("UNSUPPORTED", "contradicted"),
}


@pytest.mark.parametrize("case", cases("novelty_judge_normalisation.json", "_normalize_judge_output"))
def test_normalize_verdict(case):
    inp, exp = case["input"], case["expected"]
    args = (inp["raw"], inp["review_sentence_id"], inp["related_paper_id"], inp["review_sentence_text"])
    # compat reproduces every recorded value, including N4 (non-object scored 0) and N5.
    assert normalize_verdict(*args, compat=True) == exp
    got = normalize_verdict(*args)
    if not isinstance(inp["raw"], dict):
        assert got is None  # N4 REC: an unusable reply is unscored, never 0
    elif case["name"] in N5_RECOMMENDED:
        label, stance = N5_RECOMMENDED[case["name"]]
        assert got["label"] == label and got["score"] == -2 and got["stance_alignment"] == stance
        assert got["calibration"] == "N/A"
    else:
        assert got == exp


@pytest.mark.parametrize("case", cases("novelty_judge_normalisation.json", "_normalize_label"))
def test_normalize_label(case):
    assert normalize_label(case["input"]["label"], compat=True) == case["expected"]
    if case["compat"]:
        assert normalize_label(case["input"]["label"]) == "UNSUPPORTED"
    else:
        assert normalize_label(case["input"]["label"]) == case["expected"]


@pytest.mark.parametrize("case", cases("novelty_judge_normalisation.json", "_coerce_score"))
def test_coerce_score(case):
    assert coerce_score(case["input"]["value"]) == case["expected"]


@pytest.mark.parametrize("case", cases("novelty_judge_normalisation.json", "_coerce_boolint"))
def test_coerce_boolint(case):
    assert coerce_boolint(case["input"]["value"]) == case["expected"]


@pytest.mark.parametrize("case", cases("novelty_judge_normalisation.json", "_heuristic_classification"))
def test_heuristic(case):
    assert list(heuristic_classification(case["input"]["text"], compat=True)) == case["expected"]
    if case["compat"]:
        assert heuristic_classification(case["input"]["text"]) == (1, 1)  # the spec's cue list
    else:
        assert list(heuristic_classification(case["input"]["text"])) == case["expected"]


@pytest.mark.parametrize(
    ("label", "want"),
    [("NOT SUPPORTED", "UNSUPPORTED"), ("non-supported", "UNSUPPORTED"), ("Supported.", "SUPPORTED"),
     ("understated", "UNDERSTATED"), ("SUPPORTEDLY", None), ("", None), ("OVER-STATED", None)],
)
def test_bounded_label_matching(label, want):
    assert normalize_label(label) == want
