"""The reference vectors of ``cps.json`` (no compat cases exist in this file).

The vectors are the original's outputs. They hold as recorded under ``compat``; in the default
(clean) mode the only difference is that an nCPS whose iCPS is 0 (no valid flaw mentioned, so no
ordering to judge) is None instead of 0 (spec §14.4, revised), which :func:`_clean` checks.
"""

from __future__ import annotations

from typing import Any

import pytest

from prism_review.metrics import cps
from prism_review.testing.vectors import close
from prism_review.testing.vectors import vector_cases as cases


def _clean(got: Any, compat: Any) -> None:
    """Clean results equal the compat ones, except an nCPS with a zero iCPS, which is None."""
    if isinstance(compat, dict):
        assert isinstance(got, dict) and set(got) == set(compat)
        icps = compat.get("ICPS", compat.get("ICPS_s"))
        for k, v in compat.items():
            if k in ("nCPS", "nCPS_s") and icps == 0:
                assert got[k] is None, f"{k} with iCPS 0 must be None, got {got[k]!r}"
            else:
                _clean(got[k], v)
    elif isinstance(compat, list):
        assert isinstance(got, list) and len(got) == len(compat)
        for g, c in zip(got, compat, strict=True):
            _clean(g, c)
    else:
        assert got == compat


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
            "calculate_ncps": cps.calculate_ncps(args, compat=True),
            "calculate_section_breakdown": cps.section_breakdown(args, compat=True),
        }
        close(got, exp, tol=1e-9 + 1e-4)
        close(got["calculate_cps"], exp["calculate_cps"], tol=1e-9)
        clean_ncps = cps.calculate_ncps(args)
        assert clean_ncps is None if got["calculate_icps"] == 0 else clean_ncps == got["calculate_ncps"]
        _clean(cps.section_breakdown(args), got["calculate_section_breakdown"])
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
            compat=True,
        )
        close(got, exp)
        _clean(
            cps.score_review(
                inp["reviewer_id"],
                inp["review_text"],
                inp["issue_bank"]["issues"],
                inp["mapping_llm_output"],
            ),
            got,
        )
    elif fn == "_compute_cps":
        bank = cps.build_issue_bank(
            inp["micro_flaws_json"]["micro_flaws"], inp["evaluations_json"]["evaluations"]
        )
        reviews = dict(inp["human_reviews"])
        reviews["LLM_Reviewer"] = inp["llm_review_text"]
        got = cps.paper_cps(bank, reviews, inp["mapping_llm_output_by_reviewer"], compat=True)
        close(got, exp)
        clean = cps.paper_cps(bank, reviews, inp["mapping_llm_output_by_reviewer"])
        by_id = {r["Reviewer_ID"]: r for r in clean["Reviewer_Rankings"]}
        _clean([by_id[r["Reviewer_ID"]] for r in got["Reviewer_Rankings"]], got["Reviewer_Rankings"])
    else:  # pragma: no cover
        pytest.fail(f"unhandled function {fn}")
