"""Pooled novelty (``--protocol pooled``, the economical pattern before it was made
selection-invariant): a paper's claims judged together, on the server.

* every review's claims of a paper go in one ``novelty.verdict_paper`` call, the paper and the
  candidate pool sent once, a claim made by two reviews judged once; the reference protocol
  sends one ``novelty.verdict`` per (claim, candidate) of each review;
* a paper whose claims need more than one call's output budget is split deterministically, and
  the rows equal the unsplit ones;
* an unusable paper reply falls back to one ``novelty.verdict_review`` per review; a review whose
  own call fails too is unscored (null), the others keep their scores;
* a resumed run asks nothing again for a paper whose pieces are memoised, and its rows equal an
  uninterrupted run's;
* on the demo, with a judge whose decisions depend only on the judged texts
  (:mod:`prism_review.testing.novelty_decisions`), pooled, economical (one
  ``novelty.verdict_review`` per review) and reference give the same rows.
"""

from __future__ import annotations

import copy
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from prism_review.cli import app
from prism_review.dimensions.base import RunContext
from prism_review.dimensions.memo import MemoStore
from prism_review.dimensions.novelty import NoveltyDimension
from prism_review.judge.fence import fenced_blocks
from prism_review.judge.novelty import verdict_review
from prism_review.pipelines.results import read_results
from prism_review.retrieval.loopback import S2Server
from prism_review.retrieval.s2 import SemanticScholarClient
from prism_review.testing import novelty_decisions
from prism_review.testing.llm_server import LLMServer

from . import e2e_fixtures as fx
from .test_e2e_llm import recorded_script

#: the fixture's candidates after self-exclusion (test_e2e_llm)
N_CANDS = 7


def paper_calls(rows: list[Any]) -> int:
    """The ``novelty.verdict_paper`` calls the novelty rows' distinct claims and candidates need."""
    claims: dict[str, dict[Any, verdict_review.ReviewClaim]] = {}
    cands: dict[str, set[str]] = {}
    for r in rows:
        if r.dimension != "novelty" or not r.extracted.get("pairs"):
            continue
        paper = f"{r.venue}/{r.paper_id}"
        cands.setdefault(paper, set()).update(p["related_paper_id"] for p in r.extracted["pairs"])
        for c in r.extracted["claims"]:
            key = (c["text"], c["stance"], tuple(c["prior_work_strings"]))
            claims.setdefault(paper, {}).setdefault(key, verdict_review.ReviewClaim(claim_id="x", claim=c["text"]))
    return sum(len(verdict_review.paper_chunks(list(claims[p].values()), len(cands[p]))) for p in claims)


def _reviews(twin: bool) -> dict[str, Any]:
    """The fixture's reviews (sea: 2 claims, Human_1: 1, Human_2: none) and ``sea_twin``, a
    second system whose review is sea's word for word (so its claims are sea's)."""
    reviews = fx.reviews()
    if twin:
        twin_review = copy.deepcopy(reviews["sea"][0])
        twin_review.system = "sea_twin"
        reviews["sea_twin"] = [twin_review]
    return reviews


async def _run(judge: Any, memo: Path, protocol: str = "pooled", twin: bool = False,
               only: int | None = None, **settings: Any) -> list[Any]:
    dim = NoveltyDimension()
    reviews = _reviews(twin)
    ctx = RunContext(judge, settings={"retrieval": "s2", "protocol": protocol, **settings},
                     memo_store=MemoStore(memo))
    with S2Server(recorded_script()) as s2:
        ctx.services["novelty_retriever"] = SemanticScholarClient(base_url=s2.base_url, min_interval=0.0,
                                                                  retry_delay=0.001)
        units = dim.work_units(fx.paper(), reviews, sorted(reviews))
        rows = []
        for u in units[:only] if only else units:
            rows += await dim.evaluate(u, ctx)
        await ctx.services["novelty_retriever"].aclose()
    return rows


