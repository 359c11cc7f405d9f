"""A rubric score the LLM judge leaves out is re-asked once and otherwise unscored, never 0
(``--compat`` keeps the reference's 0)."""

from __future__ import annotations

import copy
import json

from prism_review.dimensions.base import RunContext
from prism_review.dimensions.constructiveness import ConstructivenessDimension
from prism_review.judge.constructiveness.arc import ARCInput, ARCStep

from .test_llm_e2e import GOOD, _unit


def _without(field: str, index: int) -> dict:
    reply = copy.deepcopy(GOOD)
    del reply["atomic_comments"][index][field]
    return reply


async def test_missing_score_is_reasked_and_the_answer_used(llm_server, loopback_judge) -> None:
    llm_server.script(json.dumps(_without("D3_justification", 1)), json.dumps(GOOD))
    (row,) = await ConstructivenessDimension().evaluate(_unit(), RunContext(loopback_judge()))
    assert len(llm_server.requests) == 2
    reask = llm_server.requests[1].body["messages"][-1]["content"]
    assert "D3_justification" in reask
    assert row.status == "ok" and row.extracted["n_arcs_unscored"] == 0
    assert row.metrics["mcs"] == (0.2 + 0.8) / 2


async def test_still_missing_after_reask_is_unscored(llm_server, loopback_judge) -> None:
    # the answer still fails the step's check after the re-ask: the review is unscored with the
    # reason, not averaged over the ARCs that happen to have every score
    bad = json.dumps(_without("D3_justification", 1))
    llm_server.script(bad, bad)
    (row,) = await ConstructivenessDimension().evaluate(_unit(), RunContext(loopback_judge()))
    assert row.status == "unscored" and all(v is None for v in row.metrics.values())
    assert "check failed after one re-ask" in row.error and "D3_justification" in row.error


async def test_every_arc_missing_scores_is_unscored(llm_server, loopback_judge) -> None:
    reply = copy.deepcopy(GOOD)
    for arc in reply["atomic_comments"]:
        arc["D1_actionability"] = "high"
    llm_server.script(json.dumps(reply), json.dumps(reply))
    (row,) = await ConstructivenessDimension().evaluate(_unit(), RunContext(loopback_judge()))
    assert row.status == "unscored" and all(v is None for v in row.metrics.values())


async def test_compat_keeps_the_reference_zero_without_reask(llm_server, loopback_judge) -> None:
    llm_server.script(json.dumps(_without("D3_justification", 1)))
    inp = ARCInput(review_text="The baselines are weak; compare with adaptive softmax.", compat=True)
    res = await loopback_judge().run(ARCStep(), inp)
    assert len(llm_server.requests) == 1 and res.ok
    arc = res.output.atomic_comments[1]
    assert arc.D3_justification == 0 and arc.scores_missing == ["D3_justification"]
