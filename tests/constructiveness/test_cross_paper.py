"""Pooled constructiveness across papers (``--protocol pooled``): the reviews of consecutive papers of the run in one
``constructiveness.arc_batch`` call (whole papers, at most MAX_GROUP_REVIEWS reviews within the
reply budget), grouped by the runner (``pipelines/grouping.py``) before any unit runs.

Runs of the demo's first papers through the loopback server, the judge deciding each review's
ARCs from its text alone (``responder`` of ``test_arc_batch``), so a run's rows must not depend
on which reviews shared a call."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from tests.constructiveness.test_arc_batch import responder

from prism_review.data.layout import demo_root
from prism_review.data.source_kinds import LayoutSource
from prism_review.dimensions.constructiveness import MAX_GROUP_REVIEWS
from prism_review.dimensions.review_text import review_text
from prism_review.judge.constructiveness.arc_batch import MAX_REPLY_TOKENS
from prism_review.judge.fence import fenced_blocks
from prism_review.metrics.constructiveness import adaptive_max_tokens
from prism_review.pipelines.results import read_results
from prism_review.pipelines.runner import EvalOptions, run_evaluation

N = 6
BATCH = "constructiveness.arc_batch"


def _paper_texts(n: int = N) -> list[list[str]]:
    """Each of the first ``n`` demo papers' non-empty constructiveness texts, in run order."""
    out = []
    for item in LayoutSource(demo_root()).items(limit=n):
        if item.paper is not None:
            texts = [review_text(r, "constructiveness") for rs in item.reviews.values() for r in rs]
            out.append([t for t in texts if t.strip()])
    return out


def _budget(texts: list[str]) -> int:
    """A reply's budget, counted here: every review's ratio estimate max(5, L/350)·130·1.5 (at
    most its per-call budget of §7.2), plus the largest excess of a per-call budget over its
    review's estimate, once."""
    per_call = [adaptive_max_tokens(len(t)) for t in texts]
    est = [min(b, int(max(5, len(t) / 350) * 195)) for b, t in zip(per_call, texts, strict=True)]
    return sum(est) + max(b - e for b, e in zip(per_call, est, strict=True))


def _expected_groups(papers: list[list[str]]) -> list[int]:
    """Papers per group of a greedy packing of whole papers under the bounds (counted here)."""
    groups: list[list[list[str]]] = []
    for texts in papers:
        cand = [t for p in (groups[-1] if groups else []) for t in p] + texts
        fits = len(cand) <= MAX_GROUP_REVIEWS and _budget(cand) <= MAX_REPLY_TOKENS
        if groups and fits:
            groups[-1].append(texts)
        else:
            groups.append([texts])
    return [len(g) for g in groups]


def _papers_of_call(body: dict[str, Any], papers: list[list[str]]) -> list[int]:
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    texts = fenced_blocks(user, "REVIEW")
    return sorted({i for t in texts for i, p in enumerate(papers) if t in p})


async def _run(judge: Any, out: Path, protocol: str = "pooled") -> list[Any]:
    res = await run_evaluation(EvalOptions(out=out, dimensions=["constructiveness"], limit=N, report=False,
                                           protocol=protocol), judge=judge)
    assert res.units_failed == 0
    return sorted(read_results(out), key=lambda r: r.unit_key)


def _view(rows: list[Any]) -> list[tuple[Any, ...]]:
    return [(r.unit_key, r.status, r.metrics, r.extracted.get("arcs")) for r in rows]


async def test_a_run_packs_whole_consecutive_papers_into_fewer_calls(llm_server, loopback_judge, tmp_path):
    papers = _paper_texts()
    llm_server.set_responder(responder)
    ref = await _run(loopback_judge(no_cache=True), tmp_path / "ref", "reference")
    n_ref = len(llm_server.requests)
    eco = await _run(loopback_judge(no_cache=True), tmp_path / "eco")
    calls = [r for r in llm_server.requests[n_ref:] if r.step == BATCH]
    assert len(calls) == len(llm_server.requests) - n_ref  # no single-review call
    expected = _expected_groups(papers)
    assert len(calls) == len(expected) < len(papers) == N  # fewer calls than papers
    assert len(calls) >= math.ceil(sum(map(len, papers)) / MAX_GROUP_REVIEWS)
    spans = sorted(_papers_of_call(r.body, papers) for r in calls)
    # consecutive whole papers, each paper in exactly one call, in run order
    assert [i for s in spans for i in s] == list(range(N))
    assert [len(s) for s in spans] == expected and any(len(s) > 1 for s in spans)
    for s, r in zip(spans, sorted(calls, key=lambda r: _papers_of_call(r.body, papers)), strict=True):
        user = next(m["content"] for m in r.body["messages"] if m["role"] == "user")
        assert len(fenced_blocks(user, "REVIEW")) == sum(len(papers[i]) for i in s)
    # the judge decides per review text: the rows are those of one call per review
    assert _view(eco) == _view(ref) and all(r.status == "ok" for r in eco)
    assert sum(r.usage.calls for r in eco) == len(calls)  # each call on one row