def _view(rows: list[Any]) -> list[tuple[Any, ...]]:
    return [(r.unit_key, r.reviewer_id, r.status, r.metrics,
             [(p["review_sentence_id"], p["related_paper_id"], p["label"]) for p in r.extracted.get("pairs", [])])
            for r in rows]


def _requests(server: LLMServer, step: str) -> list[Any]:
    return [r for r in server.requests if r.step == step]


async def test_a_paper_is_judged_in_one_call(llm_server, loopback_judge, tmp_path):
    llm_server.set_responder(fx.responder)
    rows = await _run(loopback_judge(), tmp_path / "eco", twin=True)
    steps = Counter(r.step for r in llm_server.requests)
    assert steps["novelty.verdict_paper"] == 1
    assert not {"novelty.verdict", "novelty.verdict_batch", "novelty.verdict_review"} & set(steps)
    user = _requests(llm_server, "novelty.verdict_paper")[0].messages[-1]["content"]
    assert len(fenced_blocks(user, "PAPER")) == 1 and len(fenced_blocks(user, "RELATED")) == N_CANDS
    # sea's two claims (made by sea_twin too: judged once) and Human_1's one
    assert sorted(fenced_blocks(user, "CLAIM")) == sorted(fx.CLAIMS)
    by = {(r.system, r.reviewer_id): r for r in rows}
    assert by[("sea", "LLM_Reviewer")].status == "ok"
    assert len(by[("sea", "LLM_Reviewer")].extracted["pairs"]) == 2 * N_CANDS
    assert _view([by[("sea", "LLM_Reviewer")]])[0][2:] == _view([by[("sea_twin", "LLM_Reviewer")]])[0][2:]
    # each call's usage is on one row (the paper call's on the first review with a claim in it)
    assert sum(r.usage.calls for r in rows) == len(llm_server.requests) - steps["novelty.paper"]

    # the reference protocol: one verdict per (claim, candidate) of each review (sea_twin's
    # requests are sea's, answered by the reply cache), and the same rows
    llm_server.requests.clear()
    ref = await _run(loopback_judge(cache_dir=tmp_path / "ref-cache"), tmp_path / "ref", "reference", twin=True)
    assert Counter(r.step for r in llm_server.requests)["novelty.verdict"] == (2 + 1) * N_CANDS
    assert sum(r.usage.cache_hits for r in ref if r.system == "sea_twin") >= 2 * N_CANDS
    assert _view(ref) == _view(rows)


async def test_claims_beyond_the_budget_are_split_deterministically(llm_server, loopback_judge, tmp_path,
                                                                    monkeypatch):
    llm_server.set_responder(fx.responder)
    whole = await _run(loopback_judge(), tmp_path / "whole")
    # room for one claim's verdicts a call: the paper's three distinct claims need three calls
    monkeypatch.setattr(verdict_review, "PAPER_REPLY_TOKENS",
                        verdict_review.REPLY_OVERHEAD + verdict_review.PAIR_TOKENS * N_CANDS)
    sent = []
    for name in ("a", "b"):
        llm_server.requests.clear()
        split = await _run(loopback_judge(cache_dir=tmp_path / f"cache-{name}"), tmp_path / name)
        calls = _requests(llm_server, "novelty.verdict_paper")
        assert len(calls) == 3 and all(len(fenced_blocks(c.messages[-1]["content"], "CLAIM")) == 1 for c in calls)
        sent.append(sorted(c.messages[-1]["content"] for c in calls))
        assert _view(split) == _view(whole)
    assert sent[0] == sent[1]  # the same chunks, call for call


def _failing(step: str, also: str | None = None):
    """The fixture's replies, except ``step`` answered with prose; with ``also``, the
    per-review call holding the claim ``also`` too."""

    def respond(body: dict[str, Any]) -> Any:
        name = ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
        sent = " ".join(str(m.get("content") or "") for m in body["messages"])
        if name == step or (also and name == "novelty_verdict_review" and also in sent):
            return "I would rather not answer in JSON."
        return fx.responder(body)

    return respond


