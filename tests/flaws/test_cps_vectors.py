"""The reference vectors of ``cps.json`` (no compat cases exist in this file)."""

from __future__ import annotations

from typing import Any

import pytest

from prism_review.metrics import cps
from prism_review.testing.vectors import close
from prism_review.testing.vectors import vector_cases as cases


@pytest.mark.parametrize("case", cases("cps.json"))
def test_cps_vector(case: dict[str, Any]) -> None:
    fn = case["function"].split("::")[1]
    inp, exp = case["input"], case["expected"]
    assert not case.get("compat")
    if fn.startswith("calculate_cps"):
        args = inp["arguments"]
        got = {
            "calculate_cps": cps.calculate_cps(args),
            "calculate_icps": cps.calculate_icps(args),
            "calculate_ncps": cps.calculate_ncps(args),
            "calculate_section_breakdown": cps.section_breakdown(args),
        }
        close(got, exp, tol=1e-9 + 1e-4)
        close(got["calculate_cps"], exp["calculate_cps"], tol=1e-9)
    elif fn == "_find_position_exact":
        assert cps.find_position_exact(inp["anchor"], inp["text"]) == exp
    elif fn == "_find_position_fuzzy":
        assert cps.find_position_fuzzy(inp["anchor"], inp["text"]) == exp
    elif fn == "reorder_by_position":
        assert cps.reorder_by_position(inp["arguments"], inp["review_text"]) == exp
    elif fn == "build_cps_issue_bank":
        bank = cps.build_issue_bank(
            inp["micro_flaws_json"]["micro_flaws"], inp["evaluations_json"]["evaluations"]
        )
        assert {"issues": bank} == exp
    elif fn == "process_single_review_for_cps":
        got = cps.score_review(
            inp["reviewer_id"],
            inp["review_text"],
            inp["issue_bank"]["issues"],
            inp["mapping_llm_output"],
        )
        close(got, exp)
    elif fn == "_compute_cps":
        bank = cps.build_issue_bank(
            inp["micro_flaws_json"]["micro_flaws"], inp["evaluations_json"]["evaluations"]
        )
        reviews = dict(inp["human_reviews"])
        reviews["LLM_Reviewer"] = inp["llm_review_text"]
        got = cps.paper_cps(bank, reviews, inp["mapping_llm_output_by_reviewer"])
        close(got, exp)
    else:  # pragma: no cover
        pytest.fail(f"unhandled function {fn}")
