"""``depth.analyse`` (economical protocol): one call whose answer becomes exactly what the three
reference steps give, so the same decisions give the same units and metrics under both protocols.
"""

from __future__ import annotations

import json
from typing import Any

from prism_review.dimensions.base import RunContext, get_dimension
from prism_review.judge.depth import prompts
from prism_review.judge.depth.analyse import AnalysedUnit, AnalyseOutput, split_analysis
from prism_review.judge.depth.steps import Unit
from prism_review.records import Paper, Review, Section

#: one review's decisions: (unit text, role, aspect, grounding of a premise)
DECISIONS = [
    ("The method is novel.", "Claim", "Contribution", None),
    ("Table 2 shows a 3.1 point gain on ImageNet.", "Premise", "Soundness", 2),
    ("The notation in Section 3 is inconsistent with Eq. 4.", "Premise", "Clarity", 1),
    ("Please add ablations.", "Claim", "Soundness", None),
]
TEXT = " ".join(t for t, *_ in DECISIONS)


def responder(body: dict[str, Any]) -> str:
    """The same decisions, asked step by step (reference) or all at once (economical)."""
    system = body["messages"][0]["content"]
    if system == prompts.ANALYSE_SYSTEM:
        return json.dumps({"arguments": [
            # a Claim's grounding score is written (the schema asks for one) but never read
            {"index": i, "argument": t, "role": r, "aspect": a, "grounding_score": g if g is not None else 2}
            for i, (t, r, a, g) in enumerate(DECISIONS)]})
    if system == prompts.SEGMENT_SYSTEM:
        return json.dumps({"arguments": [{"index": i, "argument": t} for i, (t, *_) in enumerate(DECISIONS)]})
    if system == prompts.CLASSIFY_SYSTEM:
        return json.dumps({"classified_arguments": [
            {"index": i, "argument": t, "role": r, "aspect": a} for i, (t, r, a, _) in enumerate(DECISIONS)]})
    if system == prompts.GROUND_SYSTEM:
        return json.dumps({"grounding_results": [
            {"index": i, "premise": t, "grounding_score": g} for i, (t, _, _, g) in enumerate(DECISIONS)
            if g is not None]})
    raise AssertionError(f"unexpected prompt: {system[:60]}")


def _unit(dim: Any, text: str) -> Any:
    paper = Paper(paper_id="p1", venue="ICLR2024")
    review = Review(paper_id="p1", venue="ICLR2024", system="human", reviewer_id="Human_1",
                    sections=[Section(name="Weaknesses", text=text)])
    (unit,) = dim.work_units(paper, {"human": [review]}, ["human"])
    return unit


async def test_one_call_gives_the_three_steps_results(llm_server, loopback_judge):
    llm_server.set_responder(responder)
    dim = get_dimension("depth")
    (ref,) = await dim.evaluate(_unit(dim, TEXT), RunContext(loopback_judge(), settings={"protocol": "reference"}))
    n_ref = len(llm_server.requests)
    (eco,) = await dim.evaluate(_unit(dim, TEXT), RunContext(loopback_judge(), settings={"protocol": "economical"}))
    steps = [r.step for r in llm_server.requests]
    assert steps[:n_ref] == ["depth.segment", "depth.classify", "depth.ground"]
    assert steps[n_ref:] == ["depth.analyse"]
    assert ref.status == eco.status == "ok"
    assert eco.extracted["units"] == ref.extracted["units"]
    assert eco.metrics == ref.metrics
    assert [u["grounding_score"] for u in eco.extracted["units"]] == [None, 2, 1, None]
    assert eco.usage.calls == 1 and ref.usage.calls == 3


async def test_an_analysis_without_units_is_reasked_then_unscored(llm_server, loopback_judge):
    llm_server.set_responder(lambda body: json.dumps({"arguments": []}))
    dim = get_dimension("depth")
    (row,) = await dim.evaluate(_unit(dim, TEXT), RunContext(loopback_judge(), settings={"protocol": "economical"}))
    assert row.status == "unscored" and "depth.analyse" in (row.error or "")
    assert all(v is None for v in row.metrics.values())
    assert [r.step for r in llm_server.requests] == ["depth.analyse", "depth.analyse"]


def test_split_maps_the_reply_onto_the_dimension_units():
    out = AnalyseOutput(arguments=[
        AnalysedUnit(index=7, argument="  A claim.  ", role="claim", aspect="novelty", grounding_score=1),
        AnalysedUnit(index=None, argument="   ", role="Premise", aspect="Soundness", grounding_score=2),
        AnalysedUnit(index=3, argument="Eq. 2 is wrong.", role="premise", aspect="soundness", grounding_score=5),
    ])
    seg, classify, ground = split_analysis("A claim. Eq. 2 is wrong.", out)
    units = seg.units()
    assert [(u.index, u.text) for u in units] == [(0, "A claim."), (1, "Eq. 2 is wrong.")]
    cls = classify(units).classified_arguments
    assert [(c.role, c.aspect, c.matched) for c in cls] == [("Claim", "Contribution", True),
                                                            ("Premise", "Soundness", True)]
    # grounding read for premises only, clamped to [0, 2] as the ground step clamps it
    assert ground([Unit(index=1, text="Eq. 2 is wrong.")]).scores() == {1: 2}