async def test_a_failed_paper_call_falls_back_to_one_call_per_review(llm_server, loopback_judge, tmp_path):
    llm_server.set_responder(fx.responder)
    good = await _run(loopback_judge(), tmp_path / "good")
    llm_server.requests.clear()
    llm_server.set_responder(_failing("novelty_verdict_paper"))
    rows = await _run(loopback_judge(cache_dir=tmp_path / "c1"), tmp_path / "fallback")
    steps = Counter(r.step for r in llm_server.requests)
    assert steps["novelty.verdict_paper"] == 4  # the answer and its one re-ask, each repeated
    assert steps["novelty.verdict_review"] == 2  # sea and Human_1: the reviews with claims
    assert _view(rows) == _view(good)  # the same decisions, asked review by review

    # the per-review call of Human_1 fails too: only its row is unscored, with null metrics
    llm_server.set_responder(_failing("novelty_verdict_paper", also=fx.REVIEW_H1.split("**Weaknesses:** ")[1]))
    rows = await _run(loopback_judge(cache_dir=tmp_path / "c2"), tmp_path / "both")
    by = {(r.system, r.reviewer_id): r for r in rows}
    h1 = by[("human", "Human_1")]
    assert h1.status == "unscored" and h1.metrics["ns"] is None and h1.extracted["final_scores"] == [None]
    assert by[("sea", "LLM_Reviewer")].status == "ok"
    assert _view([by[("sea", "LLM_Reviewer")]]) == _view([r for r in good if r.system == "sea"])


async def test_a_resumed_run_asks_nothing_again(llm_server, loopback_judge, tmp_path):
    llm_server.set_responder(fx.responder)
    whole = await _run(loopback_judge(cache_dir=tmp_path / "c0"), tmp_path / "whole")
    llm_server.requests.clear()
    memo = tmp_path / "memo"
    first = await _run(loopback_judge(cache_dir=tmp_path / "c1"), memo, only=1)  # killed after one unit
    assert Counter(r.step for r in llm_server.requests)["novelty.verdict_paper"] == 1
    llm_server.requests.clear()
    # a new process: a fresh memo store on the same folder and an empty reply cache
    rest = await _run(loopback_judge(cache_dir=tmp_path / "c2"), memo)
    assert not llm_server.requests
    assert _view(rest) == _view(whole) and _view(first) == _view(whole)[: len(first)]


# -- the demo, through prism evaluate ---------------------------------------------------------

@pytest.fixture
def _env(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "loopback")
    monkeypatch.setenv("PRISM_RETRY_BASE", "0.01")
    monkeypatch.setenv("PRISM_RETRY_MAX", "0.05")


def _evaluate(tmp_path: Path, name: str, protocol: str, server: LLMServer | None = None) -> tuple[Counter[str], list[Any]]:
    """``prism evaluate -d novelty`` on the first demo papers against ``server`` (else a new
    one answering with :mod:`prism_review.testing.novelty_decisions`): the steps sent, the rows."""
    own = server is None
    if server is None:
        server = LLMServer(schema_seed=7).start()
        server.set_responder(novelty_decisions.responder(server.default_reply))
    before = len(server.requests)
    try:
        res = CliRunner().invoke(app, ["evaluate", "--judge", f"openai-compatible/m@{server.base_url}",
                                       "--protocol", protocol, "--dimension", "novelty", "--limit", "4",
                                       "--out", str(tmp_path / name), "--cache-dir", str(tmp_path / f"cache-{name}"),
                                       "--quiet", "--no-report"])
        assert res.exit_code == 0, res.output
        steps = Counter(r.step for r in server.requests[before:])
    finally:
        if own:
            server.stop()
    return steps, sorted(read_results(tmp_path / name), key=lambda r: (r.unit_key, r.reviewer_id))


