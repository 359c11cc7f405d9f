"""Best-effort titles from a paper's own reference list, for papers without a GROBID bibliography.

The reference section (after a "References"/"Bibliography" heading, up to an appendix heading)
is split into entries — ``[n]`` markers, bullets, numbered lines or blank lines — and each entry
gives a title by two rules:

* author–year style with a period after the year, ``Smith, J. (2020). Title. Venue`` → the
  sentence after the year;
* otherwise ``Authors. Title. Venue, year`` → the second sentence, where a sentence ends at a
  period that follows a lower-case letter, digit or bracket (so initials like "J." do not
  split). A leading natbib label ``Smith et al. (2020)`` is removed first.

Titles shorter than 3 words or longer than 40 are dropped. Output is a list of
:class:`~prism_review.records.BibEntry` (title, year).
"""

from __future__ import annotations

import re

from prism_review.records import BibEntry

_REF_HEAD = re.compile(
    r"^[ \t]*(?:#+[ \t]*)?(?:\d+\.?[ \t]*)?(?:R[ \t]?E[ \t]?F[ \t]?E[ \t]?R[ \t]?E[ \t]?N[ \t]?C[ \t]?E[ \t]?S|Bibliography|Works Cited)\b[ \t:]*$",
    re.IGNORECASE | re.MULTILINE,
)
_APPENDIX = re.compile(
    r"^[ \t]*(?:#+[ \t]*)?(?:[A-Z]\.?[ \t]+)?(?:A[ \t]?PPENDIX|Appendix|Supplementary)\b",
    re.MULTILINE,
)
_ENTRY_START = re.compile(r"^[ \t]*(?:\[\d+\]|\*|-|•|\d{1,3}\.)[ \t]+", re.MULTILINE)
_YEAR_PERIOD = re.compile(r"\((?:19|20)\d{2}[a-z]?\)\.\s+")
_NATBIB_LABEL = re.compile(r"^[^()]{1,80}?\((?:19|20)\d{2}[a-z]?\)\s+(?!\.)")
_SENT_END = re.compile(r"(?<=[a-z0-9)\]_?!])[.?!]\s+")
_YEAR = re.compile(r"\b((?:19|20)\d{2})[a-z]?\b")


def reference_section(text: str) -> str:
    """The text after the last references heading, up to an appendix heading ('' if none)."""
    heads = list(_REF_HEAD.finditer(text or ""))
    if not heads:
        return ""
    body = text[heads[-1].end() :]
    app = _APPENDIX.search(body)
    return body[: app.start()] if app else body


def split_entries(section: str) -> list[str]:
    """Reference entries: by ``[n]``/bullet/number markers when present, else by blank lines."""
    if not section.strip():
        return []
    starts = [m.start() for m in _ENTRY_START.finditer(section)]
    if len(starts) >= 2:
        bounds = [*starts, len(section)]
        chunks = [section[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
        chunks = [_ENTRY_START.sub("", c, count=1) for c in chunks]
    else:
        chunks = re.split(r"\n\s*\n", section)
    return [" ".join(c.split()) for c in chunks if c.strip()]


def _names_like(segment: str) -> bool:
    words = [
        w
        for w in re.split(r"[\s,&]+", segment)
        if w and w.lower() not in {"and", "et", "al", "al."}
    ]
    if not words or len(segment) > 600:
        return False
    caps = sum(1 for w in words if w[0].isupper())
    return caps / len(words) >= 0.6 and ("," in segment or len(words) <= 4)


def entry_title(entry: str) -> str:
    """The title of one reference entry, or '' when none can be told apart.

    The entry must look like a reference: a year somewhere and an author-like first part
    (mostly capitalised words, comma-separated); body sentences of a badly extracted PDF fail.
    """
    if not _YEAR.search(entry) or len(entry) > 1200:
        return ""
    m = _YEAR_PERIOD.search(entry)
    if m and m.start() < 300:
        if not _names_like(entry[: m.start()]):
            return ""
        rest = entry[m.end() :]
        parts = _SENT_END.split(rest, maxsplit=1)
        title = parts[0]
    else:
        entry = _NATBIB_LABEL.sub("", entry, count=1)
        parts = _SENT_END.split(entry, maxsplit=2)
        if len(parts) < 2 or not _names_like(parts[0]):
            return ""
        title = parts[1]
    title = title.strip().strip("_*\"'“”").strip()
    title = re.sub(r"^In\s+", "", title) if title.startswith("In _") else title
    n = len(title.split())
    return title if 3 <= n <= 40 else ""


def parse_reference_list(text: str) -> list[BibEntry]:
    """Bibliography entries (title, year) recovered from a paper's reference section."""
    out = []
    seen = set()
    for entry in split_entries(reference_section(text)):
        title = entry_title(entry)
        key = title.lower()
        if not title or key in seen:
            continue
        seen.add(key)
        years = _YEAR.findall(entry)
        out.append(BibEntry(title=title, year=int(years[-1]) if years else None))
    return out
