"""The flaws dimension through the real SDK against the loopback server.

Covers the repair path (a malformed Step 1 reply → one re-ask with the original instructions)
and the unknown-reviewer-id path (risk F7: → one re-ask stating the problem), then checks the
metrics against values computed by hand from the scripted replies.
"""

from __future__ import annotations

import json
import math

from prism_review.dimensions.base import RunContext, get_dimension

from .test_dimension import _data

#: these tests script the reference protocol's per-unit calls (economical: test_economical.py)
REF = {"protocol": "reference"}

GOOD_FLAWS = {
    "micro_flaws": [
        {
            "flaw_id": "F01",
            "macro_topic": "6. Methodology & Theoretical Soundness - Lack of Intuition/Justification",
            "core_summary": "The gating module is not motivated.",
            "raw_arguments": {
                "Human_1": "The gating module in Section 3 is not motivated.",
                "Human_3": "The gating module in Section 3 lacks motivation.",
            },
        },
        {
            "flaw_id": "F02",
            "macro_topic": "2. Clarity & Presentation - Grammar & Typos",
            "core_summary": "Typos.",
            "raw_arguments": {"Human_1": "Several typos."},
        },
        {
            "flaw_id": "F03",
            "macro_topic": "4. Experimental Design & Evaluation - Limited/Biased Datasets",
            "core_summary": "Only one benchmark.",
            "raw_arguments": {"LLM_Reviewer": "Table 1 reports accuracy on only one benchmark."},
        },
    ]
}
WRONG_IDS = json.loads(json.dumps(GOOD_FLAWS))
WRONG_IDS["micro_flaws"][0]["raw_arguments"] = {"Human_1": "x", "Reviewer_3": "y"}
EVALS = {
    "evaluations": {
        "F01": {"is_valid": True, "severity": "Critical"},
        "F02": {"is_valid": True, "severity": "minor"},
        "F03": {"is_valid": False, "severity": "None"},
    }
}
MAP_H1 = {  # listed out of order: position recovery restores F01 before F02
    "mentions": [
        {
            "issue_id": "F02",
            "section_name": "Weaknesses",
            "anchor_quote": "Several typos",
            "content": "typos",
        },
        {
            "issue_id": "F01",
            "section_name": "Weaknesses",
            "anchor_quote": "The gating module in Section 3 is not motivated",
            "content": "m",
        },
    ]
}
MAP_H3 = {
    "mentions": [
        {
            "issue_id": "F01",
            "section_name": "Weaknesses",
            "anchor_quote": "lacks motivation",
            "content": "m",
        }
    ]
}
MAP_LLM: dict[str, list[object]] = {"mentions": []}


async def test_flaws_unit_through_llm_with_repair_and_unknown_ids(llm_server, loopback_judge):
    llm_server.script(
        "Here are the flaws: oops, no JSON at all.",  # malformed → the same request again
        "Here are the flaws: oops, no JSON at all.",  # repeated: the model's → repair re-ask
        json.dumps(WRONG_IDS),  # parses, but uses an unknown reviewer id → check re-ask
        json.dumps(GOOD_FLAWS),
        json.dumps(EVALS),
        json.dumps(MAP_H1),
        json.dumps(MAP_H3),
        json.dumps(MAP_LLM),
    )
    judge = loopback_judge()
    dim = get_dimension("flaws")
    paper, reviews = _data()
    unit = next(iter(dim.work_units(paper, reviews, ["human", "sea"])))
    rows = await dim.evaluate(unit, RunContext(judge, settings=REF))

    reqs = llm_server.requests
    assert len(reqs) == 8
    assert reqs[1].body == reqs[0].body  # a malformed reply is first asked again as is
    # the repair re-ask carries the original instructions and the invalid reply
    assert reqs[2].messages[0] == reqs[0].messages[0]
    assert any("oops" in m["content"] for m in reqs[2].messages)
    # the check re-ask states the unknown id and the ids to use
    last = reqs[3].messages[-1]["content"]
    assert "Reviewer_3" in last and "Human_1, Human_3, LLM_Reviewer" in last
    # Step 1 saw the pool with exact ids; Step 2 saw the paper text
    assert "[REVIEWER: Human_3]" in reqs[0].messages[1]["content"]
    assert "[PAPER TEXT]" in reqs[4].messages[1]["content"]

    assert all(r.status == "ok" for r in rows)
    m = {r.extracted["pool_id"]: r.metrics for r in rows}
    assert (m["Human_1"]["critical_recall"], m["Human_1"]["minor_recall"]) == (1.0, 1.0)
    assert (m["Human_3"]["critical_recall"], m["Human_3"]["minor_recall"]) == (1.0, 0.0)
    assert (m["LLM_Reviewer"]["critical_recall"], m["LLM_Reviewer"]["minor_recall"]) == (0.0, 0.0)
    assert m["LLM_Reviewer"]["hallucination_rate"] == 1.0
    assert m["Human_1"]["hallucination_rate"] == 0.0
    raw_h1 = 2 + 1 / math.log2(3)
    assert m["Human_1"]["raw_cps"] == round(raw_h1, 4) and m["Human_1"]["ncps"] == 1.0
    assert m["Human_3"]["raw_cps"] == 2.0
    # the LLM review mentions no valid flaw: no ordering to judge, so nCPS is null, counted apart
    assert m["LLM_Reviewer"]["ncps"] is None and m["LLM_Reviewer"]["no_valid_flaw"] == 1
    assert m["LLM_Reviewer"]["cps_norm"] == 0.0 and m["Human_1"]["no_valid_flaw"] == 0
    assert m["Human_3"]["cps_norm"] == round(2.0 / round(raw_h1, 4), 4)
    assert m["Human_1"]["cps_norm"] == 1.0
    # the mapping step only knew the bank of valid issues
    assert '"F03"' not in reqs[5].messages[1]["content"]
    assert "Reviewer_3" not in json.dumps(rows[0].extracted["micro_flaws"])


