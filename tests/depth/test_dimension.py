"""The depth dimension with a scripted in-process judge: rows, unscored handling, compat."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from prism_review.dimensions.base import RunContext, get_dimension
from prism_review.dimensions.depth import metrics_from_row
from prism_review.judge.base import JudgeStep, StepResult
from prism_review.records import Paper, Review, Section

#: these tests drive the three DoA steps one by one: the reference protocol
REF = {"protocol": "reference"}

class ScriptedJudge:
    """Answers each step with a fixed raw dict (validated + finalised), or unscored for None."""

    name = "scripted"
    mode = "llm"

    def __init__(self, replies: dict[str, dict | None]) -> None:
        self.replies = replies
        self.calls: list[str] = []

    async def run(self, step: JudgeStep[Any, Any], inp: BaseModel) -> StepResult[Any]:
        self.calls.append(step.name)
        raw = self.replies[step.name]
        if raw is None:
            return StepResult(step=step.name, status="unscored", error="unparseable")
        return StepResult(
            step=step.name, output=step.finalize(inp, step.Output.model_validate(raw))
        )

    def describe(self) -> dict[str, Any]:
        return {"judge": self.name}


TEXT_UNITS = ["The method is novel.", "Table 2 shows a 3.1 point gain.", "Please add ablations."]
GOOD = {
    "depth.segment": {"arguments": [{"index": i, "argument": t} for i, t in enumerate(TEXT_UNITS)]},
    "depth.classify": {
        "classified_arguments": [
            {"index": 2, "argument": "", "role": "claim", "aspect": "soundness"},
            {"index": 0, "argument": "", "role": "Claim", "aspect": "Novelty"},
            # no index: attached by folded text (case, trailing period)
            {
                "argument": "table 2 shows a 3.1 point gain",
                "role": "PREMISE",
                "aspect": "Soundness",
            },
        ]
    },
    "depth.ground": {
        "grounding_results": [{"index": 1, "premise": "paraphrase", "grounding_score": 2}]
    },
}


def _unit(system: str = "human") -> Any:
    paper = Paper(paper_id="p1", venue="ICLR2024")
    review = Review(
        paper_id="p1",
        venue="ICLR2024",
        system=system,
        reviewer_id="Human_1" if system == "human" else "LLM_Reviewer",
        sections=[Section(name="Strengths", text=" ".join(TEXT_UNITS))],
    )
    dim = get_dimension("depth")
    units = list(dim.work_units(paper, {system: [review]}, [system]))
    assert len(units) == 1
    units[0].extra["meta"] = {"decision": "accept"}
    return dim, units[0]


async def test_ok_row_exact_metrics() -> None:
    dim, unit = _unit()
    judge = ScriptedJudge(GOOD)
    rows = await dim.evaluate(unit, RunContext(judge, settings=REF))
    assert judge.calls == ["depth.segment", "depth.classify", "depth.ground"]
    (row,) = rows
    assert (
        row.status == "ok" and row.reviewer_id == "Human_1" and row.meta == {"decision": "accept"}
    )
    m = row.metrics
    # 3 units, 1 premise graded 2: R = 1/3, S = 2, d = 1 -> HM = 2*(1/3)/(4/3) = 0.5
    assert m["r_premise"] == pytest.approx(1 / 3)
    assert m["s_depth"] == 2
    assert m["doa"] == pytest.approx(0.5)
    assert m["doa_product"] == pytest.approx(1 / 3)
    assert (m["n_units"], m["n_premises"], m["n_claims"]) == (3, 1, 2)
    assert m["Ratio_All_Soundness"] == pytest.approx(2 / 3)
    assert m["Ratio_All_Contribution"] == pytest.approx(1 / 3)
    assert m["Ratio_Prem_Soundness"] == 1.0
    units = row.extracted["units"]
    assert [u["role"] for u in units] == ["Claim", "Premise", "Claim"]
    assert [u["grounding_score"] for u in units] == [None, 2, None]
    assert metrics_from_row(row.extracted) == m  # re-scorable from the log


async def test_no_premise_skips_grounding() -> None:
    dim, unit = _unit("sea")
    replies = dict(GOOD)
    replies["depth.classify"] = {
        "classified_arguments": [{"index": i, "role": "Claim", "aspect": "Other"} for i in range(3)]
    }
    judge = ScriptedJudge(replies)
    (row,) = await dim.evaluate(unit, RunContext(judge, settings=REF))
    assert "depth.ground" not in judge.calls
    assert row.metrics["doa"] == 0.0 and row.metrics["r_premise"] == 0.0
    assert row.reviewer_id == "LLM_Reviewer"


@pytest.mark.parametrize("bad", ["depth.segment", "depth.classify", "depth.ground"])
async def test_unscored_step_gives_null_metrics(bad: str) -> None:
    dim, unit = _unit()
    replies = dict(GOOD)
    replies[bad] = None
    (row,) = await dim.evaluate(unit, RunContext(ScriptedJudge(replies), settings=REF))
    assert row.status == "unscored"
    assert bad in (row.error or "")
    assert row.metrics["doa"] is None and row.metrics["r_premise"] is None
    assert all(v is None for v in row.metrics.values())


async def test_compat_uses_reference_fallbacks(monkeypatch: pytest.MonkeyPatch) -> None:
    import prism_review.dimensions.depth as D

    monkeypatch.setattr(D, "review_text", lambda review, dim, compat=False: "One. Two! Three?")
    dim, unit = _unit()
    replies = {"depth.segment": None, "depth.classify": None, "depth.ground": None}
    (row,) = await dim.evaluate(unit, RunContext(ScriptedJudge(replies), settings={"compat": True}))
    assert row.status == "ok"
    assert [u["argument"] for u in row.extracted["units"]] == ["One.", "Two!", "Three?"]
    assert all(u["role"] == "Claim" and u["aspect"] == "Other" for u in row.extracted["units"])
    assert row.metrics["doa"] == 0.0 and row.metrics["n_units"] == 3
    assert row.extracted["steps"]["depth.classify"]["fallback"] is True


async def test_compat_grounding_fallback_is_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    import prism_review.dimensions.depth as D

    monkeypatch.setattr(D, "review_text", lambda review, dim, compat=False: " ".join(TEXT_UNITS))
    dim, unit = _unit()
    replies = dict(GOOD)
    replies["depth.classify"] = {
        "classified_arguments": [
            {"argument": t, "role": "Premise", "aspect": "Soundness"} for t in TEXT_UNITS
        ]
    }
    replies["depth.ground"] = None
    (row,) = await dim.evaluate(unit, RunContext(ScriptedJudge(replies), settings={"compat": True}))
    # R = 1, S = 0 -> DoA 0 (the original's all-zero grounding fallback)
    assert row.metrics["r_premise"] == 1.0 and row.metrics["s_depth"] == 0.0
    assert row.metrics["doa"] == 0.0


async def test_empty_text_is_skipped() -> None:
    dim = get_dimension("depth")
    paper = Paper(paper_id="p", venue="ICLR2024")
    review = Review(paper_id="p", venue="ICLR2024", system="sea", reviewer_id="LLM_Reviewer")
    (unit,) = dim.work_units(paper, {"sea": [review]}, ["sea"])
    (row,) = await dim.evaluate(unit, RunContext(ScriptedJudge({}), settings=REF))
    assert row.status == "skipped" and row.metrics == {}


def test_work_units_one_per_review() -> None:
    dim = get_dimension("depth")
    paper = Paper(paper_id="p", venue="ICLR2024")
    hs = [
        Review(paper_id="p", venue="ICLR2024", system="human", reviewer_id=f"Human_{k}")
        for k in (1, 2, 3)
    ]
    llm = Review(paper_id="p", venue="ICLR2024", system="sea", reviewer_id="LLM_Reviewer")
    units = list(dim.work_units(paper, {"human": hs, "sea": [llm]}, ["human", "sea"]))
    assert [u.reviews[0].reviewer_id for u in units] == [
        "Human_1",
        "Human_2",
        "Human_3",
        "LLM_Reviewer",
    ]
    assert len({u.key for u in units}) == 4
    assert [s.key for s in dim.metrics if s.headline] == ["doa"]  # Table 1 shows DoA only
    assert dim.metrics[0].label == "DoA"
