"""The reference vectors of ``flaw_recall.json``.

Compat cases (risk F3 substring matching, credit for empty quotes) are asserted as recorded
under ``compat=True``; by default the recommended behaviour is asserted instead (see the notes).
"""

from __future__ import annotations

from typing import Any

import pytest

from prism_review.metrics import cfi
from prism_review.testing.vectors import close
from prism_review.testing.vectors import vector_cases as cases


def _strip_extra(report: dict[str, Any]) -> dict[str, Any]:
    for row in report.get("Reviewer_Rankings", []):
        row.pop("Hallucination_Rate", None)
    return report


def _run(case: dict[str, Any], compat: bool) -> Any:
    fn = case["function"].split(".")[-1]
    inp = case["input"]
    flaws = inp["micro_flaws_json"]["micro_flaws"]
    if fn == "get_reviewer_flaws":
        return sorted(cfi.detected_flaws(flaws, inp["reviewer_id"], compat=compat))
    evals = inp["evaluations_json"]["evaluations"]
    n = inp["total_reviewers_count"]
    if fn == "calculate_reviewer_scores":
        sets = cfi.FlawSets(flaws, evals, n)
        row = cfi.reviewer_scores(sets, flaws, inp["reviewer_id"], compat=compat)
        row.pop("Hallucination_Rate")
        return row
    return _strip_extra(cfi.cfi_report(flaws, evals, n, inp["human_ids"], compat=compat))


@pytest.mark.parametrize("case", cases("flaw_recall.json"))
def test_flaw_recall_vector(case: dict[str, Any]) -> None:
    close(_run(case, compat=bool(case.get("compat"))), case["expected"])
    if not case.get("compat"):
        # non-compat cases hold in both modes
        close(_run(case, compat=True), case["expected"])


def _row(report: dict[str, Any], rid: str) -> dict[str, Any]:
    return next(r for r in report["Reviewer_Rankings"] if r["Reviewer_ID"] == rid)


def _case(name: str) -> dict[str, Any]:
    for p in cases("flaw_recall.json"):
        if p.values[0] and p.values[0]["name"] == name:
            return p.values[0]
    pytest.skip("vectors not available")


def test_recommended_exact_matching_human1_not_human10() -> None:
    rep = _run(_case("F3_human1_matches_human10_key"), compat=False)
    assert _row(rep, "Human_1")["Critical_Recall"] == 0.0
    assert _row(rep, "Human_1")["Minor_Recall"] == 1.0
    assert _row(rep, "Human_10")["Critical_Recall"] == 1.0


def test_recommended_reviewer_prefixed_key_matches_nobody() -> None:
    rep = _run(_case("F3_reviewer_prefixed_key"), compat=False)
    assert _row(rep, "Human_2")["Critical_Recall"] == 0.5
    assert _row(rep, "Human_1")["Critical_Recall"] == 0.0


def test_recommended_researcher_key_credits_nobody() -> None:
    rep = _run(_case("F3_llm_alias_research_key"), compat=False)
    assert _row(rep, "LLM_Reviewer")["Critical_Recall"] == 0.0
    assert _row(rep, "Human_1")["Critical_Recall"] == 0.0


def test_recommended_human1_not_in_human11() -> None:
    assert _run(_case("detect_F3_human1_in_human11"), compat=False) == []


def test_recommended_empty_quotes_earn_no_credit() -> None:
    rep = _run(_case("empty_quotes_do_not_count_for_consensus"), compat=False)
    assert _row(rep, "Human_1")["Critical_Recall"] == 1.0
    for rid in ("Human_2", "Human_3", "LLM_Reviewer"):
        assert _row(rep, rid)["Critical_Recall"] == 0.0
