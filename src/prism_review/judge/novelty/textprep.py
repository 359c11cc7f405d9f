"""Text preparation for the novelty dimension (prism-reference §5.1–5.4).

* :func:`sanitize` — NFKC, control characters (except tab, newline and CR) to spaces.
* :func:`truncate_at_references` — cut the paper before its reference / acknowledgement section.
  The reference behaviour matches *any* line that begins with a marker word, so a body line such
  as "Reference implementations are released." cuts early (risk S2); ``strict=True`` accepts
  only heading-like lines (the marker, optional ``#`` and numbering, nothing else).
* :func:`paper_for_extraction`, :func:`review_for_extraction` — the Task-1 inputs.
* :func:`extract_abstract_intro` — the judge's paper context (abstract + introduction).
* :func:`related_work_text` — one candidate rendered for the judge.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

PAPER_MAX_CHARS = 128_000
REVIEW_MAX_CHARS = 32_000
CONTEXT_MAX_CHARS = 12_000
RELATED_MAX_CHARS = 8_000
CLAIM_MAX_CHARS = 1_500

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_MARKERS = (
    r"references?|bibliography|works\s+cited|literature\s+cited|acknowledge?ments?"
    r"|参考文献|致谢|鸣谢"
)
_REF_LINE = re.compile(rf"^[ \t]*(?:{_MARKERS})\d*\b", re.IGNORECASE | re.MULTILINE)
_REF_HEADING = re.compile(
    rf"^[ \t]*(?:#+[ \t]*)?(?:[0-9IVX]+\.?[ \t]+)?(?:{_MARKERS})[ \t\d.:]*$",
    re.IGNORECASE | re.MULTILINE,
)


def sanitize(text: str) -> str:
    """NFKC-normalise, drop unencodable code points, and blank out control characters."""
    if not text:
        return ""
    text = unicodedata.normalize("NFKC", text)
    text = text.encode("utf-8", "ignore").decode("utf-8", "ignore")
    return _CONTROL.sub(" ", text)


def truncate_at_references(text: str, *, strict: bool = False) -> str | None:
    """Text before the first reference/acknowledgement marker line, stripped; None if none.

    ``strict=False`` is the reference rule: a line that *begins* with the marker word
    (numbers glued on allowed, "References546") — risk S2. ``strict=True`` requires a
    heading-only line ("References", "## 7 References", "Acknowledgments:").
    """
    if not text:
        return None
    pattern = _REF_HEADING if strict else _REF_LINE
    m = pattern.search(text)
    if m is None:
        return None
    return text[: m.start()].strip()


def paper_for_extraction(text: str, *, strict: bool = True, max_chars: int = PAPER_MAX_CHARS) -> str:
    """Sanitised paper text cut at the references and truncated for the extraction step."""
    clean = sanitize(text)
    cut = truncate_at_references(clean, strict=strict)
    body = cut if cut else clean
    return body[:max_chars]


def review_for_extraction(text: str, *, max_chars: int = REVIEW_MAX_CHARS) -> str:
    """Sanitised review text truncated for the claim-extraction step."""
    return sanitize(text)[:max_chars]


_ABSTRACT_START = re.compile(r"^[ \t]*#*[ \t]*abstract\b[ \t:.\-—]*(.*)$", re.IGNORECASE | re.MULTILINE)
_ABSTRACT_END = re.compile(
    r"^[ \t]*#*[ \t]*(?:(?:\d+|[IVX]+)\.?[ \t]*)?(?:introduction\b|keywords\b|index[ \t]+terms\b)",
    re.IGNORECASE | re.MULTILINE,
)
_INTRO_START = re.compile(
    r"^[ \t]*#*[ \t]*(?:(?:\d+|[IVX]+)\.?[ \t]*)?introduction\b[ \t:.]*(.*)$",
    re.IGNORECASE | re.MULTILINE,
)
_INTRO_END = re.compile(
    r"^[ \t]*#*[ \t]*(?:(?:\d+(?:\.\d+)*|[IVX]+)\.?[ \t]*)?"
    r"(?:related[ \t]+works?|background|preliminar(?:y|ies)|methods?|methodology|approach"
    r"|problem[ \t]+formulation|experiments?|experimental|results|evaluation)\b[^\n]{0,40}$",
    re.IGNORECASE | re.MULTILINE,
)


def _section(text: str, start: re.Pattern[str], end: re.Pattern[str]) -> str | None:
    m = start.search(text)
    if m is None:
        return None
    body_start = m.start(1) if m.group(1) else m.end()
    e = end.search(text, m.end())
    body = text[body_start : e.start() if e else len(text)]
    return body.strip()


def find_abstract(text: str) -> str:
    """The abstract section of a paper text ('' when there is no "Abstract" line)."""
    return _section(text, _ABSTRACT_START, _ABSTRACT_END) or ""


def extract_abstract_intro(
    paper_text: str, *, max_chars: int = CONTEXT_MAX_CHARS, strict: bool = False
) -> str:
    """``"Abstract:\\n…\\n\\nIntroduction:\\n…"`` from the sanitised, reference-cut paper.

    The abstract runs from an "Abstract" line to the next introduction/keywords/index-terms
    line; the introduction from an "(1) Introduction" line to the earliest following
    related-work/background/method/experiments/results heading. With neither found, the
    first ``max_chars`` of the cleaned text.
    """
    clean = sanitize(paper_text)
    cut = truncate_at_references(clean, strict=strict)
    body = cut if cut is not None else clean
    abstract = _section(body, _ABSTRACT_START, _ABSTRACT_END)
    intro = _section(body, _INTRO_START, _INTRO_END)
    parts = []
    if abstract:
        parts.append(f"Abstract:\n{abstract}")
    if intro:
        parts.append(f"Introduction:\n{intro}")
    if not parts:
        return body[:max_chars].strip()
    return "\n\n".join(parts)[:max_chars].rstrip()


def _clean_field(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def related_work_text(item: dict[str, Any], *, max_chars: int = RELATED_MAX_CHARS) -> str:
    """A candidate as ``"Title: …\\n\\nAbstract: …"`` (plus an introduction if given)."""
    parts = []
    title = _clean_field(item.get("title"))
    abstract = _clean_field(item.get("abstract"))
    intro = _clean_field(item.get("intro")) or _clean_field(item.get("introduction"))
    if title:
        parts.append(f"Title: {title}")
    if abstract:
        parts.append(f"Abstract: {abstract}")
    if intro:
        parts.append(f"Introduction: {intro}")
    text = "\n\n".join(parts) if parts else _clean_field(item.get("text"))
    return text[:max_chars]
