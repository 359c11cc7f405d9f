"""The reply estimate of a pooled ``constructiveness.arc_batch`` call (``arc_batch.reply_budget``,
which packs the groups): the reference's per-call budget for one review, and for several every
review's ratio estimate plus the per-call floor once; the call asks for the reply cap (not the
judge's global 8,000 cap), and a reply cut at a model's output limit fails as a whole and falls
back to each paper's own call."""

from __future__ import annotations

from tests.constructiveness.test_arc_batch import responder
from tests.constructiveness.test_cross_paper import (
    BATCH,
    N,
    _paper_texts,
    _papers_of_call,
    _run,
    _view,
)

from prism_review.judge.constructiveness.arc_batch import (
    MAX_REPLY_TOKENS,
    ARCBatchInput,
    ARCBatchStep,
    BatchReview,
    reply_budget,
)
from prism_review.judge.fence import fenced_blocks
from prism_review.metrics.constructiveness import adaptive_max_tokens


def _ratio(n: int) -> int:
    """§7.2's ratio budget, written out: max(5, L/350) ARCs × 130 tokens × 1.5."""
    return int(max(5, n / 350) * 130 * 1.5)


def test_one_review_gets_the_references_budget_and_each_further_review_its_ratio_estimate():
    for n in (0, 500, 2999, 3000, 5999, 8000, 12_000, 30_000):
        assert reply_budget([n]) == adaptive_max_tokens(n)
    assert reply_budget([]) == 0
    # 4,000 chars: table 4,500 > ratio 2,228; the floor counts once, not per review
    assert _ratio(4000) == 2228
    assert reply_budget([4000] * 3) == 4500 + 2 * 2228
    # the largest excess of a per-call budget over its estimate (the floor) counts once:
    # 7,000 chars: 6,000 − 3,900 = 2,100 > 2,000 chars: 3,000 − 1,114 > 1,000 chars: 3,000 − 975
    assert reply_budget([2000, 7000, 1000]) == 1114 + 3900 + 975 + 2100 == 6000 + 1114 + 975
    # ... whatever the order, and whichever review carries it: 3,500 chars (4,500 − 1,950)
    # and 5,000 chars (4,500 − 2,785) share a per-call budget, the larger excess is kept
    assert reply_budget([5000, 3500]) == reply_budget([3500, 5000]) == 2785 + 1950 + (4500 - 1950)
    # a review beyond the reference's 8,000 clamp never asks for more than alone
    assert reply_budget([20_000, 1000]) == 8000 + 975 + (3000 - 975)
    # far below the sum of per-call budgets, far above the sum of ratio estimates alone
    twelve = [3100] * 12
    assert sum(map(_ratio, twelve)) < reply_budget(twelve) < sum(map(adaptive_max_tokens, twelve))


def test_the_steps_cap_lets_a_group_call_ask_for_its_whole_budget():
    assert ARCBatchStep.reply_cap == MAX_REPLY_TOKENS


async def test_a_group_call_asks_for_the_reply_cap_and_its_estimate_fits_it(llm_server, loopback_judge, tmp_path):
    """Every group call asks for the cap (the global 8,000-token cap used to cut the request to
    8,000); the group's estimate, which packed it, is within the cap."""
    papers = _paper_texts()
    llm_server.set_responder(responder)
    await _run(loopback_judge(no_cache=True), tmp_path / "eco")
    calls = [r for r in llm_server.requests if r.step == BATCH]
    assert calls
    for r in calls:
        texts = fenced_blocks(next(m["content"] for m in r.messages if m["role"] == "user"), "REVIEW")
        assert r.body["max_tokens"] == MAX_REPLY_TOKENS
        assert 8000 < reply_budget([len(t) for t in texts]) <= MAX_REPLY_TOKENS
        assert len(_papers_of_call(r.body, papers)) > 1


def _reply_tokens(texts: list[str]) -> int:
    """The loopback tokens (4 characters each) of the responder's reply to one call of ``texts``."""
    inp = ARCBatchInput(reviews=[BatchReview(review_id=f"R{i}", review_text=t) for i, t in enumerate(texts, 1)])
    body = {"messages": [m.model_dump() for m in ARCBatchStep().messages(inp)]}
    return len(responder(body)) // 4 + 1


async def test_a_group_reply_cut_at_the_models_output_limit_falls_back_to_each_papers_call(
        llm_server, loopback_judge, tmp_path):
    """A model whose output limit is below the group's reply: the group reply is cut, is never
    completed, and each paper of the group gets its own call, whose reply fits; the rows are
    those of one call per review. The group call asked for the step's cap, so it is not asked
    again (before: once more at 64,000, twice the cap, cut again and paid again)."""
    papers = _paper_texts()
    llm_server.set_responder(responder)
    ref = await _run(loopback_judge(no_cache=True), tmp_path / "ref", "reference")
    n_ref = len(llm_server.requests)
    limit = max(_reply_tokens(p) for p in papers) + 1  # every paper's own reply fits
    assert limit < MAX_REPLY_TOKENS
    llm_server.max_output_tokens = limit
    eco = await _run(loopback_judge(no_cache=True), tmp_path / "eco")
    calls = llm_server.requests[n_ref:]
    spans = [_papers_of_call(r.body, papers) for r in calls]
    groups = [(r, s) for r, s in zip(calls, spans, strict=True) if len(s) > 1]
    assert groups and all(_reply_tokens([t for i in s for t in papers[i]]) > limit for _, s in groups)
    # each group: a call at the cap, cut below it (the server does not say it is the model's
    # limit: asked again as is, a transient fault until cut at the same length again); no
    # re-ask past the cap, no completed cut reply
    assert all(r.finish == "length" for r, _ in groups)
    for span in {tuple(s) for _, s in groups}:
        asks = [r.body["max_tokens"] for r, s in groups if tuple(s) == span]
        assert asks == [MAX_REPLY_TOKENS, MAX_REPLY_TOKENS]
    own = [s[0] for s in spans if len(s) == 1]
    assert sorted(own) == list(range(N)) and all(r.finish == "stop" for r, s in zip(calls, spans, strict=True) if len(s) == 1)
    assert all(r.step == BATCH for r in calls)
    assert _view(eco) == _view(ref) and all(r.status == "ok" for r in eco)
