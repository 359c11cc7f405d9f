"""DoA end to end through the real openai SDK against the loopback server (scripted replies).

Two reviews: one answered well (exact metrics), one whose classify replies stay malformed
after the judge's re-ask (row unscored, null metrics, never 0).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from prism_review.dimensions.base import RunContext, get_dimension
from prism_review.judge.depth import prompts
from prism_review.records import Paper, Review, Section

GOOD_UNITS = [
    "The method is novel.",
    "Table 2 shows a 3.1 point gain on ImageNet.",
    "Please add ablations.",
]
BAD_UNITS = ["The writing is unclear.", "Section 3 omits the loss."]


def responder(body: dict[str, Any]) -> str:
    system = body["messages"][0]["content"]
    user = body["messages"][1]["content"]
    good = "ImageNet" in user
    if system == prompts.SEGMENT_SYSTEM:
        units = GOOD_UNITS if good else BAD_UNITS
        return json.dumps({"arguments": [{"index": i, "argument": t} for i, t in enumerate(units)]})
    if system == prompts.CLASSIFY_SYSTEM:
        if not good:
            return "I think the first one is a claim, and the second is... hard to say."
        return json.dumps(
            {
                "classified_arguments": [
                    {
                        "index": 0,
                        "argument": GOOD_UNITS[0],
                        "role": "Claim",
                        "aspect": "Contribution",
                    },
                    {
                        "index": 1,
                        "argument": "Table 2 gain",
                        "role": "Premise",
                        "aspect": "Soundness",
                    },
                    {"index": 2, "argument": GOOD_UNITS[2], "role": "Claim", "aspect": "Soundness"},
                ]
            }
        )
    if system == prompts.GROUND_SYSTEM:
        return json.dumps(
            {"grounding_results": [{"index": 1, "premise": "(paraphrased)", "grounding_score": 2}]}
        )
    raise AssertionError(f"unexpected prompt: {system[:60]}")


def _unit(dim: Any, text: str, rid: str) -> Any:
    paper = Paper(paper_id="p1", venue="ICLR2024")
    review = Review(
        paper_id="p1",
        venue="ICLR2024",
        system="human",
        reviewer_id=rid,
        sections=[Section(name="Weaknesses", text=text)],
    )
    (unit,) = dim.work_units(paper, {"human": [review]}, ["human"])
    return unit


async def test_depth_through_loopback_llm(llm_server: Any, loopback_judge: Any) -> None:
    llm_server.set_responder(responder)
    judge = loopback_judge()
    dim = get_dimension("depth")
    ctx = RunContext(judge, settings={"protocol": "reference"})

    (good,) = await dim.evaluate(_unit(dim, " ".join(GOOD_UNITS), "Human_1"), ctx)
    assert good.status == "ok", good.error
    m = good.metrics
    # 3 units, 1 premise graded 2: R = 1/3, S = 2 -> DoA = 0.5, product = 1/3
    assert m["n_units"] == 3 and m["n_premises"] == 1
    assert m["r_premise"] == pytest.approx(1 / 3)
    assert m["s_depth"] == 2
    assert m["doa"] == pytest.approx(0.5)
    assert m["doa_product"] == pytest.approx(1 / 3)
    assert m["Ratio_All_Soundness"] == pytest.approx(2 / 3)
    assert m["Ratio_Prem_Soundness"] == 1.0
    assert [u["grounding_score"] for u in good.extracted["units"]] == [None, 2, None]
    assert good.usage.calls == 3

    n_before = len(llm_server.requests)
    (bad,) = await dim.evaluate(_unit(dim, " ".join(BAD_UNITS), "Human_2"), ctx)
    assert bad.status == "unscored"
    assert "depth.classify" in (bad.error or "")
    assert all(v is None for v in bad.metrics.values())
    # segment + classify + one re-ask of classify, each malformed reply repeated (the model's
    # own, not a fault) before it counts; grounding never asked
    steps = [r.step for r in llm_server.requests[n_before:]]
    assert steps == ["depth.segment"] + ["depth.classify"] * 4
