"""The reference's ``score_review`` cases replayed through the real SDK and the loopback server.

Each case's canned replies are served in order. The reference retries once when attempt 1 fails
to parse or yields no ARC; here the LLM layer sends an unusable reply's request again first (a
transient fault, ``docs/fidelity.md`` Faults), then re-asks with the full original messages
(repair re-ask, or the step's ``check`` re-ask for zero ARCs), so the ARCs match. A reply that "raised" is served as an HTTP 500, which the transport retries.
Both attempts failing is ``failed`` in the reference and *unscored* here (never scored 0); when
the repaired reply parses but holds no ARC, the check re-ask adds a third call.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prism_review.judge.constructiveness.arc import ARCInput, ARCStep
from prism_review.testing.llm_server import Fault
from prism_review.testing.shared import SHARED

VEC = Path(f"{SHARED}/spec/vectors/constructiveness_metrics.json")
CASES = (
    [c for c in json.loads(VEC.read_text())["cases"] if c["function"].endswith("score_review")]
    if VEC.exists()
    else []
)
pytestmark = pytest.mark.skipif(not CASES, reason="reference vectors not available")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["name"])
async def test_score_review_case(case: dict, llm_server, loopback_judge) -> None:
    i, exp = case["input"], case["expected"]
    replies = [Fault.status(500) if isinstance(r, dict) else r for r in i["llm_replies"]]
    if replies:
        llm_server.script(*replies)
    # the reference's behaviour, so compat: a missing rubric score is 0 and earns no re-ask
    inp = ARCInput(review_text=i["review_text"], reviewer_id=i["reviewer_id"], compat=True)
    if not inp.review_text.strip():  # the dimension never calls the judge on empty text
        assert exp["result"]["status"] == "empty_input" and exp["llm_calls"] == 0
        return
    res = await loopback_judge(max_retries=1).run(ARCStep(), inp)
    if exp["result"]["status"] == "failed":
        # here an unusable reply is first a fault: "not json" is asked again as is, and gets
        # {"atomic_comments": "oops"} (off the schema); the retry spent, the repair re-ask gets
        # zero ARCs, which earns the step's check re-ask too: two calls more, same outcome
        assert len(llm_server.requests) == exp["llm_calls"] + 2
        assert not res.ok or not res.output.atomic_comments
        return
    assert len(llm_server.requests) == exp["llm_calls"]
    assert res.ok
    got = [a.model_dump(exclude={"scores_missing"}) for a in res.output.atomic_comments]
    assert got == exp["result"]["atomic_comments"]
