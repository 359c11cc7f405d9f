"""Depth rows when a step's reply parses but cannot be used: unscored, never a DoA of 0.

(These live outside ``tests/depth`` only because that folder was being rewritten in parallel.)
"""

from __future__ import annotations

from typing import Any, Literal

import pytest
from pydantic import BaseModel

from prism_review.dimensions.base import RunContext, get_dimension
from prism_review.judge.base import JudgeStep, StepResult
from prism_review.records import Paper, Review, Section

UNITS = ["The method is novel.", "Table 2 shows a 3.1 point gain.", "Please add ablations."]
SEGMENT = {"arguments": [{"index": i, "argument": t} for i, t in enumerate(UNITS)]}
CLASSIFY = {"classified_arguments": [
    {"index": 0, "argument": UNITS[0], "role": "Claim", "aspect": "Novelty"},
    {"index": 1, "argument": UNITS[1], "role": "Premise", "aspect": "Soundness"},
    {"index": 2, "argument": UNITS[2], "role": "Claim", "aspect": "Soundness"},
]}  # fmt: skip
# parsed fine, but about units the review does not have (wrong indices, other text)
CLASSIFY_ELSEWHERE = {"classified_arguments": [
    {"index": 7, "argument": "Something else entirely", "role": "Premise", "aspect": "Clarity"},
]}  # fmt: skip
GROUND = {"grounding_results": [{"index": 1, "premise": UNITS[1], "grounding_score": 2}]}
GROUND_ELSEWHERE = {"grounding_results": [{"index": 9, "premise": "not a premise here", "grounding_score": 2}]}


class Scripted:
    """Answers each step with a fixed reply, validated and finalised like the LLM judge does."""

    name = "scripted"
    mode: Literal["offline", "llm"] = "llm"

    def __init__(self, replies: dict[str, dict]) -> None:
        self.replies = replies

    async def run(self, step: JudgeStep[Any, Any], inp: BaseModel) -> StepResult[Any]:
        out = step.finalize(inp, step.Output.model_validate(self.replies[step.name]))
        return StepResult(step=step.name, output=out)

    def describe(self) -> dict[str, Any]:
        return {"judge": self.name}


async def _row(replies: dict[str, dict], compat: bool = False) -> Any:
    dim = get_dimension("depth")
    review = Review(paper_id="p1", venue="ICLR2024", system="human", reviewer_id="Human_1",
                    sections=[Section(name="Weaknesses", text=" ".join(UNITS))])  # fmt: skip
    (unit,) = dim.work_units(Paper(paper_id="p1", venue="ICLR2024"), {"human": [review]}, ["human"])
    judge = Scripted({"depth.segment": SEGMENT, "depth.classify": CLASSIFY, "depth.ground": GROUND} | replies)
    (row,) = await dim.evaluate(unit, RunContext(judge, settings={"compat": compat, "protocol": "reference"}))
    return row


async def test_usable_replies_score() -> None:
    row = await _row({})
    assert row.status == "ok" and row.metrics["r_premise"] == 1 / 3 and row.metrics["s_depth"] == 2.0


async def test_classification_matching_no_unit_is_unscored_not_doa_0() -> None:
    row = await _row({"depth.classify": CLASSIFY_ELSEWHERE})
    assert row.status == "unscored" and all(v is None for v in row.metrics.values())
    assert row.error.startswith("depth.classify: no entry of the reply matched")


async def test_grounding_scoring_no_premise_is_unscored_not_doa_0() -> None:
    row = await _row({"depth.ground": GROUND_ELSEWHERE})
    assert row.status == "unscored" and row.metrics["doa"] is None and row.metrics["s_depth"] is None
    assert row.error.startswith("depth.ground: the reply graded none of the premises")


async def test_compat_keeps_the_original_zeros(monkeypatch: pytest.MonkeyPatch) -> None:
    import prism_review.dimensions.depth as depth_dim

    # compat text comes from the raw review file; this in-memory review has none
    monkeypatch.setattr(depth_dim, "review_text", lambda review, dim, compat=False: " ".join(UNITS))
    # the original code kept going: unmatched grounding -> S_depth 0 -> DoA 0 (documented compat)
    row = await _row({"depth.ground": GROUND_ELSEWHERE}, compat=True)
    assert row.status == "ok" and row.metrics["s_depth"] == 0.0 and row.metrics["doa"] == 0.0
