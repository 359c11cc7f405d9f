"""Deterministic novelty-claim detection from review text (no model).

Two detectors:

* :func:`reference_claims` — the original's fallback (prism-reference §5.2): sentences matching a
  cue regex inside paragraphs that match it, at most 5, with keyword rules for stance,
  confidence and expected evidence. Used when an extraction reply leaves no verbatim claim.
* :func:`detect_claims` — the offline judge's detector: the same sentence-level idea with a
  wider, weighted cue set and a paper-summary guard, checked against DISAPERE's
  ``asp_originality`` sentences (figures in the report of issue 7 and
  ``benchmarks/bench_novelty.py``).
"""

from __future__ import annotations

import re
from typing import Any

from prism_review.text import split_sentences

_I = re.IGNORECASE
REFERENCE_CUE = re.compile(
    r"\b(?:not\s+novel|no\s+novelty|limited\s+novelty|incremental|marginal|similar\s+to|same\s+as"
    r"|already|prior\s+work|previous\s+work|demonstrated\s+in|shown\s+in|main\s+novelty|novelty|novel)\b",
    _I,
)
_NOT_NOVEL = re.compile(
    r"\b(?:not\s+(?:very\s+|particularly\s+|really\s+|that\s+|so\s+)?(?:novel|new|original)|no\s+novelty"
    r"|lacks?\s+(?:of\s+)?(?:novelty|originality)|similar\s+to|same\s+as|already|prior\s+work"
    r"|previous\s+work|demonstrated\s+in|shown\s+in)\b",
    _I,
)
_SOMEWHAT = re.compile(r"\b(?:incremental|marginal|limited\s+novelty)\b", _I)
_NOVEL = re.compile(r"\bnovel(?:ty)?\b", _I)
_HIGH = re.compile(r"\b(?:clearly|obviously|strongly|definitely|certainly)\b", _I)
_LOW = re.compile(r"\b(?:may|might|seems?|unclear|perhaps|likely|potentially)\b", _I)
_CITE = re.compile(
    r"arXiv:\d{4}\.\d{4,5}|\b\d{4}\.\d{4,5}\b|\b10\.\d{4,9}/\S+|https?://\S+|\[[^\[\]]{1,80}\]"
    r"|\([A-Z][A-Za-z-]+(?:\s+et\s+al\.?)?,?\s+(?:19|20)\d{2}[a-z]?\)"
    r"|\b[A-Z][A-Za-z-]+\s+et\s+al\.?(?:\s*,?\s*\(?(?:19|20)\d{2}[a-z]?\)?)?",
)
_PRIOR_HINT = re.compile(r"\bet\s+al\b|\b(?:19|20)\d{2}\b|arxiv|\bdoi\b|https?://", _I)


def ws(text: str) -> str:
    """Whitespace-folded, lower-cased text for verbatim checks."""
    return " ".join(text.split()).lower()


def is_verbatim(piece: str, review: str) -> bool:
    """Whitespace-normalised, case-insensitive substring test."""
    p = ws(piece)
    return bool(p) and p in ws(review)


def citations_in(text: str) -> list[str]:
    """Citation-like strings in ``text`` (arXiv ids, DOIs, URLs, bracketed and author-year)."""
    out: list[str] = []
    for m in _CITE.finditer(text):
        s = m.group(0).rstrip(".,;)")
        if s.startswith("(") and not s.endswith(")"):
            s = s + ")"
        if s and s not in out:
            out.append(s)
    return out


def stance_of(sentence: str) -> str:
    """not_novel / somewhat_novel / novel / unclear by the reference keyword rules."""
    if _NOT_NOVEL.search(sentence):
        return "not_novel"
    if _SOMEWHAT.search(sentence):
        return "somewhat_novel"
    if _NOVEL.search(sentence):
        return "novel"
    return "unclear"


def confidence_of(sentence: str) -> str:
    """high for clearly/obviously/…, low for may/might/seems/…, else medium."""
    if _HIGH.search(sentence):
        return "high"
    if _LOW.search(sentence):
        return "low"
    return "medium"


