"""Machine markup inside review text, which the offline judges do not read as review prose.

Reviews are prose, but a review can carry blocks that are not: JSON objects (for instance a
reply shaped like a judge step's schema, pasted in to steer a judge), code fences, HTML comments
and tags, ``<<<…>>>`` fence look-alikes, bracketed ``[END …]`` markers and chat role labels
(``SYSTEM:``, ``ASSISTANT:``). The offline judges cut text into sentences and score
them, so such a block became units, claims, flaws or comments of its own, with its numbers and
quoted field names read as specifics (issue 16: a fake depth reply raised S_depth by 0.5-0.75
where neutral prose of the same length moved it by < 0.12).

:func:`mask_markup` blanks these blocks out with spaces of the same length (line breaks kept),
so every offset into the text stays valid and what is left is the review's prose. LLM judges
see the text unchanged, fenced as data (:mod:`prism_review.judge.fence`).

:func:`offline_view` is what every offline step reads: the markup masked, markdown tables read
as text (:func:`tables_as_text`: each cell a paragraph), then the sentences
addressed to the judge rather than about the paper (:mod:`prism_review.judge.addressed`) masked
the same way; :func:`masked_counts` counts both kinds of span for the results row.
"""

from __future__ import annotations

import re
from functools import lru_cache

from prism_review.judge.addressed import addressed_spans

#: a JSON object key: a quoted name followed by a colon
_JSON_KEY = re.compile(r'"[^"\n]{1,80}"\s*:')
_CODE_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*$", re.M)
#: an HTML comment; an unclosed ``<!--`` is masked alone (the opener), never the text after it:
#: a review holding one opener is still read whole (before, the rest of the review vanished
#: from every offline step)
_HTML_COMMENT = re.compile(r"<!--.*?-->|<!--", re.S)
_TAG = re.compile(r"</?[A-Za-z][\w:-]*(?:\s[^<>\n]{0,300})?/?>")
_FENCE_LOOKALIKE = re.compile(r"<<<[^\n]{0,200}?>>>|^[ \t]*(?:>>>|<<<)[ \t]*$", re.M)
#: bracketed begin/end markers ("[END OF REVIEW TEXT]", "[BEGIN PAPER]")
_MARKER = re.compile(r"\[[ \t]*(?:END|BEGIN|START|STOP)\b[A-Z0-9 _/-]{0,60}\]")
#: chat-transcript role labels opening a line ("SYSTEM:", "ASSISTANT:"); the label only
_ROLE_LABEL = re.compile(r"^[ \t]*(?:SYSTEM|ASSISTANT|USER|DEVELOPER)[ \t]*:", re.M)
#: where a JSON block can open: a bracket followed by a quoted key, or by a nested bracket
_JSON_OPEN = re.compile(r'[{\[](?=\s*["{\[])')
#: the longest bracketed block examined as JSON (longer ones are left as text)
MAX_JSON_CHARS = 20_000


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return text
    chars = list(text)
    for a, b in spans:
        for i in range(a, b):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars)


