"""Text helpers shared by the reviewer-system modules.

Reviews arrive as markdown-ish text with one of two header styles: bold lines (``**Summary:**``,
SEA and TreeReview) or markdown headings (``### Summary``, Reviewer2, DeepReview, CycleReview).
These helpers strip ``<think>`` blocks, split text into ordered :class:`Section` records, sort
section names into *families* (summary, strengths, weaknesses, questions, …) and read score
sections ("3 good", "6: marginally above …") into raw and normalised values.
"""

from __future__ import annotations

import re
from typing import Any

from prism_review.records import Section
from prism_review.venues import Scale, leading_number

_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)


def split_think(text: str, *, guard: bool = False) -> tuple[str, str]:
    """Split ``text`` into ``(reasoning, answer)``.

    Closed ``<think>…</think>`` blocks are removed; a stray ``</think>`` drops everything before
    it (the original's rule); an unclosed ``<think>`` drops everything after it (the generation
    ran out inside its reasoning, so there is no review text there).

    With ``guard`` (the clean readers), a stray tag drops the text on its far side only when
    that text holds no section heading (then only the tag goes): reasoning has no review form,
    so a lone tag inside, before or after a structured review (an injected one) does not erase
    the review's sections (issue 16).
    """
    think_parts: list[str] = []

    def _take(m: re.Match[str]) -> str:
        think_parts.append(m.group(0))
        return ""

    body = _THINK_BLOCK.sub(_take, text)
    closes = list(_THINK_CLOSE.finditer(body))
    if closes:
        last = closes[-1]
        if not (guard and _has_headings(body[: last.start()])):
            think_parts.append(body[: last.end()])
            body = body[last.end() :]
        else:  # only the tags go
            body = _THINK_CLOSE.sub("", body)
    opened = _THINK_OPEN.search(body)
    if opened and not (guard and _has_headings(body[opened.end() :])):
        think_parts.append(body[opened.start() :])
        body = body[: opened.start()]
    elif opened:
        body = _THINK_OPEN.sub("", body)
    return "\n".join(think_parts), body


def _has_headings(text: str) -> bool:
    """True when ``text`` holds a markdown heading or a known bold section header."""
    return bool(hash_headers(text, levels=(1, 2, 3)) or bold_headers(text))


def strip_think(text: str) -> str:
    """``text`` without its ``<think>`` reasoning (see :func:`split_think`)."""
    return split_think(text)[1]


def norm_name(name: str) -> str:
    """Lower-case a header name and fold punctuation/whitespace to single spaces."""
    return re.sub(r"[^a-z0-9]+", " ", name.lower()).strip()


#: families of score sections (read by :func:`read_section_scores`, left out of review text)
SCORE_FAMILIES = ("soundness", "presentation", "contribution", "rating", "confidence", "decision")


def family(name: str) -> str:
    """Classify a section name: a text family (``summary``, ``strengths``, ``weaknesses``,
    ``questions``, ``limitations``, ``justification``), one of :data:`SCORE_FAMILIES`,
    ``strengths_weaknesses``, ``meta`` or ``other``."""
    n = norm_name(name)
    if not n:
        return "other"
    if "ethic" in n or "code of conduct" in n or n in {"review id", "id"}:
        return "meta"
    if re.match(r"comment \d+\b", n):  # a quote-anchored BYO comment is a critique
        return "weaknesses"
    if ("strength" in n and "weakness" in n) or n == "main review":
        # "Main Review" is the ICLR 2021-22 form's one field for strengths and weaknesses
        return "strengths_weaknesses"
    if "weakness" in n:
        return "weaknesses"
    if "strength" in n:
        return "strengths"
    if n.startswith("summary") or n in {"paper summary", "synopsis"}:
        return "summary"
    if "question" in n:
        return "questions"
    if "limitation" in n:
        return "limitations"
    if "justification" in n:
        return "justification"
    if "novelty and significance" in n:
        return "contribution"
    for fam in ("soundness", "presentation", "confidence"):
        if n.startswith(fam):
            return fam
    if n in {"contribution", "contributions score"}:
        return "contribution"
    if n in {"rating", "overall rating", "overall recommendation", "recommendation", "score"}:
        return "rating"
    if n in {"paper decision", "decision", "final decision"}:
        return "decision"
    return "other"


