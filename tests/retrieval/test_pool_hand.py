from prism_review.retrieval.candidates import Candidate, title_id
from prism_review.retrieval.pool import build_pool, dedup, is_self, mmr_select

from .test_retrieval_vectors import CannedSearcher


def cand(cid, title, abstract="", rel=None, year=None):
    return Candidate(cand_id=cid, title=title, abstract=abstract, relevance_score=rel, year=year)


def test_title_id_is_md5_of_alnum_lowercase():
    assert title_id("Attention Is All You Need!") == "592b2b0bae57a89f301fcf342baf118a"
    assert title_id("") == "ad921d60486366258809553a3db49a4a"  # md5("unknown")


def test_dedup_keeps_max_relevance_over_duplicate_hits():
    hits = [cand("a", "Sparse attention", "long docs", 0.5), cand("b", "sparse  ATTENTION", "Long docs!", 1.0),
            cand("c", "Sparse attention", "long docs", 0.9)]
    out = dedup(hits)
    assert [(c.cand_id, c.relevance_score) for c in out] == [("b", 1.0)]


def test_mmr_hand_computed():
    # a: rel .9 {x,y}; b: rel .8 {x,y,z} (Jaccard with a = 2/3); c: rel .5 {u}
    # after a: b = .7*.8 - .3*(2/3) = .36 ; c = .7*.5 - 0 = .35 → b; then c.
    pool = [cand("a", "x y", "", 0.9), cand("b", "x y z", "", 0.8), cand("c", "u", "", 0.5)]
    assert [c.cand_id for c in mmr_select(pool, 3)] == ["a", "b", "c"]
    # raise b's overlap: {x,y} identical to a → .7*.8 - .3 = .26 < .35 → c first
    pool[1] = cand("b", "y x", "", 0.8)
    assert [c.cand_id for c in mmr_select(pool, 3)] == ["a", "c", "b"]


def test_self_exclusion_by_id_and_title():
    me = cand("S2ID", "Learning Sparse Attention for Long Documents", "")
    assert is_self(me, ["S2ID"], "")
    other = cand("zzz", "Learning sparse attention for long documents.", "")
    assert is_self(other, [], "Learning Sparse Attention for Long Documents")
    assert not is_self(cand("q", "Dense retrieval", ""), ["S2ID"], "Learning Sparse Attention")


async def test_build_pool_excludes_self_unless_compat_and_ranks_relevance():
    paper = {"core_task": "long documents", "contributions": [{"name": "sparse attention"}]}
    q = "long documents sparse attention"
    hits = {q: [
        {"paperId": "SELF", "title": "Sparse Attention for Long Documents", "abstract": "we propose sparse attention for very long documents", "year": 2024},
        {"paperId": "P1", "title": "Longformer: the long-document transformer", "abstract": "attention that scales linearly with sequence length", "year": 2020},
        {"paperId": "P2", "title": "Big Bird transformers for longer sequences", "abstract": "sparse attention mechanism that reduces quadratic dependency", "year": 2020},
    ]}
    rec = await build_pool(paper, CannedSearcher(hits), 2024, paper_title="Sparse attention for long documents")
    ids = [c["cand_id"] for c in rec["candidate_pool_top30"]]
    assert "SELF" not in ids and set(ids) == {"P1", "P2"}
    rel = {c["cand_id"]: c["relevance_score"] for c in rec["candidate_pool_top30"]}
    assert rel == {"P1": 2 / 3, "P2": 1 / 3}  # (n - rank) / n with n = 3
    compat = await build_pool(paper, CannedSearcher(hits), 2024, paper_title="Sparse attention for long documents", compat=True)
    assert [c["cand_id"] for c in compat["candidate_pool_top30"]][0] == "SELF"
    assert "relevance_score" not in compat["candidate_pool_top30"][0]


def test_near_duplicate_matches_sequence_matcher():
    import random
    from difflib import SequenceMatcher

    from prism_review.retrieval.pool import near_duplicate

    rng = random.Random(7)
    base = "graph neural networks for molecular property prediction we propose a message passing " * 3
    for _ in range(300):
        a = list(base)
        for _ in range(rng.randint(0, 12)):
            i = rng.randrange(len(a))
            a[i] = rng.choice("abcdefghij ")
        b = "".join(a)[: rng.randint(len(base) - 15, len(base))]
        assert near_duplicate(b, base) == (SequenceMatcher(None, b, base).ratio() >= 0.96)