async def test_panel_unit_through_llm_with_an_unknown_panel_id(llm_server, loopback_judge):
    """A paper without humans: the other systems are Panel_k; "Panel_7" is refused and re-asked."""
    from .test_panel_reference import _panel_data

    flaws = {
        "micro_flaws": [
            {
                "flaw_id": "F01",
                "macro_topic": "4. Experimental Design & Evaluation - Limited/Biased Datasets",
                "core_summary": "One dataset.",
                "raw_arguments": {
                    "Panel_1": "Only one dataset is used.",
                    "LLM_Reviewer": "Only one dataset is used in the evaluation.",
                },
            },
            {
                "flaw_id": "F02",
                "macro_topic": "6. Methodology & Theoretical Soundness - Lack of Intuition/Justification",
                "core_summary": "Gating not motivated.",
                "raw_arguments": {"Panel_2": "The gating lacks motivation."},
            },
        ]
    }
    wrong = json.loads(json.dumps(flaws))
    wrong["micro_flaws"][1]["raw_arguments"] = {"Panel_7": "The gating lacks motivation."}
    evals = {
        "evaluations": {
            "F01": {"is_valid": True, "severity": "Critical"},
            "F02": {"is_valid": True, "severity": "Minor"},
        }
    }
    empty: dict[str, list[object]] = {"mentions": []}
    llm_server.script(
        json.dumps(wrong), json.dumps(flaws), json.dumps(evals), *[json.dumps(empty)] * 3
    )
    paper, reviews = _panel_data()
    dim = get_dimension("flaws")
    unit = next(iter(dim.work_units(paper, reviews, ["zeta"])))
    rows = await dim.evaluate(unit, RunContext(loopback_judge(), settings=REF))
    reqs = llm_server.requests
    assert len(reqs) == 6  # consolidate, its re-ask, validate, one map per pooled reviewer
    assert "[REVIEWER: Panel_1]" in reqs[0].messages[1]["content"]
    last = reqs[1].messages[-1]["content"]
    assert "Panel_7" in last and "Panel_1, Panel_2, LLM_Reviewer" in last
    assert len(rows) == 1 and rows[0].status == "ok" and rows[0].system == "zeta"
    assert rows[0].extracted["panel"] == {"Panel_1": "alpha", "Panel_2": "mid"}
    m = rows[0].metrics
    # zeta (LLM_Reviewer) raised the critical dataset flaw, not the minor motivation one
    assert (m["critical_recall"], m["minor_recall"], m["hallucination_rate"]) == (1.0, 0.0, 0.0)
    assert m["critical_recall_cw"] == 1.0 and m["gt_valid"] == 2


async def test_valid_flaw_without_severity_is_reasked(llm_server, loopback_judge):
    """A flaw judged valid with no usable severity would silently leave the ground truth:
    Step 2 is re-asked once, stating which flaws need Critical or Minor."""
    unrated = json.loads(json.dumps(EVALS))
    unrated["evaluations"]["F01"]["severity"] = "moderate"
    llm_server.script(
        json.dumps(GOOD_FLAWS),
        json.dumps(unrated),  # F01 valid, severity unreadable → check re-ask
        json.dumps(EVALS),
        json.dumps(MAP_H1),
        json.dumps(MAP_H3),
        json.dumps(MAP_LLM),
    )
    dim = get_dimension("flaws")
    paper, reviews = _data()
    unit = next(iter(dim.work_units(paper, reviews, ["human", "sea"])))
    rows = await dim.evaluate(unit, RunContext(loopback_judge(), settings=REF))
    reqs = llm_server.requests
    assert len(reqs) == 6
    assert "F01" in reqs[2].messages[-1]["content"] and "severity" in reqs[2].messages[-1]["content"]
    m = {r.extracted["pool_id"]: r.metrics for r in rows}
    assert m["Human_1"]["critical_recall"] == 1.0  # F01 counted as Critical after the re-ask