_EXTRA_KNOWN = {
    "clarity quality novelty and reproducibility",
    "suggestions",
    "suggestions for improvement",
    "additional comments",
    "other comments",
    "minor comments",
    "comments",
    "meta review",
    "overall assessment",
    "requested changes",
}


def is_known_section(name: str) -> bool:
    """True for names a review form uses as a top-level section header."""
    return family(name) != "other" or norm_name(name) in _EXTRA_KNOWN


_BOLD = re.compile(
    r"^[ \t]*\*\*(?P<name>[A-Za-z][^*\n]{0,80}?)\s*(?::\*\*|\*\*:|\*\*)[ \t]*(?P<rest>[^\n]*)$",
    re.MULTILINE,
)


def bold_headers(text: str, *, any_header: bool = False) -> list[tuple[int, int, str, str]]:
    """Bold section headers of ``text`` as ``(start, end, name, rest_of_line)``.

    By default only known review-section names count (so a bold sub-heading such as
    ``**Major concerns:**`` inside Weaknesses stays in its section); with ``any_header`` every
    bold line-start header counts.
    """
    out = []
    for m in _BOLD.finditer(text):
        name = m.group("name").strip().rstrip(":").strip()
        rest = m.group("rest")
        if any_header:
            if rest.strip() and not is_known_section(name):
                continue
        elif not is_known_section(name):
            continue
        out.append((m.start(), m.end(), name, rest))
    return out


_HASH = re.compile(r"^[ \t]*(?P<hashes>#{1,6})[ \t]+(?P<name>[^\n]+?)[ \t#]*$", re.MULTILINE)


def _clean_heading(name: str) -> str:
    name = name.strip().strip("*").strip()
    name = re.sub(r"^\d+(\.\d+)*[.)]?\s+", "", name)
    return name.rstrip(":").strip()


def hash_headers(text: str, *, levels: tuple[int, ...] = (2, 3)) -> list[tuple[int, int, str, str]]:
    """Markdown headings of the given levels as ``(start, end, name, "")``."""
    out = []
    for m in _HASH.finditer(text):
        if len(m.group("hashes")) in levels:
            out.append((m.start(), m.end(), _clean_heading(m.group("name")), ""))
    return out


def sections_from_headers(text: str, headers: list[tuple[int, int, str, str]]) -> list[Section]:
    """Cut ``text`` at ``headers``; text before the first header becomes an unnamed section."""
    sections: list[Section] = []
    if not headers:
        body = text.strip()
        return [Section(name="", text=body)] if body else []
    pre = text[: headers[0][0]].strip()
    if pre:
        sections.append(Section(name="", text=pre))
    for i, (_start, end, name, rest) in enumerate(headers):
        stop = headers[i + 1][0] if i + 1 < len(headers) else len(text)
        body = (rest.strip() + "\n" + text[end:stop]).strip() if rest.strip() else text[end:stop]
        sections.append(Section(name=name, text=strip_rules(body).strip()))
    return sections


def split_bold_sections(text: str) -> list[Section]:
    """Sections of a bold-header review (SEA, TreeReview); any bold header as a fallback."""
    headers = bold_headers(text) or bold_headers(text, any_header=True)
    return sections_from_headers(text, headers)


