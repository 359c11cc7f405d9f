import pytest

from prism_review.retrieval.candidates import (
    Candidate,
    build_queries,
    compact,
    limit_words,
    normalize_candidate,
)
from prism_review.retrieval.pool import (
    allow_by_year,
    build_pool,
    dedup,
    looks_non_technical,
    mmr_select,
)
from prism_review.testing.vectors import vector_cases as cases

F = "novelty_retrieval.json"


@pytest.mark.parametrize("case", cases(F, "_compact_query_text"))
def test_compact(case):
    assert compact(case["input"]["text"], case["input"]["max_words"]) == case["expected"]


@pytest.mark.parametrize("case", cases(F, "_limit_query_words"))
def test_limit_words(case):
    assert limit_words(case["input"]["text"], case["input"]["max_words"]) == case["expected"]


@pytest.mark.parametrize("case", cases(F, "build_task2_queries"))
def test_build_queries(case):
    got = [q.model_dump() for q in build_queries(case["input"]["paper"], case["input"]["mode"])]
    assert got == case["expected"]


@pytest.mark.parametrize("case", cases(F, "_normalize_candidate"))
def test_normalize_candidate(case):
    inp = case["input"]
    got = normalize_candidate(inp["item"], inp["rank"], inp["total"], inp["source"]).model_dump()
    assert got == case["expected"]


@pytest.mark.parametrize("case", cases(F, "_dedup_approx"))
def test_dedup(case):
    assert case["input"]["threshold"] == 0.96
    got = dedup([Candidate(**c) for c in case["input"]["candidates"]])
    assert [c.model_dump() for c in got] == case["expected"]


@pytest.mark.parametrize("case", cases(F, "_looks_non_technical"))
def test_non_technical(case):
    assert looks_non_technical(case["input"]["title"], case["input"]["abstract"]) is case["expected"]


@pytest.mark.parametrize("case", cases(F, "_allow_by_year"))
def test_year(case):
    assert allow_by_year(case["input"]["candidate_year"], case["input"]["paper_year"]) is case["expected"]


@pytest.mark.parametrize("case", cases(F, "_mmr_select"))
def test_mmr(case):
    inp = case["input"]
    got = mmr_select([Candidate(**c) for c in inp["candidates"]], inp["k"], inp["lambda_param"])
    assert [c.cand_id for c in got] == case["expected"]


class CannedSearcher:
    name = "canned"

    def __init__(self, responses):
        self.responses = responses
        self.calls = []

    async def search(self, query, limit=10):
        self.calls.append(query)
        value = self.responses[query]
        if isinstance(value, dict) and "__raise__" in value:
            raise RuntimeError(value["__raise__"])
        return value[:limit]


@pytest.mark.parametrize("case", cases(F, "retrieve_related_works"))
async def test_pool_end_to_end(case):
    inp, exp = case["input"], case["expected"]
    searcher = CannedSearcher(inp["s2_search_responses_by_query"])
    paper = inp["task1_output"]["paper"]
    compat = await build_pool(paper, searcher, inp["paper_year"], compat=True)
    compat.pop("backend")
    assert compat == exp
    # default (REC): same pool, plus relevance_score/source_query on each candidate and a
    # self-exclusion count; the paper's title is not among these canned hits.
    rec = await build_pool(paper, CannedSearcher(inp["s2_search_responses_by_query"]), inp["paper_year"])
    stripped = [{k: v for k, v in c.items() if k not in ("relevance_score", "source_query")}
                for c in rec["candidate_pool_top30"]]
    assert stripped == exp["candidate_pool_top30"]
    assert all(c["relevance_score"] is not None for c in rec["candidate_pool_top30"])
    stats = dict(rec["stats"])
    stats.pop("after_self_exclusion", None)
    assert stats == exp["stats"]
