"""Query construction and candidate normalisation for novelty retrieval (prism-reference §5.3).

Every search backend (Semantic Scholar, the local index) returns items in the Semantic Scholar
``/paper/search`` JSON shape; :func:`normalize_candidate` turns one into a :class:`Candidate`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

QUERY_STOPWORDS = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "in", "into", "is", "it", "its", "of", "on", "or", "our", "that", "the", "their", "these", "this", "to", "we", "with", "without", "via", "using", "use", "based", "within", "across", "paper", "method", "methods", "approach", "approaches", "model", "models", "result", "results"]
)
CONTRIBUTION_QUERY_WORDS = 12
QUERY_MAX_WORDS = 25


class Candidate(BaseModel):
    """One related-work candidate, the same schema for every backend."""

    cand_id: str
    title: str = ""
    year: int | None = None
    venue: str = ""
    abstract: str = ""
    url: str | None = None
    embedding: list[float] | None = None
    #: S2 ``score`` or the rank score ``(n − rank)/n`` within its query; max over duplicate hits
    relevance_score: float | None = None
    source_query: str = ""


class QuerySpec(BaseModel):
    """One search query built from the paper side."""

    query_id: str
    query: str
    source: str


_PAREN = re.compile(r"\([^)]*\)")
_NON_QUERY = re.compile(r"[^A-Za-z0-9\- ]")


def compact(text: str, max_words: int = CONTRIBUTION_QUERY_WORDS) -> str:
    """Parentheticals removed, only ``[A-Za-z0-9- ]`` kept, query stopwords dropped
    (case-insensitively; all kept if every token is one), first ``max_words`` tokens."""
    if not text:
        return ""
    text = _NON_QUERY.sub(" ", _PAREN.sub(" ", text))
    tokens = text.split()
    kept = [t for t in tokens if t.lower() not in QUERY_STOPWORDS] or tokens
    return " ".join(kept[:max_words])


def limit_words(text: str, max_words: int = QUERY_MAX_WORDS) -> str:
    """The first ``max_words`` whitespace tokens, single-spaced."""
    return " ".join(text.split()[:max_words])


def _names(contributions: Any) -> list[str]:
    if not isinstance(contributions, list):
        return []
    out = []
    for c in contributions:
        name = c.get("name") if isinstance(c, dict) else c
        if isinstance(name, str) and name.strip():
            out.append(name.strip())
    return out


def _strings(values: Any, n: int) -> list[str]:
    if not isinstance(values, list):
        return []
    return [v.strip() for v in values if isinstance(v, str) and v.strip()][:n]


def build_queries(paper: Mapping[str, Any] | None, mode: str = "per_contribution") -> list[QuerySpec]:
    """Search queries from the paper side (core_task, contributions, key_terms, entities).

    ``per_contribution``: ``C<i>`` = compact(core_task) + compact(contribution name i), ≤ 25
    words; with no contribution but a core task, one ``Q1`` = compact(core_task) + the first 5
    key terms. ``fixed``: ``Q1`` = compact(core_task) + 5 key terms, ``Q2`` = compact(first
    contribution) + 5 entities.
    """
    if not paper:
        return []
    core = paper.get("core_task")
    core_c = compact(core) if isinstance(core, str) else ""
    names = _names(paper.get("contributions"))
    terms = _strings(paper.get("key_terms"), 5)
    out: list[QuerySpec] = []
    if mode == "fixed":
        q1 = limit_words(" ".join([core_c, *terms]))
        if q1:
            out.append(QuerySpec(query_id="Q1", query=q1, source="core_task"))
        if names:
            ents = _strings(paper.get("must_have_entities"), 5)
            q2 = limit_words(" ".join([compact(names[0]), *ents]))
            if q2:
                out.append(QuerySpec(query_id="Q2", query=q2, source="contribution"))
        return out
    for i, name in enumerate(names, start=1):
        q = limit_words(f"{core_c} {compact(name)}")
        if q:
            out.append(QuerySpec(query_id=f"C{i}", query=q, source="contribution"))
    if not out and core_c:
        q = limit_words(" ".join([core_c, *terms]))
        out.append(QuerySpec(query_id="Q1", query=q, source="core_task"))
    return out


def _year(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return int(str(value).strip())
    except ValueError:
        return None


def title_id(title: str) -> str:
    """MD5 of the title lower-cased and stripped to ``[a-z0-9]`` (``"unknown"`` when empty)."""
    key = re.sub(r"[^a-z0-9]", "", (title or "").lower()) or "unknown"
    return hashlib.md5(key.encode("utf-8")).hexdigest()


def normalize_candidate(item: Mapping[str, Any], rank: int, total: int, source: str) -> Candidate:
    """A search hit as a :class:`Candidate`.

    ``cand_id``: paperId, else ``doi:<DOI>``, else ``arxiv:<id>``, else :func:`title_id`.
    ``relevance_score``: the item's ``score`` if numeric, else ``(total − rank)/max(total, 1)``.
    """
    title = str(item.get("title") or "").strip()
    ext = item.get("externalIds") or {}
    if not isinstance(ext, dict):
        ext = {}
    doi = ext.get("DOI") or ext.get("doi")
    arxiv = ext.get("ArXiv") or ext.get("arXiv") or ext.get("arxiv")
    if item.get("paperId"):
        cand_id = str(item["paperId"])
    elif doi:
        cand_id = f"doi:{doi}"
    elif arxiv:
        cand_id = f"arxiv:{arxiv}"
    else:
        cand_id = title_id(title)
    pub = item.get("publicationVenue")
    venue = item.get("venue") or (pub.get("name") if isinstance(pub, dict) else None) or ""
    oa = item.get("openAccessPdf")
    url = item.get("url") or (oa.get("url") if isinstance(oa, dict) else None) or None
    score = item.get("score")
    if isinstance(score, int | float) and not isinstance(score, bool):
        relevance = float(score)
    else:
        relevance = (total - rank) / max(total, 1)
    return Candidate(
        cand_id=cand_id,
        title=title,
        year=_year(item.get("year")),
        venue=str(venue),
        abstract=str(item.get("abstract") or ""),
        url=url,
        relevance_score=relevance,
        source_query=source,
    )
