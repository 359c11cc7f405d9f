"""The novelty unit end to end through the real SDK against loopback LLM and S2 servers."""

import time
from pathlib import Path

from prism_review.dimensions.base import RunContext
from prism_review.dimensions.memo import MemoStore
from prism_review.dimensions.novelty import NoveltyDimension
from prism_review.retrieval.loopback import S2Server
from prism_review.retrieval.loopback import recorded_script as _recorded
from prism_review.retrieval.s2 import SemanticScholarClient

from . import e2e_fixtures as fx

RECORDED = Path(__file__).parents[1] / "retrieval" / "data" / "s2_search_responses.json"


def recorded_script():
    return _recorded(RECORDED)


async def _run(judge, s2, tmp_path, **settings):
    dim = NoveltyDimension()
    ctx = RunContext(judge, settings={"retrieval": "s2", "protocol": "reference", **settings}, memo_store=MemoStore(tmp_path / "memo"))
    ctx.services["novelty_retriever"] = SemanticScholarClient(base_url=s2.base_url, min_interval=0.0, retry_delay=0.001)
    units = dim.work_units(fx.paper(), fx.reviews(), ["human", "sea"])
    rows = []
    for u in units:
        rows += await dim.evaluate(u, ctx)
    await ctx.services["novelty_retriever"].aclose()
    return rows


async def test_novelty_end_to_end_batched(llm_server, loopback_judge, tmp_path):
    llm_server.set_responder(fx.responder)
    with S2Server(recorded_script()) as s2:
        t0 = time.perf_counter()
        rows = await _run(loopback_judge(), s2, tmp_path, verdict_batch=5)
        seconds = time.perf_counter() - t0
    assert len(s2.log) == 2  # one pool per paper, shared by both systems (N7)
    by = {(r.system, r.reviewer_id): r for r in rows}
    assert set(by) == {("human", "Human_1"), ("human", "Human_2"), ("sea", "LLM_Reviewer")}
    sea = by[("sea", "LLM_Reviewer")]
    assert sea.status == "ok" and sea.metrics["n_claims"] == 2
    assert sea.extracted["pool"]["stats"]["final"] == 7  # the paper itself excluded by title (N2)
    v = {c["review_sentence_id"]: c for c in sea.extracted["verdicts"]}
    labels = {e["related_paper_id"][:6]: e["label"] for e in v["C1"]["evidence_results"]}
    assert "UNSUPPORTED" in labels.values() and "SUPPORTED" in labels.values()  # "UNSUPPORTED." not read as SUPPORTED
    assert all(e["relevance_score"] is not None for e in v["C1"]["evidence_results"])
    for c in v.values():  # hand check of top3_relevance on the logged pairs
        ev = sorted(c["evidence_results"], key=lambda e: -e["relevance_score"])[:3]
        want = sum(e["score"] * e["relevance_score"] for e in ev) / sum(e["relevance_score"] for e in ev)
        assert abs(c["final_score"] - want) < 1e-9
    finals = sea.extracted["final_scores"]
    assert abs(sea.metrics["ns"] - (sum(finals) / 2 + 2) / 4) < 1e-9
    h2 = by[("human", "Human_2")]
    assert h2.metrics["has_claim"] == 0 and h2.metrics["ns"] is None  # claim-less: excluded (N6)
    assert by[("human", "Human_1")].extracted["human_aggregation"] == "per_review_mean"
    steps = [r.step for r in llm_server.requests]
    assert steps.count("novelty.paper") == 1  # paper side once per paper (N7)
    assert steps.count("novelty.claims") == 3
    n_verdict_calls = steps.count("novelty.verdict_batch")
    assert n_verdict_calls == 3 * 2  # 3 claims × ceil(7 / 5) batches
    tokens = sum(r.usage.prompt_tokens + r.usage.completion_tokens for r in rows)
    assert tokens > 0 and seconds < 30


async def test_novelty_end_to_end_per_pair_and_panel(llm_server, loopback_judge, tmp_path):
    llm_server.set_responder(fx.responder)
    with S2Server(recorded_script()) as s2:
        rows = await _run(loopback_judge(), s2, tmp_path, verdict_batch=1, human_aggregation="panel_concat")
    steps = [r.step for r in llm_server.requests]
    assert steps.count("novelty.verdict") == 3 * 7  # the reference design: one call per claim × candidate
    human = [r for r in rows if r.system == "human"]
    assert len(human) == 1 and human[0].reviewer_id == "panel"
    assert human[0].extracted["human_aggregation"] == "panel_concat"
    assert human[0].metrics["n_claims"] == 1 and human[0].metrics["has_claim"] == 1


def _verdicts_answered(reply):
    """The fixture responder, except that every verdict call gets ``reply``."""

    def responder(body):
        return reply if "Review claim" in fx._user(body) else fx.responder(body)

    return responder