@pytest.mark.usefixtures("_env")
def test_demo_protocols_give_the_same_rows_when_the_decisions_are_equal(tmp_path):
    eco_steps, eco = _evaluate(tmp_path, "eco", "pooled")
    ref_steps, ref = _evaluate(tmp_path, "ref", "reference")
    assert _view(eco) == _view(ref)
    # not a comparison of empty rows: reviews made claims and they were scored
    assert sum(r.metrics["n_claims"] or 0 for r in eco) >= 10
    assert sum(1 for r in eco if r.metrics["ns"] is not None) >= 8
    papers = len({r.paper_id for r in eco if r.extracted.get("pairs")})
    assert papers <= eco_steps["novelty.verdict_paper"] == paper_calls(eco) < sum(1 for r in eco if r.extracted.get("pairs"))
    assert "novelty.verdict_review" not in eco_steps
    assert "novelty.verdict" in ref_steps and "novelty.verdict_paper" not in ref_steps
    # economical (the default): each review's claims in its own call, the same decisions
    inv_steps, inv = _evaluate(tmp_path, "inv", "economical")
    assert _view(inv) == _view(ref)
    assert "novelty.verdict_paper" not in inv_steps and "novelty.verdict" not in inv_steps
    assert inv_steps["novelty.verdict_review"] >= sum(1 for r in inv if r.extracted.get("pairs"))


@pytest.mark.usefixtures("_env")
def test_demo_resume_after_a_kill_asks_nothing_for_memoised_papers(tmp_path):
    server = LLMServer(schema_seed=7).start()
    server.set_responder(novelty_decisions.responder(server.default_reply))
    try:
        _, whole = _evaluate(tmp_path, "run", "pooled", server)
        steps, resumed = _resume(tmp_path, whole, server)
    finally:
        server.stop()
    assert not steps  # no call: the paper's claims and verdict calls come from the run memo
    assert _view(resumed) == _view(whole)


def _resume(tmp_path: Path, whole: list[Any], server: LLMServer) -> tuple[Counter[str], list[Any]]:
    """The run again after a kill that left the last paper's units but its first unwritten."""
    log = tmp_path / "run" / "results.jsonl"
    lines = log.read_text().splitlines()
    # killed before the last units were written: drop the rows of every unit of the last paper
    # but its first, so the paper's pieces are memoised and its other units are not finished
    last = whole[-1].paper_id
    keys = sorted({r.unit_key for r in whole if r.paper_id == last})
    assert len(keys) >= 2
    kept = [ln for ln in lines if not any(f'"unit_key":"{k}"' in ln.replace(" ", "") for k in keys[1:])]
    assert len(kept) < len(lines)
    log.write_text("\n".join(kept) + "\n")
    (tmp_path / "cache-run").rename(tmp_path / "cache-old")  # an empty reply cache: only the memo
    return _evaluate(tmp_path, "run", "pooled", server)


def test_chunks_are_the_fewest_near_equal_runs_within_both_budgets():
    claims = [verdict_review.ReviewClaim(claim_id=f"C{i}", claim=f"claim {i}") for i in range(30)]
    sizes = {n: [len(c) for c in verdict_review.paper_chunks(claims, n)] for n in (1, 12, 144, 500)}
    assert sizes[1] == [15, 15]  # 24 claims a call at most, however few the candidates
    assert sizes[12] == [10, 10, 10]  # 144 pairs a call: 12 claims at most, so three calls
    assert sizes[144] == [1] * 30 and sizes[500] == [1] * 30  # one claim a call at least
    assert [c.claim_id for ch in verdict_review.paper_chunks(claims, 12) for c in ch] == [c.claim_id for c in claims]
    assert verdict_review.paper_chunks([], 12) == []


async def test_the_human_panel_is_one_review_text_of_the_paper_call(llm_server, loopback_judge, tmp_path):
    llm_server.set_responder(fx.responder)
    eco = await _run(loopback_judge(), tmp_path / "eco", human_aggregation="panel_concat")
    assert Counter(r.step for r in llm_server.requests)["novelty.verdict_paper"] == 1
    ref = await _run(loopback_judge(cache_dir=tmp_path / "ref-cache"), tmp_path / "ref", "reference",
                     human_aggregation="panel_concat")
    assert [r.reviewer_id for r in eco if r.system == "human"] == ["panel"]
    assert _view(eco) == _view(ref) and all(r.status == "ok" for r in eco)