def _bracket_end(text: str, start: int) -> int | None:
    """The end of the balanced ``{…}``/``[…]`` block opening at ``start`` (strings skipped),
    or None when it does not close within :data:`MAX_JSON_CHARS`."""
    depth = 0
    in_str = False
    i = start
    stop = min(len(text), start + MAX_JSON_CHARS)
    while i < stop:
        c = text[i]
        if in_str:
            if c == "\\":
                i += 1
            elif c == '"':
                in_str = False
            elif c == "\n":
                in_str = False  # JSON strings do not span lines: not a string after all
        elif c == '"':
            in_str = True
        elif c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def json_spans(text: str) -> list[tuple[int, int]]:
    """Balanced ``{…}``/``[…]`` blocks holding at least one ``"key":`` pair (JSON objects, or
    arrays of them); outermost blocks only."""
    out: list[tuple[int, int]] = []
    i = 0
    while True:
        m = _JSON_OPEN.search(text, i)
        if not m:
            return out
        end = _bracket_end(text, m.start())
        if end is not None and _JSON_KEY.search(text, m.start(), end):
            out.append((m.start(), end))
            i = end
        else:
            i = m.start() + 1


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Fenced code blocks (a lone fence line: that line only)."""
    fences = list(_CODE_FENCE.finditer(text))
    out = []
    k = 0
    while k < len(fences):
        if k + 1 < len(fences):
            out.append((fences[k].start(), fences[k + 1].end()))
            k += 2
        else:
            out.append((fences[k].start(), fences[k].end()))
            k += 1
    return out


def markup_spans(text: str) -> tuple[str, list[tuple[int, int]]]:
    """``(text with its machine markup blanked out, the blanked spans)``."""
    if not text or not any(c in text for c in '{["`~<>:'):
        return text, []
    first = _code_spans(text)
    first += [m.span() for m in _HTML_COMMENT.finditer(text)]
    text = _blank(text, first)
    spans = json_spans(text)
    spans += [m.span() for m in _TAG.finditer(text)]
    for pattern in (_FENCE_LOOKALIKE, _MARKER, _ROLE_LABEL):
        spans += [m.span() for m in pattern.finditer(text)]
    return _blank(text, spans), first + spans


def mask_markup(text: str) -> str:
    """``text`` with its machine markup blanked out (same length; see the module docstring)."""
    return markup_spans(text)[0]


#: a review text is viewed by every offline step that reads it and once more for the row's
#: masked counts; the view depends on the text alone, so each distinct text is masked once
_VIEW_CACHE = 2048


#: a markdown table's delimiter row (``|---|:---:|``)
_TABLE_RULE = re.compile(r"^[ \t]*\|?(?:[ \t]*:?-{3,}:?[ \t]*\|)+(?:[ \t]*:?-{3,}:?[ \t]*)?$")
#: a table row: a line opening and closing with ``|`` around at least one more
_TABLE_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$")


def tables_as_text(text: str) -> str:
    """``text`` with its markdown tables read as text (same length): each cell becomes a
    paragraph of its own, as the same sentences written outside a table would be, and the
    delimiter rows go. A table's pipes and rows hid its cells from the sentence rules (an
    instruction in a cell was not at a sentence start, so it stayed a claim or a comment: NS
    moved by up to 0.25). A line is a table row when it opens and closes with ``|``, or holds
    a ``|`` next to a delimiter row's block."""
    if "|" not in text:
        return text
    lines = text.split("\n")
    rule = [bool(_TABLE_RULE.match(line)) and "|" in line for line in lines]
    in_table = [bool(_TABLE_ROW.match(line)) for line in lines]
    for i in (k for k, is_rule in enumerate(rule) if is_rule):  # rows without outer pipes
        for step in (-1, 1):
            j = i + step
            while 0 <= j < len(lines) and "|" in lines[j] and lines[j].strip():
                in_table[j] = True
                j += step
    out = []
    for line, is_rule, row in zip(lines, rule, in_table, strict=True):
        if is_rule:
            out.append(" " * len(line))
        elif row:
            chars = list(line)
            for k, c in enumerate(line):
                if c == "|" and (k == 0 or line[k - 1] != "\\"):
                    chars[k] = "\n"
                    if k + 1 < len(line) and line[k + 1] in " \t":
                        chars[k + 1] = "\n"  # a blank line: the next cell is a paragraph
            out.append("".join(chars))
        else:
            out.append(line)
    return "\n".join(out)


@lru_cache(maxsize=_VIEW_CACHE)
def _view(text: str) -> tuple[str, int, int]:
    masked, markup = markup_spans(text)
    masked = tables_as_text(masked)
    addressed = addressed_spans(masked)
    return _blank(masked, addressed), len(markup), len(addressed)


def offline_view(text: str) -> str:
    """What the offline judges read of a review text: ``text`` with its machine markup and
    its sentences addressed to the judge blanked out (same length, line breaks kept)."""
    return _view(text)[0]


def masked_counts(text: str) -> dict[str, int]:
    """How many spans :func:`offline_view` blanks out of ``text``, by kind (``markup``,
    ``addressed``); empty when it blanks nothing."""
    _, markup, addressed = _view(text)
    return {k: v for k, v in (("markup", markup), ("addressed", addressed)) if v}
