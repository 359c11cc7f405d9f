"""Criticism splitting for the offline judge: review sections → criticism items → quotes.

A review is cut into its own sections (bold ``**Name:**`` lines, ``#`` headings or short
``Name:`` lines). Weakness-like sections (weaknesses, questions, limitations, the ICML rubric's
evaluative fields …) are split into items: a bullet or numbered point, or a paragraph. An item
is a criticism when one of its sentences is judged a criticism (the DISAPERE-trained model, with
a lower bar inside weakness-like sections and a few lexical cues); its quote is that sentence,
verbatim. A review without any header is read as one weakness-like section.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from prism_review.judge.flaws.criticism import criticism_probability
from prism_review.text import sentence_spans

_HEADER = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]*(?P<h>[^\n]{1,80}?)[ \t]*:?|\*\*(?P<b>[^*\n]{1,80}?)[ \t]*:?[ \t]*\*\*[ \t]*:?"
    r"|(?P<c>[A-Z][A-Za-z /&,()-]{1,60}):)[ \t]*$",
    re.M,
)
_CRITICAL_SECTION = re.compile(
    r"weak|limitation|concern|question|issue|suggest|comment|claims and evidence|methods and eval"
    r"|theoretical claims|experimental design|essential references|supplementary|improvement"
    r"|critic|problem|drawback|cons\b|minor|major|detailed",
    re.I,
)
_NON_CRITICAL_SECTION = re.compile(
    r"^(summary|strengths?|rating|confidence|soundness|presentation|contribution|decision"
    r"|paper decision|code of conduct|ethic|flag|overall|recommendation|review id)\b",
    re.I,
)
_ITEM_START = re.compile(
    r"(?:^[ \t]*|[ \t]{2,}|(?<=[.!?])[ \t](?=[-•][ \t]))(?:[-*•]|\d{1,2}[.)]|\(\w\)|[a-z][.)])[ \t]+",
    re.M,
)
_CUE = re.compile(
    r"\b(lack|lacks|missing|no |not |unclear|limited|insufficient|should|could|would|weak|fail"
    r"|only|however|concern|why|how|whether|questionable|unconvincing|overclaim|incorrect|wrong"
    r"|typos?|confusing|difficult|hard to|without|absence|need|needs|please)\b",
    re.I,
)


_MARKER = re.compile(r"^(?:[-*•]|\d{1,2}[.)]|\(\w{1,3}\))\s+")
#: closing remarks inside a weaknesses list ("Overall, ...", "Addressing these concerns ...")
_CLOSING = re.compile(
    r"^(?:overall,|(?:in summary|in conclusion|to summari[sz]e|addressing (?:the|these|this)"
    r"|despite (?:these|this))\b)",
    re.I,
)
_POINTER = re.compile(r"^(please )?(see|refer to) (the )?(weakness|above|comments|previous)", re.I)


@dataclass
class Criticism:
    """One criticism of one reviewer: the quote (verbatim), the item text and where it is."""

    reviewer_id: str
    quote: str
    item: str
    section: str
    start: int


@dataclass
class ReviewSection:
    name: str
    body: str
    start: int


def review_sections(text: str) -> list[ReviewSection]:
    """The review's sections in order; text before the first header is an unnamed section."""
    heads = list(_HEADER.finditer(text))
    if not heads:
        return [ReviewSection("", text, 0)]
    out = []
    if text[: heads[0].start()].strip():
        out.append(ReviewSection("", text[: heads[0].start()], 0))
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        name = (m.group("h") or m.group("b") or m.group("c") or "").strip().strip(":").strip()
        out.append(ReviewSection(name, text[m.end() : end], m.end()))
    return out


def is_critical_section(name: str) -> bool:
    """Does a section of this name hold weaknesses or requests?"""
    if not name:
        return True
    if _CRITICAL_SECTION.search(name):
        return True
    return not _NON_CRITICAL_SECTION.search(name)


#: a line opening with a short title and a colon ("Limited scope: ...") or a glued number ("2.While")
_LABEL_LINE = re.compile(
    r"^[ \t]*(?:[A-Z][\w/&,'()-]*(?:[ \t]+[\w/&,'()-]+){0,6}:[ \t]+\S|\d{1,2}[.)]\S)"
)
#: a title opening a sentence inside a line ("... translation. Model Architectures: The ...")
_INLINE_LABEL = re.compile(r"(?<=[.!?])[ \t]+(?=[A-Z][\w/&'()-]*(?:[ \t]+[\w/&'()-]+){0,4}:[ \t])")
#: a line that continues the previous one (anaphora, a lower-case start)
_CONTINUATION = re.compile(
    r"^[ \t]*(?:[a-z(]|(?i:this|these|that|those|it|they|such|the authors (?:do|also)|i\.e\.|e\.g\.)\b)"
)
#: a follow-up request that belongs to the criticism just before it ("More X would be helpful")
_FOLLOW_UP = re.compile(
    r"\b(?:would|could|should|might|will) (?:also )?(?:be (?:helpful|useful|interesting|beneficial|"
    r"valuable|good|nice|discussed|explored|clarified|improved|welcome)|(?:further )?(?:strengthen|"
    r"improve|help|make|enhance|broaden|provide|add))\b",
    re.I,
)


