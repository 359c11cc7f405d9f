"""From search hits to one candidate pool per paper (prism-reference §5.3).

Pipeline over all queries' hits, concatenated in query order:

1. de-duplication (:func:`dedup`): ``lower(title + " " + abstract)`` with non-alphanumerics as
   spaces; equal texts or ``SequenceMatcher(None, new, kept).ratio() ≥ 0.96`` (argument order
   as the reference: with autojunk the ratio is asymmetric on texts ≥ 200 chars) are one
   paper, and the more relevant hit takes the kept slot (so the relevance kept is the max over
   duplicate hits, N3 REC a);
2. the non-technical filter (:func:`looks_non_technical`);
3. the year filter (``year ≤ venue year``; unknown years pass);
4. self-exclusion (N2 REC; off in compat): the paper's own ids and its title;
5. MMR (:func:`mmr_select`, λ = 0.7, k = 30).

The pool is computed once per paper and shared by every system (N7).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher
from typing import Any, Protocol

from prism_review.retrieval.candidates import (
    Candidate,
    QuerySpec,
    build_queries,
    normalize_candidate,
)

DEDUP_THRESHOLD = 0.96
MMR_LAMBDA = 0.7
POOL_SIZE = 30
RESULTS_PER_QUERY = 10
SELF_TITLE_RATIO = 0.95


class Searcher(Protocol):
    """A search backend answering one query with Semantic-Scholar-shaped items."""

    name: str

    async def search(self, query: str, limit: int = RESULTS_PER_QUERY) -> list[dict[str, Any]]: ...


_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def _norm_text(c: Candidate) -> str:
    return _NON_ALNUM.sub(" ", f"{c.title} {c.abstract}".lower()).strip()


def _rel(c: Candidate) -> float:
    return c.relevance_score if c.relevance_score is not None else 0.0


def near_duplicate(new: str, kept: str, threshold: float = DEDUP_THRESHOLD) -> bool:
    """``SequenceMatcher(None, new, kept).ratio() ≥ threshold``, with the cheap upper bounds
    (length ratio, then shared character counts — what ``real_quick_ratio``/``quick_ratio``
    compute) tried first; the result is the same, only faster."""
    total = len(new) + len(kept)
    if not total or 2 * min(len(new), len(kept)) / total < threshold:
        return False
    a, b = Counter(new), Counter(kept)
    if 2 * sum((a & b).values()) / total < threshold:
        return False
    return SequenceMatcher(None, new, kept).ratio() >= threshold


def dedup(cands: Sequence[Candidate], threshold: float = DEDUP_THRESHOLD) -> list[Candidate]:
    """Collapse near-duplicates; a later, strictly more relevant duplicate replaces the kept one
    in place. Empty texts are never compared."""
    kept: list[Candidate] = []
    texts: list[str] = []
    for c in cands:
        t = _norm_text(c)
        hit = None
        if t:
            for j, kt in enumerate(texts):
                if kt and (t == kt or near_duplicate(t, kt, threshold)):
                    hit = j
                    break
        if hit is None:
            kept.append(c)
            texts.append(t)
        elif _rel(c) > _rel(kept[hit]):
            kept[hit] = c
            texts[hit] = t
    return kept


_NONTECH = re.compile(
    r"\b(?:editorial|foreword|preface|erratum|corrigendum|retraction|book\s+review|news"
    r"|call\s+for\s+papers|conference\s+report|invited\s+commentary)\b",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[a-z0-9]{2,}")


def looks_non_technical(title: str | None, abstract: str | None) -> bool:
    """No title; an editorial-type title; or a title of < 3 tokens with an abstract of < 10."""
    title = title or ""
    if not title.strip():
        return True
    if _NONTECH.search(title):
        return True
    n_title = len(_TOKEN.findall(title.lower()))
    n_abs = len(_TOKEN.findall((abstract or "").lower()))
    return n_title < 3 and n_abs < 10


def allow_by_year(candidate_year: Any, paper_year: int | None) -> bool:
    """True when the paper year is unknown, the candidate year is unknown/unparseable, or ≤."""
    if paper_year is None or candidate_year is None:
        return True
    try:
        return int(str(candidate_year).strip()) <= int(paper_year)
    except ValueError:
        return True


def _title_key(title: str) -> str:
    return _NON_ALNUM.sub(" ", (title or "").lower()).strip()


def is_self(c: Candidate, paper_ids: Iterable[str], paper_title: str) -> bool:
    """The candidate is the paper itself: same id, or the same (normalised) title."""
    ids = {str(i) for i in paper_ids if i}
    if c.cand_id in ids:
        return True
    a, b = _title_key(c.title), _title_key(paper_title)
    if not a or not b:
        return False
    if a == b:
        return True
    return min(len(a), len(b)) >= 20 and SequenceMatcher(None, a, b).ratio() >= SELF_TITLE_RATIO


def _tokens(c: Candidate) -> set[str]:
    return set(_NON_ALNUM.sub(" ", f"{c.title} {c.abstract}".lower()).split())


def _jaccard(a: set[str], b: set[str]) -> float:
    if not a and not b:
        return 0.0
    return len(a & b) / len(a | b)


def mmr_select(cands: Sequence[Candidate], k: int = POOL_SIZE, lambda_param: float = MMR_LAMBDA) -> list[Candidate]:
    """Maximal marginal relevance over token-set Jaccard similarity.

    Candidates are first sorted by (relevance, title) descending (stable), then picked one at a
    time maximising ``λ·rel − (1−λ)·max_sim`` (plain relevance for the first pick); ties keep
    the earlier candidate. Null relevance counts as 0.
    """
    pool = sorted(cands, key=lambda c: (_rel(c), c.title), reverse=True)
    toks = [_tokens(c) for c in pool]
    remaining = list(range(len(pool)))
    chosen: list[int] = []
    while remaining and len(chosen) < k:
        best_i, best_score = remaining[0], float("-inf")
        for i in remaining:
            if not chosen:
                score = _rel(pool[i])
            else:
                sim = max(_jaccard(toks[i], toks[j]) for j in chosen)
                score = lambda_param * _rel(pool[i]) - (1 - lambda_param) * sim
            if score > best_score:
                best_i, best_score = i, score
        chosen.append(best_i)
        remaining.remove(best_i)
    return [pool[i] for i in chosen]


async def build_pool(
    paper_side: dict[str, Any] | None,
    searcher: Searcher,
    paper_year: int | None,
    *,
    paper_ids: Sequence[str] = (),
    paper_title: str = "",
    compat: bool = False,
    mode: str = "per_contribution",
    top_k: int = POOL_SIZE,
    per_query: int = RESULTS_PER_QUERY,
) -> dict[str, Any]:
    """Run the queries built from ``paper_side`` and return the pool record.

    ``{mode, paper_year, backend, queries: [{id, query, status, count, error?}],
    candidate_pool_top30: [candidate…], stats}``. A failing query is recorded with status
    ``error`` and contributes nothing. In compat mode the candidates are written without
    ``relevance_score`` (N3) and the paper itself is not excluded (N2).
    """
    queries: list[QuerySpec] = build_queries(paper_side, mode)
    record: dict[str, Any] = {
        "mode": mode,
        "paper_year": paper_year,
        "backend": getattr(searcher, "name", type(searcher).__name__),
        "queries": [],
    }
    if not queries:
        record.update(candidate_pool_top30=[], stats={"total_candidates": 0, "final": 0})
        return record
    hits: list[Candidate] = []
    for q in queries:
        entry: dict[str, Any] = {"id": q.query_id, "query": q.query}
        try:
            items = (await searcher.search(q.query, per_query))[:per_query]
        except Exception as exc:  # recorded, the other queries still count
            if getattr(exc, "fatal", False):
                raise  # e.g. a rejected API key: stop the run, don't record per query
            entry.update(status="error", error=str(exc) or type(exc).__name__, count=0)
        else:
            entry.update(status="ok", count=len(items))
            hits.extend(normalize_candidate(it, r, len(items), q.query_id) for r, it in enumerate(items))
        record["queries"].append(entry)
    stats: dict[str, int] = {"total_candidates": len(hits)}
    cands = dedup(hits)
    stats["after_dedup"] = len(cands)
    cands = [c for c in cands if not looks_non_technical(c.title, c.abstract)]
    stats["after_nontechnical_filter"] = len(cands)
    cands = [c for c in cands if allow_by_year(c.year, paper_year)]
    stats["after_year_filter"] = len(cands)
    if not compat:
        cands = [c for c in cands if not is_self(c, paper_ids, paper_title)]
        stats["after_self_exclusion"] = len(cands)
    k = min(top_k, POOL_SIZE) if cands else 0
    if cands:
        k = max(k, 1)
    selected = mmr_select(cands, k)
    stats["final"] = len(selected)
    exclude = {"relevance_score", "source_query"} if compat else set()
    record["candidate_pool_top30"] = [c.model_dump(exclude=exclude) for c in selected]
    record["stats"] = stats
    return record
