"""``novelty.paper``: the paper side, extracted once per paper (N7 REC).

Output: core task, 1–3 contributions, key terms and named entities. :meth:`finalize` applies
the deterministic normalisation of prism-reference §5.2 and, where a part is missing or
unusable, the deterministic fallback (abstract sentence / title, "contributions" bullets or
"we propose" sentences, frequent n-grams, capitalised or hyphenated tokens). The offline judge is
that fallback alone.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from pydantic import BaseModel, Field
from pydantic.json_schema import SkipJsonSchema

from prism_review.judge.base import ChatMessage, JudgeStep
from prism_review.judge.fence import fence
from prism_review.judge.novelty import prompts
from prism_review.judge.novelty.stopwords import english_stop_words
from prism_review.judge.novelty.textprep import find_abstract
from prism_review.text import split_sentences


class Contribution(BaseModel):
    """One contribution of the paper (schema shown to the model)."""

    name: str = Field(description="generic kind of contribution, at most 10 words")
    author_claim_text: str = Field(default="", description="the authors' sentence, at most 40 words")
    description: str = Field(default="", description="at most 60 words")
    source_hint: str = Field(default="Unknown", description="Abstract, Introduction, Conclusion or Unknown")


_CONTRIBUTION_SCHEMA = {k: v for k, v in Contribution.model_json_schema().items() if k != "title"}


class PaperSideInput(BaseModel):
    """The paper as the paper-side step sees it."""

    paper_id: str = ""
    title: str = ""
    abstract: str = ""
    #: sanitised, reference-cut, truncated paper text
    text: str


class PaperSideOutput(BaseModel):
    """Core task, contributions, key terms and entities (lenient types; see finalize)."""

    # the values are read leniently (Any); the schema states the types a model is asked for
    core_task: Any = Field(default="", description="the concrete problem, at most 20 words",
                           json_schema_extra={"type": "string"})
    contributions: list[Any] = Field(default_factory=list, description="1 to 3 contributions",
                                     json_schema_extra={"items": _CONTRIBUTION_SCHEMA})
    key_terms: list[Any] = Field(default_factory=list, description="5 to 12 technical phrases",
                                 json_schema_extra={"items": {"type": "string"}})
    must_have_entities: list[Any] = Field(default_factory=list, description="named models, datasets, metrics",
                                          json_schema_extra={"items": {"type": "string"}})
    #: which parts came from the deterministic fallback (set by finalize; not asked of a model)
    fallback: SkipJsonSchema[list[str]] = Field(default_factory=list)


def _words(text: str, n: int) -> str:
    return " ".join(str(text).split()[:n])


_HEADER_LEAD = re.compile(r"^(?:\d+(?:\.\d+)*\.?\s*)?(?:abstract|introduction|background|overview)\b[\s:.\-—]*", re.I)
_FILLER = re.compile(
    r"^(?:in\s+recent\s+years|recently|nowadays|in\s+this\s+(?:paper|work)|here|this\s+paper|we\s+(?:propose|present|introduce|study)|"
    r"this\s+work)\b[\s,:]*(?:(?:we\s+)?(?:propose|present|introduce|study|address|tackle|consider)s?\b\s*)?",
    re.I,
)
_HEADER_TERM = re.compile(
    r"^(?:introduction|abstract|related\s+work|background|conclusions?|references|method(?:s|ology)?|experiments?|appendix)\b", re.I
)


def clean_core_task(value: Any) -> str:
    """Coerce to a string (lists joined, dicts via text/core_task/task/name/value), strip
    section-header words and filler openings, cut to 20 words."""
    if isinstance(value, list):
        value = " ".join(str(v) for v in value if v)
    elif isinstance(value, dict):
        value = next((value[k] for k in ("text", "core_task", "task", "name", "value") if value.get(k)), "")
    text = " ".join(str(value or "").split())
    for _ in range(3):
        new = _FILLER.sub("", _HEADER_LEAD.sub("", text)).strip(" ,:;-")
        if new == text:
            break
        text = new
    if text[:1].islower():
        text = text[0].upper() + text[1:]
    return _words(text, 20)


def clean_contributions(items: list[Any]) -> list[dict[str, str]]:
    """Dicts or plain strings; empty ones dropped; word limits applied; at most 3."""
    out: list[dict[str, str]] = []
    for it in items or []:
        if isinstance(it, str):
            it = {"name": it}
        if not isinstance(it, dict):
            continue
        name = _words(it.get("name") or "", 10)
        claim = _words(it.get("author_claim_text") or "", 40)
        if not name and not claim:
            continue
        out.append({
            "name": name or _words(claim, 10),
            "author_claim_text": claim,
            "description": _words(it.get("description") or "", 60),
            "source_hint": str(it.get("source_hint") or "Unknown").strip() or "Unknown",
        })
    return out[:3]


def _header_like(term: str) -> bool:
    words = term.split()
    return bool(_HEADER_TERM.match(term)) or (term.isupper() and len(words) <= 6 and len(term) > 4)


def clean_terms(items: list[Any], limit: int) -> list[str]:
    """Strings, de-duplicated case-insensitively, header-like entries removed, capped."""
    out: list[str] = []
    seen: set[str] = set()
    for it in items or []:
        t = " ".join(str(it).split()) if isinstance(it, str | int | float) else ""
        if not t or _header_like(t) or t.lower() in seen:
            continue
        seen.add(t.lower())
        out.append(t)
    return out[:limit]


# -- deterministic fallback ---------------------------------------------------------------
_OWN_STOP = frozenset(
    ["a", "an", "the", "and", "or", "of", "for", "in", "on", "to", "with", "by", "from", "as", "at", "is", "are", "was", "were", "be", "been", "this", "that", "these", "those", "we", "our", "it", "its", "their", "which", "can", "via", "using", "based", "into", "than", "such", "also", "both", "each", "more", "most", "other", "new", "paper", "propose", "proposed", "show", "shows", "method", "methods", "approach", "model", "models", "results", "recently", "while", "made", "make", "makes", "achieve", "achieves", "achieved", "existing", "work", "works", "prior", "demonstrate", "extensive", "experiments", "experimental", "performance", "state", "art", "novel", "significantly", "significant"]
)
_CITELIKE = re.compile(r"\d|et\s+al|\[|\]|\(|\)", re.I)


def fallback_title(text: str, title: str = "") -> str:
    """The given title, else the first line of ≥ 3 words in the first 12 lines (no
    "anonymous", stopping at "abstract")."""
    if title.strip():
        return title.strip()
    for line in text.splitlines()[:12]:
        s = line.strip().lstrip("#").strip()
        if s.lower().startswith("abstract"):
            break
        if len(s.split()) >= 3 and "anonymous" not in s.lower():
            return s
    return ""


def fallback_core_task(abstract: str, title: str, text: str) -> str:
    """First sentence of the abstract, else the title, else the text's first sentence."""
    for source in (abstract, title):
        sents = split_sentences(source) if source.strip() else []
        if sents:
            return clean_core_task(sents[0])
    sents = split_sentences(text[:2000]) if text.strip() else []
    return clean_core_task(sents[0]) if sents else ""