def _units(piece: str) -> list[tuple[int, str]]:
    """The non-empty lines of a block, a line also cut where a sentence opens with a title."""
    out: list[tuple[int, str]] = []
    for m in re.finditer(r"[^\n]+", piece):
        if not m.group().strip():
            continue
        cuts = [0, *(t.start() for t in _INLINE_LABEL.finditer(m.group())), len(m.group())]
        out.extend((m.start() + a, m.group()[a:b]) for a, b in zip(cuts, cuts[1:], strict=False))
    return out


def _line_items(piece: str, base: int) -> list[tuple[int, str]]:
    """Cut a sentence-per-line block (most lines end a sentence) into one item per criticism.

    A line with a title ("Limited scope: ...") opens an item. In a block with titles the other
    lines belong to the titled item before them; without titles each line opens an item unless
    it continues the previous line (anaphora, a lower-case start) or is a follow-up request to it
    ("More X would be helpful" after a criticism). A closing remark ("Overall, ...") and the
    lines after it up to the next title are no item.
    """
    lines = _units(piece)
    ends = sum(1 for _, ln in lines if ln.rstrip().endswith((".", "?", "!", ")", '"')))
    if len(lines) < 2 or ends < 0.75 * len(lines):
        return [(base, piece)]
    titled = sum(1 for _, ln in lines if _LABEL_LINE.match(ln)) >= 2
    cuts = [lines[0][0]]
    closing = {lines[0][0]} if _CLOSING.match(lines[0][1].strip()) else set()
    for i, (off, ln) in enumerate(lines[1:], start=1):
        if _CLOSING.match(ln.strip()):
            cuts.append(off)  # a closing remark and what follows it up to a title are dropped
            closing.add(off)
            continue
        if _LABEL_LINE.match(ln):
            cuts.append(off)
            continue
        follow_up = _FOLLOW_UP.search(ln) is not None
        prev_follow_up = _FOLLOW_UP.search(lines[i - 1][1]) is not None
        if not titled and not _CONTINUATION.match(ln) and not (follow_up and not prev_follow_up):
            cuts.append(off)
    bounds = [*cuts, len(piece)]
    return [
        (base + a, piece[a:b]) for a, b in zip(bounds, bounds[1:], strict=False) if a not in closing
    ]


def _items(body: str) -> list[tuple[int, str]]:
    """Split a section body into bullet/numbered items or paragraphs, with offsets; a block of
    one sentence per line is cut further by :func:`_line_items`."""
    cuts = {0}
    cuts.update(m.start() for m in _ITEM_START.finditer(body))
    cuts.update(m.end() for m in re.finditer(r"\n[ \t]*\n", body))
    bounds = sorted(cuts) + [len(body)]
    out = [(a, body[a:b]) for a, b in zip(bounds, bounds[1:], strict=False) if body[a:b].strip()]
    return _line_items(out[0][1], out[0][0]) if len(out) == 1 else out


_WEAKNESS_SECTION = re.compile(
    r"weak|limitation|concern|drawback|\bcons\b|critic|problem|issue", re.I
)


def _bar(name: str, has_named_critical: bool, threshold: float) -> float:
    """The criticism-probability bar of a section: every item of a named weaknesses section
    counts; question-like and unnamed sections need the model (plus cues) to agree."""
    if name and _WEAKNESS_SECTION.search(name):
        return float("-inf")
    if name:
        return threshold - 0.35
    return threshold - 0.2 if not has_named_critical else threshold


def criticisms(reviewer_id: str, text: str, threshold: float = 0.5) -> list[Criticism]:
    """The criticism items of one review, in order, each with a verbatim quote."""
    sections = review_sections(text)
    has_named_critical = any(s.name and is_critical_section(s.name) for s in sections)
    out: list[Criticism] = []
    for sec in sections:
        if sec.name and not is_critical_section(sec.name):
            continue
        if not sec.name and has_named_critical:
            continue  # a preamble before named weakness sections is usually the summary
        bar = _bar(sec.name, has_named_critical, threshold)
        for off, item in _items(sec.body):
            best, best_p = None, float("-inf")
            for sp in sentence_spans(item):
                s = _MARKER.sub("", sp.text.strip(" -*•\t"))
                if (
                    len(s) < 12
                    or (s.endswith(":") and len(s) < 60)
                    or _POINTER.search(s)
                    or _CLOSING.search(s)
                ):
                    continue
                p = criticism_probability(s) + (0.15 if _CUE.search(s) else 0.0)
                if p > best_p:
                    best, best_p = s, p
            if best is not None and best_p >= bar:
                out.append(
                    Criticism(
                        reviewer_id,
                        best,
                        " ".join(item.split()),
                        sec.name or "Weaknesses",
                        sec.start + off,
                    )
                )
    return out