def split_hash_sections(text: str, *, levels: tuple[int, ...] = (2, 3)) -> list[Section]:
    """Sections of a ``##``/``###`` review; bold headers when it has no headings.

    A list broken by a foreign heading run keeps its items (:func:`_interrupted_list`).
    """
    headers = hash_headers(text, levels=levels)
    if not headers:
        return split_bold_sections(text)
    sections: list[Section] = []
    seen: set[str] = set()
    while (cut := _interrupted_list(text, headers, seen)) is not None:
        k, resume, stop = cut
        before = [h for h in headers if h[0] < resume]
        part = sections_from_headers(text[:resume], before)
        host = len(part) - len(before) + k - 1  # the section the list belongs to
        part[host] = Section(name=part[host].name, text=(
            part[host].text + "\n" + strip_rules(text[resume:stop]).strip()).strip())
        sections += part
        seen |= {norm_name(h[2]) for h in before}
        text = text[stop:]
        headers = [(a - stop, b - stop, n, r) for a, b, n, r in headers if a >= stop]
        if not headers:
            return sections + sections_from_headers(text, [])
    return sections + sections_from_headers(text, headers)


#: a list item's marker ("- ", "* ", "1. ", "(a) ") or a titled line ("Limited scope: ...")
_ITEM = re.compile(
    r"^[ \t]*(?:(?P<m>[-*•+]|\d{1,3}[.)]|\(?[a-z]\))[ \t]+\S|(?P<t>[A-Z][\w/&,'()-]*(?:[ \t]+[\w/&,'()-]+){0,6}):[ \t]+\S)"
)
#: a heading that no single review form holds: another reviewer's, or a meta review
_FOREIGN = re.compile(r"^(?:reviewer \d+|reviewer|meta review|metareview)$")


def _item_kind(line: str) -> str | None:
    m = _ITEM.match(line)
    if not m:
        return None
    return "title" if m.group("t") else re.sub(r"\d+", "1", m.group("m"))


def _interrupted_list(
    text: str, headers: list[tuple[int, int, str, str]], seen: set[str]
) -> tuple[int, int, int] | None:
    """Where a foreign heading run breaks a list: ``(k, resume, stop)`` or None.

    A review form names each section once, and no section of one review is another reviewer's
    or a meta review. So a heading that repeats a name already used (``## Strengths`` after the
    Strengths) or names another reviewer (``## Reviewer 2``, ``## Meta Review``) does not open
    a section of this review; when it comes after a list item (a bullet, a number or a titled
    line) and a later line carries an item of the same kind, the list resumes there (issue 16:
    a heading block pasted into the middle of Weaknesses had moved the rest of the weaknesses
    under ``## Summary of the Review``). ``k`` is the first foreign heading, ``resume`` the
    first resumed item, ``stop`` the next heading after it (or the end): the items from
    ``resume`` to ``stop`` go back to the list's section, which is the section before ``k``.
    Headings in between stay sections of their own.
    """
    names = set(seen)
    for k, (start, _end, name, _rest) in enumerate(headers):
        n = norm_name(name)
        if k > 0 and (n in names or _FOREIGN.match(n)):
            body = text[headers[k - 1][1] : start].rstrip().split("\n")
            kind = _item_kind(body[-1]) if body and body[-1].strip() else None
            if kind is None:
                return None
            pos = headers[k][1]
            for line in re.finditer(r"[^\n]+", text[pos:]):
                at = pos + line.start()
                if _HASH.match(line.group(0)):
                    continue
                if _item_kind(line.group(0)) == kind:
                    stop = next((h[0] for h in headers if h[0] > at), len(text))
                    return k, at, stop
            return None
        names.add(n)
    return None


_RULE_TAIL = re.compile(r"(?:\n[ \t]*(?:-{3,}|={3,}|\*{3,})[ \t]*)+\s*$")


def strip_rules(text: str) -> str:
    """Remove trailing ``---``/``===``/``***`` separator lines."""
    return _RULE_TAIL.sub("", "\n" + text)[1:] if text else text


#: the ICLR-style review form most LLM reviewers are prompted with
LLM_SCALES: dict[str, Scale] = {
    "soundness": Scale(low=1, high=4),
    "presentation": Scale(low=1, high=4),
    "contribution": Scale(low=1, high=4),
    "confidence": Scale(low=1, high=5),
    "rating": Scale(low=1, high=10),
}


