"""Offline ARC segmentation: a review's points, each with its section and character span.

A review is cut into sections at header lines (``**Weaknesses:**``, ``## Questions``,
``Strengths:`` alone on a line). Inside a section, each bullet or numbered item (with its
continuation lines) is one comment, since a reviewer's list item is one point; running prose is
split into sentences (:func:`prism_review.text.sentence_spans`). Score fields (Rating,
Confidence, Soundness …) and fragments of fewer than three words are not comments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from prism_review.text import sentence_spans

_HEADER = re.compile(
    # **Name:** / **Name**: / __Name:__ at a line start (content may follow on the same line)
    r"^[ \t]*(?:\*\*|__)[ \t]*(?P<bname>[A-Za-z][A-Za-z0-9 /&'(),-]{0,60}?)[ \t]*"
    r"(?::[ \t]*(?:\*\*|__)|(?:\*\*|__)[ \t]*:?)"
    # Name: alone on a line
    r"|^[ \t]*(?P<name>[A-Z][A-Za-z /&'()-]{1,40}?)[ \t]*:[ \t]*$"
    # ## Name
    r"|^[ \t]*#{1,6}[ \t]+(?P<hname>[^\n]{1,60}?)[ \t]*:?[ \t]*$",
    re.MULTILINE,
)
_BULLET = re.compile(r"^[ \t]*(?:[-*•+]|\d{1,2}[.)]|\(\w{1,3}\)|\[\w{1,3}\])[ \t]+", re.MULTILINE)
_SCORE_SECTIONS = re.compile(
    r"^(rating|confidence|soundness|presentation|contribution|overall( recommendation)?|"
    r"recommendation|score|code of conduct|ethic\w*( concerns?| review)?|flag for ethics review|"
    r"details of ethics concerns|first time reviewer|paper decision|decision|review id)\b",
    re.IGNORECASE,
)

SECTION_TYPES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"summar|overview|synopsis|contribution", re.I), "observation"),
    (re.compile(r"strength|pros\b|positive|merit", re.I), "strength"),
    (re.compile(r"question|clarif", re.I), "question"),
    (
        re.compile(r"suggest|recommend|improve|minor|typo|presentation|comment|feedback", re.I),
        "suggestion",
    ),
    (
        re.compile(r"weak|cons\b|concern|limitation|issue|problem|critic|negative|flaw", re.I),
        "weakness",
    ),
]


@dataclass
class Segment:
    """One candidate comment: its text, section and [start, end) offsets in the review."""

    text: str
    section: str
    start: int
    end: int


def section_type(section: str) -> str | None:
    """The comment type a section name implies (None when it says nothing)."""
    for pat, t in SECTION_TYPES:
        if pat.search(section):
            return t
    return None


def _sections(text: str) -> list[tuple[str, int, int]]:
    heads = [
        (
            (m.group("bname") or m.group("name") or m.group("hname") or "").strip(),
            m.start(),
            m.end(),
        )
        for m in _HEADER.finditer(text)
    ]
    out: list[tuple[str, int, int]] = []
    prev_name, prev_end = "", 0
    for name, s, e in heads:
        if text[prev_end:s].strip():
            out.append((prev_name, prev_end, s))
        prev_name, prev_end = name, e
    if text[prev_end:].strip():
        out.append((prev_name, prev_end, len(text)))
    return out


def _items(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Bullet items as whole spans; other paragraphs as sentence spans."""
    body = text[start:end]
    bullets = list(_BULLET.finditer(body))
    spans: list[tuple[int, int]] = []
    cursor = 0
    for i, m in enumerate(bullets):
        spans.extend(_prose(body, cursor, m.start()))
        item_end = bullets[i + 1].start() if i + 1 < len(bullets) else len(body)
        blank = re.search(r"\n[ \t]*\n", body[m.end() : item_end])
        if blank:  # a blank line ends the item; what follows is prose
            spans.append((m.end(), m.end() + blank.start()))
            cursor = m.end() + blank.end()
        else:
            spans.append((m.end(), item_end))
            cursor = item_end
    spans.extend(_prose(body, cursor, len(body)))
    return [(start + s, start + e) for s, e in spans]


def _prose(body: str, s: int, e: int) -> list[tuple[int, int]]:
    if not body[s:e].strip():
        return []
    return [(s + sp.start, s + sp.end) for sp in sentence_spans(body[s:e])]


def segment_review(text: str, *, min_words: int = 3) -> list[Segment]:
    """The review's candidate comments in document order."""
    out: list[Segment] = []
    for name, s, e in _sections(text):
        if name and _SCORE_SECTIONS.match(name):
            continue
        for a, b in _items(text, s, e):
            piece = text[a:b]
            lead = len(piece) - len(piece.lstrip())
            a, b = a + lead, b - (len(piece) - len(piece.rstrip()))
            piece = text[a:b]
            if len(re.findall(r"[A-Za-z]{2,}", piece)) < min_words:
                continue
            out.append(Segment(text=piece, section=name or "Review", start=a, end=b))
    return out
