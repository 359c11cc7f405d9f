"""Hand-computed checks of the flaw metrics (CPS family, recalls, hallucination rate)."""

from __future__ import annotations

import math

import pytest

from prism_review.metrics import cfi, cps

L3 = math.log2(3)


def _args(*spec: tuple[str, str]) -> list[dict[str, str]]:
    return [{"severity": s, "section_name": sec} for s, sec in spec]


def test_all_criticals_before_minors_is_ideal() -> None:
    args = _args(("Critical", "W"), ("Critical", "W"), ("Minor", "W"), ("Minor", "W"))
    expected = 2 + 2 / L3 + 1 / 2 + 1 / math.log2(5)
    assert cps.calculate_cps(args) == pytest.approx(expected)
    assert cps.calculate_icps(args) == pytest.approx(expected)
    assert cps.calculate_ncps(args) == 1.0


def test_reversed_order() -> None:
    args = _args(("Minor", "W"), ("Critical", "W"))
    assert cps.calculate_cps(args) == pytest.approx(1 + 2 / L3)
    assert cps.calculate_icps(args) == pytest.approx(2 + 1 / L3)
    assert cps.calculate_ncps(args) == round((1 + 2 / L3) / (2 + 1 / L3), 4) == 0.8597


def test_one_section_vs_several() -> None:
    one = _args(("Critical", "W"), ("Minor", "W"), ("Critical", "W"))
    # one section: 2 + 1/log2(3) + 2/log2(4) against the ideal 2 + 2/log2(3) + 1/2
    assert cps.calculate_ncps(one) == round((2 + 1 / L3 + 1) / (2 + 2 / L3 + 0.5), 4)
    several = _args(("Critical", "W"), ("Minor", "W"), ("Critical", "Q"))
    # the positions restart per section: W = [C, M] is ideal, Q = [C] is ideal
    assert cps.calculate_cps(several) == pytest.approx(2 + 1 / L3 + 2)
    assert cps.calculate_ncps(several) == 1.0
    rows = cps.section_breakdown(several)
    assert [(r["section"], r["n_args"]) for r in rows] == [("W", 2), ("Q", 1)]


def test_zero_weight_items_removed_but_counted() -> None:
    args = _args(("None", "W"), ("Minor", "W"), ("Major", "W"), ("Critical", "W"))
    # positions close up: scored as [Minor, Critical]
    assert cps.calculate_cps(args) == pytest.approx(1 + 2 / L3)
    assert cps.section_breakdown(args)[0]["n_args"] == 4
    # no weighted mention: no ordering to judge, so no nCPS (compat: the original's 0)
    assert cps.calculate_ncps(_args(("None", "W"))) is None
    assert cps.calculate_ncps(_args(("None", "W")), compat=True) == 0.0


def test_empty_bank_scores_zero_without_mentions() -> None:
    res = cps.score_review("R", "some text", [], {"mentions": [{"issue_id": "F01"}]})
    assert res["arguments"] == []
    assert res["metrics"]["nCPS"] is None and res["metrics"]["Raw_CPS"] == 0.0
    old = cps.score_review("R", "some text", [], {"mentions": []}, compat=True)
    assert old["metrics"]["nCPS"] == 0.0
    block = cps.paper_cps([], {"Human_1": "a", "LLM_Reviewer": "b"}, {})
    assert [r["CPS_norm"] for r in block["Reviewer_Rankings"]] == [0.0, 0.0]


def test_ncps_is_none_when_no_valid_flaw_is_mentioned() -> None:
    """iCPS = 0 (the review mentions no valid flaw): nCPS is None, not a 0 nobody earned, and
    such rows sort after every scored one; compat keeps the original's 0."""
    bank = [{"issue_id": "F01", "shared_severity": "Critical", "canonical_summary": "x",
             "macro_topic": "t"}]
    mapped = {"mentions": [{"issue_id": "F01", "section_name": "Weaknesses",
                            "anchor_quote": "the baseline is missing"}]}
    block = cps.paper_cps(bank, {"Human_1": "the baseline is missing", "LLM_Reviewer": "fine"},
                          {"Human_1": mapped, "LLM_Reviewer": {"mentions": []}})
    rows = {r["Reviewer_ID"]: r for r in block["Reviewer_Rankings"]}
    assert rows["Human_1"]["nCPS"] == 1.0
    assert rows["LLM_Reviewer"]["nCPS"] is None and rows["LLM_Reviewer"]["ICPS"] == 0.0
    assert [r["Reviewer_ID"] for r in block["Reviewer_Rankings"]] == ["Human_1", "LLM_Reviewer"]
    old = cps.paper_cps(bank, {"Human_1": "the baseline is missing", "LLM_Reviewer": "fine"},
                        {"Human_1": mapped, "LLM_Reviewer": {"mentions": []}}, compat=True)
    assert {r["Reviewer_ID"]: r["nCPS"] for r in old["Reviewer_Rankings"]}["LLM_Reviewer"] == 0.0


