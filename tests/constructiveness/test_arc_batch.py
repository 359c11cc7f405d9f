"""``constructiveness.arc_batch`` (``--protocol pooled``): the reviews of one paper in one call,
the rubric sent once, each review's ARCs exactly what ``constructiveness.arc`` gives for it."""

from __future__ import annotations

import json
import re
from typing import Any

from prism_review.dimensions.base import RunContext, get_dimension
from prism_review.dimensions.memo import MemoStore
from prism_review.judge.fence import fenced_blocks
from prism_review.records import Paper, Review, Section

TEXTS = {
    "sea": "The ablation in Table 3 lacks a baseline. Please add the BERT baseline.",
    "deepreview": "The writing is clear. Eq. 2 should define the loss terms.",
    "cyclereview": "Section 4 overstates the gains; report variance over seeds.",
}


def _arcs(review: str) -> list[dict[str, Any]]:
    """Deterministic ARCs of a review: one per sentence, scores from its length."""
    out = []
    for i, sent in enumerate(s for s in re.split(r"(?<=[.;])\s+", review.strip()) if s):
        n = len(sent)
        out.append({"arc_id": f"X{i}", "section": "Weaknesses", "comment_type": "suggestion" if i else "weakness",
                    "content": sent, "anchor_quote": sent, "D1_actionability": n % 3, "D2_specificity": (n // 3) % 3,
                    "D3_justification": (n // 5) % 3, "D4_solution": (n // 7) % 3, "D5_tone": 1 + n % 2})
    return out


def responder(body: dict[str, Any]) -> str:
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    reviews = fenced_blocks(user, "REVIEW")
    ids = re.findall(r"Review (R\d+):\n", user)
    if ids:
        return json.dumps({"reviews": [{"review_id": i, "atomic_comments": _arcs(t)}
                                       for i, t in zip(ids, reviews, strict=True)]})
    return json.dumps({"atomic_comments": _arcs(reviews[0])})


def _units(dim: Any) -> list[Any]:
    paper = Paper(paper_id="p1", venue="ICLR2024")
    reviews = {s: [Review(paper_id="p1", venue="ICLR2024", system=s, reviewer_id="LLM_Reviewer",
                          sections=[Section(name="Weaknesses", text=t)])] for s, t in TEXTS.items()}
    units = list(dim.work_units(paper, reviews, list(TEXTS)))
    dim.seal_group([units])  # the paper alone, as the runner seals a one-paper group
    return units


async def test_one_call_per_paper_gives_each_reviews_own_arcs(llm_server, loopback_judge, tmp_path):
    llm_server.set_responder(responder)
    dim = get_dimension("constructiveness")
    ref_ctx = RunContext(loopback_judge(), settings={"protocol": "reference"}, memo_store=MemoStore(tmp_path / "a"))
    ref = [(await dim.evaluate(u, ref_ctx))[0] for u in _units(dim)]
    n_ref = len(llm_server.requests)
    eco_ctx = RunContext(loopback_judge(), settings={"protocol": "pooled"}, memo_store=MemoStore(tmp_path / "b"))
    eco = [(await dim.evaluate(u, eco_ctx))[0] for u in _units(dim)]
    steps = [r.step for r in llm_server.requests]
    assert steps[:n_ref] == ["constructiveness.arc"] * 3
    assert steps[n_ref:] == ["constructiveness.arc_batch"]
    # the rubric (system message) is sent once for the paper, identical to the single-review one
    assert llm_server.requests[-1].messages[0] == llm_server.requests[0].messages[0]
    for r, e in zip(ref, eco, strict=True):
        assert r.status == e.status == "ok"
        assert e.extracted["arcs"] == r.extracted["arcs"]
        assert e.metrics == r.metrics
    # the call's usage is on one row only, so the rows still sum to what was spent
    assert sum(e.usage.calls for e in eco) == 1


async def test_a_review_left_out_of_the_reply_is_unscored_not_zero(llm_server, loopback_judge, tmp_path):
    def drop_last(body: dict[str, Any]) -> str:
        reply = json.loads(responder(body))
        reply["reviews"] = reply["reviews"][:-1]
        return json.dumps(reply)

    llm_server.set_responder(drop_last)
    dim = get_dimension("constructiveness")
    ctx = RunContext(loopback_judge(), settings={"protocol": "pooled"}, memo_store=MemoStore(tmp_path / "m"))
    rows = [(await dim.evaluate(u, ctx))[0] for u in _units(dim)]
    assert [r.step for r in llm_server.requests] == ["constructiveness.arc_batch"] * 2  # one re-ask
    by = {r.system: r for r in rows}
    # reviews are numbered in sorted key order: cyclereview R1, deepreview R2, sea R3 (dropped)
    assert by["sea"].status == "unscored" and all(v is None for v in by["sea"].metrics.values())
    assert by["cyclereview"].status == by["deepreview"].status == "ok"