def read_section_scores(
    sections: list[Section], scales: dict[str, Scale] | None = None
) -> tuple[dict[str, Any], dict[str, float | None]]:
    """Raw and normalised scores from score-family sections (first line of each)."""
    scales = LLM_SCALES if scales is None else scales
    raw: dict[str, Any] = {}
    norm: dict[str, float | None] = {}
    for sec in sections:
        fam = family(sec.name)
        if fam not in SCORE_FAMILIES or not sec.text.strip():
            continue
        first = sec.text.strip().splitlines()[0].strip()
        raw[sec.name] = first
        if fam in scales:
            value = leading_number(first.lstrip("*# "))
            norm[sec.name] = scales[fam].normalise(value) if value is not None else None
    return raw, norm


#: values that mean "no answer" in human review fields
SKIP_VALUES = frozenset({"", "none", "none.", "n/a", "n/a.", "na", "na.", "tbd", "-", "--", "nan"})


_REVIEWER_HEAD = re.compile(
    r"^[ \t]*#{1,3}[ \t]*\**Reviewer[ \t]*#?(?P<n>\d+)?[^\n]*$", re.M | re.I
)
_BLOCK_END = re.compile(
    r"^[ \t]*(?:#{1,2}[ \t]+\S[^\n]*|\*{5,}[ \t]*|\}[ \t]*|\\boxed_\w+\{?[^\n]*)$", re.M
)
SEPARATOR = re.compile(r"^[ \t]*\*{5,}[ \t]*$", re.M)


def reviewer_blocks(text: str) -> list[tuple[str, str]]:
    """``(reviewer number or "", text)`` for each ``## Reviewer N`` heading of ``text``.

    A block ends at the next reviewer heading, a top-level (``#``/``##``) heading such as
    ``## Meta Review``, a ``*****`` separator line, a lone ``}`` or a ``\\boxed_…`` marker line
    (DeepReviewer wraps its simulated reviewers in ``\\boxed_simreviewers{…}`` followed by a
    verification block), so nothing after the review proper is swallowed.
    """
    heads = list(_REVIEWER_HEAD.finditer(text))
    blocks = []
    for i, m in enumerate(heads):
        stop = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        end = _BLOCK_END.search(text, m.end(), stop)
        if end:
            stop = end.start()
        blocks.append((m.group("n") or "", strip_rules(text[m.end() : stop]).strip()))
    return blocks


def content_blocks(content: str) -> list[str]:
    """The simulated reviewers of ``content``: its ``## Reviewer`` blocks (each ending at a
    ``*****`` line or a top-level heading such as ``## Meta Review``); without such headings,
    the non-empty parts between ``*****`` lines."""
    blocks = reviewer_blocks(content)
    if blocks:
        return [text for _, text in blocks if text]
    return [t for t in (strip_rules(p).strip() for p in SEPARATOR.split(content)) if t]


def first_content_part(content: str) -> str:
    """``content`` up to the first ``**********`` line (the original DoA rule)."""
    return SEPARATOR.split(content, maxsplit=1)[0].strip()


#: Reviewer2's file header: ``PAPER: <title>``, a ``===`` rule, ``REVIEW``, a ``---`` rule
_HEADER = re.compile(
    r"\A\s*PAPER:[ \t]*(?P<title>[^\n]*)\n[ \t]*=+[ \t]*\n\s*REVIEW[ \t]*\n[ \t]*-+[ \t]*\n",
)
_LOOSE_HEADER = re.compile(
    r"\A\s*(?:PAPER:[^\n]*\n)?(?:[ \t]*=+[ \t]*\n)?\s*(?:REVIEW[ \t]*\n)?(?:[ \t]*-+[ \t]*\n)?"
)


def split_header(text: str) -> tuple[str | None, str]:
    """``(paper title, rest)``; tolerant of missing rule lines."""
    m = _HEADER.match(text)
    if m:
        return m.group("title").strip() or None, text[m.end() :]
    title = None
    first = re.match(r"\A\s*PAPER:[ \t]*([^\n]*)", text)
    if first:
        title = first.group(1).strip() or None
    m2 = _LOOSE_HEADER.match(text)
    return title, text[m2.end() :] if m2 else text
