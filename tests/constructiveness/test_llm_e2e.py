"""The ARC step through the real SDK against the loopback server (scripted replies)."""

from __future__ import annotations

import json
from pathlib import Path

from prism_review.agreement.revutil import measure
from prism_review.dimensions.base import RunContext, WorkUnit
from prism_review.dimensions.constructiveness import ConstructivenessDimension
from prism_review.judge.constructiveness.prompt import RUBRIC
from prism_review.records import Paper, Review, Section
from prism_review.testing.llm_server import Fault

REVIEW = Review(
    paper_id="p1",
    venue="ICLR2024",
    system="treereview",
    reviewer_id="Tree_LLM",
    sections=[
        Section(name="Summary", text="The paper proposes a sparse gating method for softmax."),
        Section(name="Weaknesses", text="The baselines are weak; compare with adaptive softmax."),
    ],
)
GOOD = {
    "atomic_comments": [
        {
            "arc_id": "ARC_09",
            "section": "Summary",
            "comment_type": "observation",
            "content": "Summarises the method.",
            "anchor_quote": "proposes a sparse gating method",
            "D1_actionability": 0,
            "D2_specificity": 1,
            "D3_justification": 0,
            "D4_solution": 0,
            "D5_tone": 1,
        },
        {
            "arc_id": "ARC_10",
            "section": "Weaknesses",
            "comment_type": "weakness",
            "content": "Weak baselines.",
            "anchor_quote": "a paraphrase that is not in the review",
            "D1_actionability": 2,
            "D2_specificity": 2,
            "D3_justification": 1,
            "D4_solution": 2,
            "D5_tone": 1,
        },
    ]
}


def _unit() -> WorkUnit:
    paper = Paper(paper_id="p1", venue="ICLR2024")
    return WorkUnit(
        key="ICLR2024/p1/constructiveness/treereview/Tree_LLM",
        venue="ICLR2024",
        paper_id="p1",
        system="treereview",
        paper=paper,
        reviews=[REVIEW],
        extra={"meta": {"decision": "Accept (poster)", "avg_rating": 6.5}},
    )


async def test_malformed_then_valid_reask_keeps_rubric(llm_server, loopback_judge) -> None:
    # the malformed reply repeated: the model's own, so the repair re-ask follows
    llm_server.script(Fault.malformed(), Fault.malformed(), json.dumps(GOOD))
    judge = loopback_judge(max_tokens=8000)
    rows = await ConstructivenessDimension().evaluate(_unit(), RunContext(judge))
    (row,) = rows
    assert row.status == "ok", row.error
    assert len(llm_server.requests) == 3
    first, again, second = (r.body for r in llm_server.requests)
    assert again == first
    # K2: the re-ask repeats the full original messages, rubric included
    assert RUBRIC in first["messages"][0]["content"]
    assert second["messages"][0] == first["messages"][0]
    assert second["messages"][1] == first["messages"][1]
    assert second["messages"][-2]["role"] == "assistant"
    # K1: the budget is the per-call adaptive value for this short review
    assert first["max_tokens"] == 3000 == second["max_tokens"]
    assert [a["arc_id"] for a in row.extracted["arcs"]] == ["ARC_01", "ARC_02"]
    assert [a["anchor_verbatim"] for a in row.extracted["arcs"]] == [True, False]
    assert row.metrics["verbatim_rate"] == 0.5
    assert row.metrics["mcs"] == (0.2 + 0.8) / 2
    assert row.metrics["sd"] == 0.5 and row.metrics["n_weaknesses"] == 1
    assert row.meta["avg_rating"] == 6.5


async def test_two_bad_replies_are_unscored_not_zero(llm_server, loopback_judge) -> None:
    llm_server.script(Fault.malformed(), "still not json")
    rows = await ConstructivenessDimension().evaluate(_unit(), RunContext(loopback_judge()))
    (row,) = rows
    assert row.status == "unscored"
    assert all(v is None for v in row.metrics.values())


async def test_zero_arcs_triggers_check_reask(llm_server, loopback_judge) -> None:
    llm_server.script(json.dumps({"atomic_comments": []}), json.dumps(GOOD))
    (row,) = await ConstructivenessDimension().evaluate(_unit(), RunContext(loopback_judge()))
    assert row.status == "ok" and row.metrics["n_arcs"] == 2
    assert "at least one ARC" in llm_server.requests[1].body["messages"][-1]["content"]


async def test_revutil_agreement_through_llm(llm_server, loopback_judge, tmp_path: Path) -> None:
    one = {"atomic_comments": [dict(GOOD["atomic_comments"][1])]}
    llm_server.set_responder(lambda body: json.dumps(one))
    rows = []
    for i, (act, gs) in enumerate([(5, 5), (1, 1), (3, 4)]):
        rows.append(
            {
                "id": f"r{i}",
                "paper_id": f"p{i}",
                "review_point": f"Point number {i} here.",
                "labels": {
                    "actionability": {"majority": act},
                    "grounding_specificity": {"majority": gs},
                    "verifiability": {"majority": "X"},
                    "helpfulness": {"majority": 3},
                    "professional_tone": {"majority": 1},
                },
            }
        )
    path = tmp_path / "rv.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    res = await measure(path, loopback_judge(), None)
    assert res["n.unscored"] == 0 and res["n.points"] == 3
    assert res["revutil.tone.accuracy"] == 1.0
    assert res["n.verifiability_x"] == 3 and res["revutil.verifiability.mean_d3_x"] == 1.0
    # a constant judge has no rank correlation: reported as null, not 0
    assert res["revutil.actionability.spearman"] is None
    # every request was score-only: the point is listed for scoring, not re-segmented
    assert all("already split" in r.body["messages"][1]["content"] for r in llm_server.requests)