_BULLET = re.compile(r"^\s*(?:[-*•]|\(?\d+[.)]|\([a-z]\)|[ivx]+[.)])\s+(.{10,400})$", re.M)
_WE_VERB = re.compile(r"\bwe\s+(?:propose|present|introduce|develop|design|show|demonstrate|conduct|evaluate|provide)\b", re.I)


def fallback_contributions(text: str, abstract: str) -> list[dict[str, str]]:
    """Bullets within 4,000 chars after "contribution(s)", else "we propose…" abstract sentences."""
    m = re.search(r"\bcontributions?\b", text, re.I)
    items: list[str] = []
    if m:
        items = [b.group(1).strip() for b in _BULLET.finditer(text[m.end() : m.end() + 4000])][:5]
    if not items:
        src = abstract or text[:4000]
        items = [s for s in split_sentences(src) if _WE_VERB.search(s)][:3]
    return clean_contributions([{"name": _words(_strip_we(i), 10), "author_claim_text": i,
                                 "source_hint": "Introduction" if m else "Abstract"} for i in items[:3]])


def _strip_we(s: str) -> str:
    s = re.sub(r"^.*?\bwe\s+(?:propose|present|introduce|develop|design|show|demonstrate|conduct|evaluate|provide)\s+", "", s, count=1, flags=re.I)
    s = re.sub(r"^\W*we\s*(?:,[^,]{0,40},\s*)?\w+\s+", "", s, count=1, flags=re.I)
    return re.sub(r"^(?:a|an|the)\s+", "", s, flags=re.I)