async def test_bad_judge_replies_are_unscored_not_zero(llm_server, loopback_judge, tmp_path):
    llm_server.set_responder(_verdicts_answered("I cannot answer in JSON, sorry."))
    with S2Server(recorded_script()) as s2:
        rows = await _run(loopback_judge(), s2, tmp_path)
    sea = next(r for r in rows if r.system == "sea")
    assert sea.status == "unscored" and sea.metrics["ns"] is None
    assert sea.extracted["final_scores"] == [None, None]


async def test_compat_scores_bad_replies_zero_and_drops_relevance(llm_server, loopback_judge, tmp_path):
    llm_server.set_responder(_verdicts_answered("not json"))
    with S2Server(recorded_script()) as s2:
        rows = await _run(loopback_judge(), s2, tmp_path, compat=True)
    sea = next(r for r in rows if r.system == "sea")
    assert sea.extracted["final_scores"] == [0.0, 0.0]  # N4 compat: AMBIGUOUS 0 pairs
    assert sea.metrics["ns"] == 0.5
    assert sea.extracted["pool"]["stats"].get("after_self_exclusion") is None  # N2 compat: no self-exclusion
    human = [r for r in rows if r.system == "human"]
    assert len(human) == 1 and human[0].extracted["human_aggregation"] == "panel_concat"  # N1 compat default


async def test_batched_and_per_pair_verdicts_agree_pair_by_pair(llm_server, loopback_judge, tmp_path):
    llm_server.set_responder(fx.responder)

    def pairs(rows):
        out = {}
        for r in rows:
            for c in r.extracted.get("verdicts", []):
                for e in c["evidence_results"]:
                    out[(r.reviewer_id, c["review_sentence_id"], e["related_paper_id"])] = (e["label"], e["score"])
        return out

    with S2Server(recorded_script()) as s2:
        batched = await _run(loopback_judge(), s2, tmp_path / "a", verdict_batch=4)
    with S2Server(recorded_script()) as s2:
        single = await _run(loopback_judge(), s2, tmp_path / "b", verdict_batch=1)
    assert pairs(batched) and pairs(batched) == pairs(single)
    assert [r.metrics for r in batched] == [r.metrics for r in single]
    # the pooled protocol: every claim of the paper's reviews against every candidate in one call
    n_before = len(llm_server.requests)
    with S2Server(recorded_script()) as s2:
        one_call = await _run(loopback_judge(), s2, tmp_path / "c", protocol="pooled")
    sent = [r.step for r in llm_server.requests[n_before:]]
    assert sent.count("novelty.verdict_paper") == 1
    assert not {"novelty.verdict", "novelty.verdict_batch", "novelty.verdict_review"} & set(sent)
    assert pairs(one_call) == pairs(single)
    assert [r.metrics for r in one_call] == [r.metrics for r in single]


async def test_total_retrieval_failure_fails_the_unit_instead_of_scoring_zero(llm_server, loopback_judge, tmp_path):
    import pytest

    from prism_review.dimensions.novelty import RetrievalFailed

    llm_server.set_responder(fx.responder)
    script = {q: [(503, {})] for q in recorded_script()}
    with S2Server(script) as s2:
        dim = NoveltyDimension()
        ctx = RunContext(loopback_judge(), settings={"retrieval": "s2", "protocol": "reference"}, memo_store=MemoStore(tmp_path / "memo"))
        ctx.services["novelty_retriever"] = SemanticScholarClient(base_url=s2.base_url, min_interval=0.0,
                                                                  retry_delay=0.001, max_attempts=2)
        unit = dim.work_units(fx.paper(), fx.reviews(), ["sea"])[0]
        with pytest.raises(RetrievalFailed, match="HTTP 503"):
            await dim.evaluate(unit, ctx)
        await ctx.services["novelty_retriever"].aclose()
    import json

    keys = [json.loads(p.read_text())["key"] for p in (tmp_path / "memo").glob("*.json")]
    assert keys == ["novelty/paper/ICLR2024/blocksparse"]  # the failed pool is not memoised


async def test_rows_can_be_rescored_from_the_log(llm_server, loopback_judge, tmp_path):
    from prism_review.metrics.novelty import recompute_from_pairs

    llm_server.set_responder(fx.responder)
    with S2Server(recorded_script()) as s2:
        rows = await _run(loopback_judge(), s2, tmp_path)
    sea = next(r for r in rows if r.system == "sea")
    pairs = sea.extracted["pairs"]
    assert {p["stance_alignment"] for p in pairs} <= {"aligned", "partial", "insufficient", "contradicted"}
    assert {p["calibration"] for p in pairs} <= {"accurate", "overstated", "understated", "N/A"}
    rel = {p["related_paper_id"]: p["relevance_score"] for p in pairs}
    assert recompute_from_pairs(pairs, rel, "top3_relevance") == sea.extracted["final_scores"]