def evidence_of(sentence: str) -> str:
    """The kind of evidence that would check the claim, by keywords."""
    low = sentence.lower()
    if re.search(r"\b(?:dataset|benchmark|data)\b", low):
        return "dataset_overlap"
    if re.search(r"\b(?:result|results|performance|accuracy|metric|metrics)\b", low):
        return "results_similarity"
    if re.search(r"\b(?:task|application|applications)\b", low):
        return "task_similarity"
    if re.search(r"\b(?:theory|theorem|theoretical)\b", low):
        return "theory_overlap"
    return "method_similarity"


def claim_record(sentence: str, stance: str | None = None) -> dict[str, Any]:
    """A claim dict (schema of the claims step) for one sentence."""
    cites = citations_in(sentence)
    if not cites:
        cites = [m.group(0) for m in re.finditer(r"\[[^\[\]]{1,80}\]", sentence)]
    mentions = bool(cites) or bool(_PRIOR_HINT.search(sentence))
    return {
        "text": sentence,
        "stance": stance or stance_of(sentence),
        "confidence_lang": confidence_of(sentence),
        "mentions_prior_work": mentions,
        "prior_work_strings": cites,
        "evidence_expected": evidence_of(sentence),
    }


_HEADER_LINE = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+[^\n]*|\*\*[^*\n]{1,60}\*\*:?|[A-Z][A-Za-z ]{1,40}:)[ \t]*$", re.M)
_HEADER_PREFIX = re.compile(r"^([ \t]*)\*\*[^*\n]{1,60}:?\*\*:?[ \t]*", re.M)


def strip_headers(text: str) -> str:
    """Blank out heading lines (``## X``, ``**X:**``, ``Weaknesses:``) and inline bold labels,
    so sentences never start with a section name."""
    return _HEADER_PREFIX.sub(r"\1", _HEADER_LINE.sub("", text))


def _paragraphs(text: str) -> list[str]:
    return [p for p in re.split(r"\n\s*\n", strip_headers(text)) if p.strip()]


