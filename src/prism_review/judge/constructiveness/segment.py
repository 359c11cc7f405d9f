"""Offline ARC segmentation: a review's points, each with its section and character span.

A review is cut into sections at header lines (``**Weaknesses:**``, ``## Questions``,
``Strengths:`` alone on a line). Inside a section the unit is the *atomic comment* of the
reference (§7.2: one criticism or suggestion, scored whole), not the sentence:

* each bullet or numbered item (with its continuation lines) is one comment, since a reviewer's
  list item is one point;
* running prose is cut into sentences (:func:`prism_review.text.sentence_spans`) and the
  sentences that make one point are joined again: a sentence that continues the one before it
  (it opens with a connective or a reference back — "This", "However", "because", "For
  example", "Thus" … — or follows a colon) stays in its comment, up to
  :data:`MAX_POINT_SENTENCES` sentences; any other sentence, an inline enumerator ("2.", "(b)",
  "Second,"), a sentence that announces a further point ("Also", "Moreover", "Another", …) and a
  question right after a question open a new comment. A paragraph break always does.

Score fields (Rating, Confidence, Soundness …) and fragments of fewer than three words are not
comments.
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
    """Bullet items as whole comments (a run-on list cut at its items); prose as its points."""
    body = text[start:end]
    bullets = list(_BULLET.finditer(body))
    spans: list[tuple[int, int]] = []
    cursor = 0
    for i, m in enumerate(bullets):
        spans.extend(_prose(body, cursor, m.start()))
        item_end = bullets[i + 1].start() if i + 1 < len(bullets) else len(body)
        blank = re.search(r"\n[ \t]*\n", body[m.end() : item_end])
        if blank:  # a blank line ends the item; what follows is prose
            spans.extend(_enumerated(body, m.end(), m.end() + blank.start()))
            cursor = m.end() + blank.end()
        else:
            spans.extend(_enumerated(body, m.end(), item_end))
            cursor = item_end
    spans.extend(_prose(body, cursor, len(body)))
    return [(start + s, start + e) for s, e in spans]


#: where a run-on list continues with its next item: after a sentence end, an enumerator
#: ("2.", "2)", "(2)", "(b)") followed by the item's text (not "Eq. 3. The …")
_INLINE_ITEM = re.compile(
    r"(?<=[.!?;:])(?<!\b(?:eq|no)\.)(?<!\b(?:fig|sec|tab|ref|thm)\.)(?<!\bsect\.)[ \t]+"
    r"(?=(?:\(?\d{1,2}[.)]|\([a-z]{1,4}\))[ \t]*[A-Z(\"'])",
    re.IGNORECASE,
)


def _enumerated(body: str, s: int, e: int) -> list[tuple[int, int]]:
    """``body[s:e]`` cut where a run-on list starts its next item ("1. … 2. …"); else whole."""
    bounds = [s, *(s + m.end() for m in _INLINE_ITEM.finditer(body[s:e])), e]
    return [(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if body[a:b].strip()]


#: a point written as prose longer than this is cut after this many sentences (a design
#: default, not fitted: the reference's LLM splits such runs into several comments)
MAX_POINT_SENTENCES = 4

#: an inline enumerator opening a sentence: "2.", "2)", "(2)", "(b)", "b)", "(iii)"
_ENUMERATOR = re.compile(r"^\W{0,3}(?:\(?\d{1,2}[.)]|\([a-z]{1,4}\)|[a-z]\))(?=\s|[A-Z])")
_NEW_POINT = re.compile(
    _ENUMERATOR.pattern
    # or a word that opens a further point
    + r"|^\W{0,3}(?:also|additionally|another|moreover|further(?:more)?|in addition|besides|"
    r"finally|lastly|last but not least|next|first(?:ly)?|second(?:ly)?|third(?:ly)?|"
    r"fourth(?:ly)?|apart from|other than|beyond (?:this|that)|on a (?:minor|related|separate) note|"
    r"minor|a (?:minor|second|third|further|related|final) (?:point|issue|concern|question|comment)|"
    r"(?:one|my) (?:more |other |last |final |main |major |minor )?"
    r"(?:point|issue|concern|question|comment|weakness|limitation|problem))\b",
    re.IGNORECASE,
)


#: a sentence opening with one of these continues the point of the sentence before it
_CONTINUES = re.compile(
    r"^\W{0,3}(?:this|these|that|those|it|its|they|their|them|such|here|there|for example|"
    r"for instance|e\.g\.|i\.e\.|in particular|specifically|namely|however|but|yet|although|"
    r"though|because|since|as a result|as such|thus|therefore|hence|so|otherwise|indeed|in fact|"
    r"that is|instead|rather|unfortunately|in contrast|similarly|likewise|even|still|then|if|when|"
    r"without|unless|why|how|what|which|where|is|are|does|do|did|can|could|would|should|was|were|"
    r"has|have|had|"
    # the fix that follows a problem belongs to it
    r"(?:the )?authors? (?:should|could|may|might|need|must)|(?:i|we) (?:would )?(?:suggest|"
    r"recommend|encourage)|it (?:would|might|may|could) be|please|consider|one (?:could|should|way))\b",
    re.IGNORECASE,
)


def _starts_point(sentence: str, previous: str, n_in_point: int) -> bool:
    """Whether ``sentence`` opens a new comment after ``previous`` (see the module docstring)."""
    if n_in_point >= MAX_POINT_SENTENCES or _NEW_POINT.match(sentence):
        return True
    if sentence.rstrip().endswith("?") and previous.rstrip().endswith("?"):
        return True
    if previous.rstrip().endswith(":"):
        return False
    return not _CONTINUES.match(sentence)


def _prose(body: str, s: int, e: int) -> list[tuple[int, int]]:
    """Points of running prose: paragraphs, each cut into runs of sentences making one point."""
    out: list[tuple[int, int]] = []
    pieces = [
        piece
        for para in re.finditer(r"\S(?:.|\n(?![ \t]*\n))*", body[s:e])
        for piece in _enumerated(body, s + para.start(), s + para.end())
    ]
    for base, end in pieces:
        sents = sentence_spans(body[base:end])
        group: list[tuple[int, int]] = []
        prev = ""
        for sp in sents:
            if group and _starts_point(sp.text, prev, len(group)):
                out.append((base + group[0][0], base + group[-1][1]))
                group = []
            group.append((sp.start, sp.end))
            prev = sp.text
        if group:
            out.append((base + group[0][0], base + group[-1][1]))
    return out


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