async def test_a_resumed_run_reuses_a_finished_group_call(llm_server, loopback_judge, tmp_path):
    papers = _paper_texts()
    llm_server.set_responder(responder)
    out = tmp_path / "run"
    first = await _run(loopback_judge(no_cache=True), out)
    calls = [r for r in llm_server.requests if r.step == BATCH]
    assert len(calls) < len(papers)
    # killed mid-run: the units of the last paper of a multi-paper group were never written
    span = next(s for s in (_papers_of_call(r.body, papers) for r in calls) if len(s) > 1)
    last_pid = list(LayoutSource(demo_root()).items(limit=N))[span[-1]].paper_id
    log = out / "results.jsonl"
    lines = log.read_text().splitlines()
    kept = [ln for ln in lines if json.loads(ln).get("paper_id") != last_pid]
    assert 0 < len(lines) - len(kept) < len(lines)
    log.write_text("\n".join(kept) + "\n")
    n = len(llm_server.requests)
    again = await _run(loopback_judge(no_cache=True), out)  # no LLM cache: only the memo can help
    assert len(llm_server.requests) == n  # the group's call is not paid again
    strip = lambda rows: [r.model_dump(exclude={"usage", "seconds", "time"}) for r in rows]  # noqa: E731
    assert strip(again) == strip(first)


async def test_a_group_reply_that_leaves_a_paper_out_falls_back_to_that_papers_call(llm_server, loopback_judge, tmp_path):
    """The group's reply drops every review of the group's first paper: that paper gets its own
    call (its rows scored), the other papers keep the group's answer; a review dropped from its
    paper's call too stays unscored, and only it."""
    papers = _paper_texts()
    llm_server.set_responder(responder)
    ref = await _run(loopback_judge(no_cache=True), tmp_path / "ref", "reference")
    n_ref = len(llm_server.requests)
    dropped: list[int] = []

    def flaky(body: dict[str, Any]) -> str:
        reply = json.loads(responder(body))
        span = _papers_of_call(body, papers)
        if "reviews" in reply and len(span) > 1:  # a group call: the first paper's reviews vanish
            dropped.append(span[0])
            n_first = len(papers[span[0]])
            reply["reviews"] = reply["reviews"][n_first:]
        elif "reviews" in reply and len(span) == 1 and span[0] in dropped:
            reply["reviews"] = reply["reviews"][:-1]  # its own call loses one review
        return json.dumps(reply)

    llm_server.set_responder(flaky)
    eco = await _run(loopback_judge(no_cache=True), tmp_path / "eco")
    eco_calls = llm_server.requests[n_ref:]
    assert dropped, "no multi-paper group call was made"
    fallback = [r for r in eco_calls if _papers_of_call(r.body, papers) in ([i] for i in dropped)]
    assert fallback and all(r.step == BATCH for r in fallback)
    bad_pids = {list(LayoutSource(demo_root()).items(limit=N))[i].paper_id for i in dropped}
    unscored = [r for r in eco if r.status == "unscored"]
    # one review per failed paper is left out of its own call too (after its re-ask): unscored
    assert len(unscored) == len(set(dropped)) and {r.paper_id for r in unscored} == bad_pids
    assert all(v is None for r in unscored for v in r.metrics.values())
    ok = {r.unit_key for r in unscored}
    assert [v for v in _view(eco) if v[0] not in ok] == [v for v in _view(ref) if v[0] not in ok]


def test_papers_without_reviews_do_not_pile_up_in_a_group():
    """A run whose papers have no review to judge (e.g. ``--systems`` without them) keeps
    streaming: a group takes at most MAX_GROUP_REVIEWS papers, reviewed or not."""
    from prism_review.dimensions.base import get_dimension

    dim = get_dimension("constructiveness")
    assert dim.joins_group([[]] * (MAX_GROUP_REVIEWS - 1), [])
    assert not dim.joins_group([[]] * MAX_GROUP_REVIEWS, [])