def fallback_key_terms(abstract: str, text: str, limit: int = 12) -> list[str]:
    """Most frequent stopword-free 3-grams, then 2-grams, then unigrams of the abstract."""
    src = abstract if abstract.strip() else text[:4000]
    toks = [t for t in re.findall(r"[A-Za-z][A-Za-z0-9\-]+", src)]
    low = [t.lower() for t in toks]
    stop = english_stop_words() | _OWN_STOP
    terms: list[str] = []
    for n in (3, 2):
        grams: Counter[str] = Counter()
        for i in range(len(low) - n + 1):
            g = low[i : i + n]
            if any(w in stop or len(w) < 3 for w in g):
                continue
            phrase = " ".join(g)
            if not _CITELIKE.search(phrase):
                grams[phrase] += 1
        terms += [g for g, c in grams.most_common() if c >= 2][: limit - len(terms)]
        if len(terms) >= limit:
            break
    uni = Counter(w for w in low if w not in stop and len(w) > 3)
    terms += [w for w, _ in uni.most_common() if all(w not in t.split() for t in terms)]
    return clean_terms(terms, limit)


def fallback_entities(text: str, limit: int = 20) -> list[str]:
    """Tokens with ≥ 2 capitals, a digit or a hyphen; length ≥ 3; no "/"; not all lower-case."""
    out: list[str] = []
    for tok in re.findall(r"[A-Za-z0-9][A-Za-z0-9\-\.]*[A-Za-z0-9]", text[:20000]):
        if len(tok) < 3 or "/" in tok or tok.islower() or tok.isdigit():
            continue
        shaped = sum(c.isupper() for c in tok) >= 2 or any(c.isdigit() for c in tok) or "-" in tok
        if shaped and tok not in out and not re.fullmatch(r"[\d.\-]+", tok):
            out.append(tok)
        if len(out) >= limit:
            break
    return out


def _looks_raw(core: str) -> bool:
    return not core or bool(re.match(r"^(?:abstract|introduction|\d+\s+introduction)\b", core, re.I))


class PaperSideStep(JudgeStep[PaperSideInput, PaperSideOutput]):
    """Extract the paper side (LLM) or take the deterministic fallback (offline)."""

    name = "novelty.paper"
    Input = PaperSideInput
    Output = PaperSideOutput

    def messages(self, inp: PaperSideInput) -> list[ChatMessage]:
        title = f"\nTitle:\n{fence('TITLE', inp.title)}\n" if inp.title else ""
        return [
            ChatMessage(role="system", content=prompts.PAPER_SYSTEM),
            ChatMessage(role="user", content=prompts.PAPER_USER.format(title_block=title, paper=fence("PAPER", inp.text))),
        ]

    def offline(self, inp: PaperSideInput) -> PaperSideOutput:
        return PaperSideOutput()

    def max_tokens(self, inp: PaperSideInput) -> int | None:
        return None  # the configured cap (8,000 by default), as the reference's Task 1 call

    def finalize(self, inp: PaperSideInput, out: PaperSideOutput) -> PaperSideOutput:
        """Normalise every part; fill missing or unusable parts from the deterministic fallback."""
        core = clean_core_task(out.core_task)
        contribs = clean_contributions(out.contributions)
        terms = clean_terms(out.key_terms, 12)
        ents = clean_terms(out.must_have_entities, 20)
        used: list[str] = list(out.fallback)
        title = fallback_title(inp.text, inp.title)
        abstract = inp.abstract or find_abstract(inp.text)
        if _looks_raw(core):
            core = fallback_core_task(abstract, title, inp.text)
            used.append("core_task")
        if not contribs:
            contribs = fallback_contributions(inp.text, abstract)
            used.append("contributions")
        if len(terms) < 5:
            terms = clean_terms(terms + fallback_key_terms(abstract, inp.text), 12)
            used.append("key_terms")
        if not ents:
            ents = fallback_entities(inp.text)
            used.append("must_have_entities")
        return PaperSideOutput(core_task=core, contributions=contribs, key_terms=terms,
                               must_have_entities=ents, fallback=sorted(set(used)))