def test_cps_norm_min_max() -> None:
    rows = [
        {"Reviewer_ID": "a", "Raw_CPS": 1.0, "nCPS": 1.0},
        {"Reviewer_ID": "b", "Raw_CPS": 3.0, "nCPS": 0.5},
        {"Reviewer_ID": "c", "Raw_CPS": 2.0, "nCPS": 1.0},
    ]
    out = {r["Reviewer_ID"]: r["CPS_norm"] for r in cps.add_cps_norm(rows)}
    assert out == {"a": 0.0, "b": 1.0, "c": 0.5}


def test_position_recovery_order() -> None:
    text = "First: missing baselines. Second: typo in eq 2."
    args = [
        {"severity": "Minor", "anchor_quote": "typo in eq 2"},
        {"severity": "Critical", "anchor_quote": "MISSING baselines"},
        {"severity": "Minor", "anchor_quote": "qqqq zzzz xxxx", "content": ""},
    ]
    out = cps.reorder_by_position(args, text)
    assert [a["anchor_quote"] for a in out] == [
        "MISSING baselines",
        "typo in eq 2",
        "qqqq zzzz xxxx",
    ]


FLAWS = [
    {"flaw_id": "F1", "raw_arguments": {"Human_1": "q1", "LLM_Reviewer": "q2"}},
    {"flaw_id": "F2", "raw_arguments": {"Human_2": "q3"}},
    {"flaw_id": "F3", "raw_arguments": {"LLM_Reviewer": "q4"}},
]
EVALS = {
    "F1": {"is_valid": True, "severity": "Critical"},
    "F2": {"is_valid": True, "severity": "Minor"},
    "F3": {"is_valid": False, "severity": "None"},
}


def _rows() -> dict[str, dict]:
    rep = cfi.cfi_report(FLAWS, EVALS, 4, ["Human_1", "Human_2", "Human_3"])
    return {r["Reviewer_ID"]: r for r in rep["Reviewer_Rankings"]}


def test_recalls_and_consensus_weights_by_hand() -> None:
    rows = _rows()
    llm = rows["LLM_Reviewer"]
    assert (llm["Critical_Recall"], llm["Minor_Recall"]) == (1.0, 0.0)
    # F1 has 2 quotes of N=4 reviewers -> W = 0.5
    assert llm["Detected_Critical_ConsensusWeight"] == 0.5
    assert rows["Human_2"]["Minor_Recall_ConsensusWeighted"] == 1.0
    assert rows["Human_3"]["Critical_Recall"] == 0.0


def test_hallucination_rate_by_hand() -> None:
    rows = _rows()
    assert rows["LLM_Reviewer"]["Hallucination_Rate"] == 0.5  # F3 invalid of {F1, F3}
    assert rows["Human_1"]["Hallucination_Rate"] == 0.0
    assert rows["Human_3"]["Hallucination_Rate"] is None  # detected nothing


def test_empty_class_gives_null_recall() -> None:
    rep = cfi.cfi_report(FLAWS[:1], {"F1": EVALS["F1"]}, 2, ["Human_1"])
    row = rep["Reviewer_Rankings"][0]
    assert row["Minor_Recall"] is None and row["Minor_Recall_ConsensusWeighted"] is None


def test_key_normalisation() -> None:
    assert cfi.normalize_reviewer_key("human_01") == "Human_1"
    assert cfi.normalize_reviewer_key("LLM Reviewer") == "LLM_Reviewer"
    assert cfi.normalize_reviewer_key("Researcher_1") == "Researcher_1"