def reference_claims(review: str, limit: int = 5) -> list[dict[str, Any]]:
    """The original's deterministic fallback: cue sentences in cue paragraphs, ≤ ``limit``."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for para in _paragraphs(review):
        if not REFERENCE_CUE.search(para):
            continue
        for sent in split_sentences(para):
            key = ws(sent)
            if REFERENCE_CUE.search(sent) and key not in seen:
                seen.add(key)
                out.append(claim_record(sent))
                if len(out) >= limit:
                    return out
    return out


# -- the offline detector -------------------------------------------------------------------
_STRONG = re.compile(
    r"\b(?:novel(?:ty)?|originality|original|innovative|innovation|incremental|first\s+to"
    r"|not\s+(?:very\s+|particularly\s+|really\s+|that\s+|so\s+|entirely\s+)?new|nothing\s+new"
    r"|well[-\s]known|well[-\s]studied|(?:has|have)\s+(?:already\s+)?been\s+(?:proposed|studied|explored|done|used|shown|investigated)"
    r"|straightforward\s+(?:extension|application|combination)|simple\s+(?:extension|combination)"
    r"|limited\s+contribution|contribution\s+is\s+(?:limited|marginal|minor|small))\b",
    _I,
)
_WEAK = re.compile(
    r"\b(?:similar\s+to|same\s+as|already|prior\s+(?:work|works|art)|previous(?:ly)?\s+(?:work|works|proposed|studied)"
    r"|existing\s+(?:work|works|methods|approaches)|literature|new|idea|ideas|extension|combination|combines"
    r"|trivial|marginal|contribution|contributions|demonstrated\s+in|shown\s+in|differs?\s+from)\b",
    _I,
)
_SUMMARY = re.compile(
    r"^\s*(?:\W*\s*)?(?:this|the)\s+(?:paper|work|submission|manuscript|article|authors?)\s+"
    r"(?:propose|proposes|present|presents|introduce|introduces|develop|develops|describe|describes|study|studies|consider|considers)\b"
    r"|^\s*(?:in\s+this\s+(?:paper|work)|the\s+paper\s+(?:is\s+about|addresses))",
    _I,
)
_JUDGEMENT = re.compile(
    r"\b(?:i\s+(?:think|believe|feel|find|am|do)|in\s+my\s+(?:view|opinion)|seems?|appears?|is\s+(?:not\s+)?(?:very\s+|quite\s+|rather\s+|somewhat\s+|fairly\s+)?(?:novel|new|original|incremental|limited|interesting)"
    r"|lacks?|however|but|although|unfortunately|overall|main\s+(?:novelty|contribution)|limited)\b",
    _I,
)


def offline_score(sentence: str, *, summary_guard: bool = True) -> int:
    """Cue weight of one sentence: 2 per strong cue, 1 per weak cue; with ``summary_guard`` a
    paper-describing line ("This paper proposes a novel …") without a judgement loses 2."""
    score = 2 * len(_STRONG.findall(sentence)) + len(_WEAK.findall(sentence))
    if summary_guard and _SUMMARY.search(sentence) and not _JUDGEMENT.search(sentence):
        score -= 2
    return score


_SECTION_HEAD = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]+(?P<h1>[^\n]+?)|\*\*(?P<h2>[^*\n]{1,60}?):?\*\*:?|(?P<h3>[A-Z][A-Za-z ]{1,40}):)[ \t]*(?P<rest>.*)$"
)


def review_sections(review: str) -> list[tuple[str | None, str]]:
    """``(heading or None, body)`` blocks of a markdown-ish review, in order."""
    out: list[tuple[str | None, list[str]]] = [(None, [])]
    for line in review.split("\n"):
        m = _SECTION_HEAD.match(line)
        if m:
            name = m.group("h1") or m.group("h2") or m.group("h3")
            out.append((name.strip(), [m.group("rest")] if m.group("rest").strip() else []))
        else:
            out[-1][1].append(line)
    return [(n, "\n".join(body)) for n, body in out if "\n".join(body).strip()]


_NEG_CUES = re.compile(
    r"\b(?:not\s+(?:\w+\s+)?(?:novel|new|original|surprising)|no\s+novelty|nothing\s+new|lacks?|lacking|little|limited"
    r"|similar|related\s+to|same\s+as|already|well[-\s]known|well[-\s]studied|been\s+(?:\w+\s+)?(?:proposed|studied|explored|done|used|shown|identified|investigated)"
    r"|previous(?:ly)?|prior\s+(?:work|works|art)|existing|just|simply|merely|only|minor|marginal|incremental"
    r"|straightforward|trivial|combination\s+of|extension\s+of|fails?\s+to|unclear|hard\s+to\s+(?:see|judge)|missing|predates?)\b",
    _I,
)
_POS_CUES = re.compile(
    r"\b(?:novel(?:ty)?|new|original|innovative|first\s+to|interesting|nice|neat|clever|elegant|fresh|creative|significant"
    r"|important|valuable|promising|cute|merits?|strengths?)\b",
    _I,
)
_SOMEWHAT_CUES = re.compile(r"\b(?:incremental|marginal|limited|minor|straightforward|somewhat|modest|extension\s+of)\b", _I)


def offline_stance(sentence: str) -> str:
    """Stance for the offline detector from weighted negative and positive cue counts.

    More (or as many) negative cues than positive → ``somewhat_novel`` when the wording is
    graded (incremental, limited, straightforward…), else ``not_novel``; only positive cues →
    ``novel``; no cue → ``unclear``.
    """
    neg = len(_NEG_CUES.findall(sentence))
    pos = len(_POS_CUES.findall(sentence))
    if neg and neg >= pos:
        return "somewhat_novel" if _SOMEWHAT_CUES.search(sentence) else "not_novel"
    if pos:
        return "novel"
    return "unclear"


def detect_claims(review: str, *, threshold: int = 2, limit: int = 8) -> list[dict[str, Any]]:
    """Offline claim detection: sentences whose cue weight reaches ``threshold`` (≤ ``limit``),
    read section by section."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for name, body in review_sections(review):
        # a paper-describing sentence is a claim outside a summary ("Strengths: This paper
        # proposes a novel …"); with no heading the context is unknown and the guard applies
        guard = name is None or "summar" in name.lower()
        for sent in split_sentences(body):
            key = ws(sent)
            if key in seen or len(key) < 12:
                continue
            if offline_score(sent, summary_guard=guard) >= threshold:
                seen.add(key)
                out.append(claim_record(sent, offline_stance(sent)))
                if len(out) >= limit:
                    return out
    return out
