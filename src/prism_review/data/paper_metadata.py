"""A paper's title, abstract, decision and keywords when no human review file gives them:
the venue folder's optional ``paper_metadata.jsonl`` (rows ``{paper_id, title?, abstract?,
decision?, keywords?}``, docs/byo-format.md), else a best-effort guess from the paper's text.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from prism_review.data.jsonl import iter_jsonl
from prism_review.data.skips import SkipLog
from prism_review.guards.errors import DataError

METADATA_FILE = "paper_metadata.jsonl"


def read_paper_metadata(path: Path) -> tuple[dict[str, dict[str, Any]], list[DataError]]:
    """The rows of a ``paper_metadata.jsonl`` by paper id, and one error per bad row (naming the
    line): a bad row is skipped, the others still apply. An unreadable file is a
    :class:`DataError`."""
    skips = SkipLog()
    rows: dict[str, dict[str, Any]] = {}
    try:
        for lineno, row in iter_jsonl(path, skips):
            if not isinstance(row.get("paper_id"), str):
                skips.add(path, "expected an object with a string paper_id",
                          record=f"line {lineno}")
                continue
            bad = _bad_field(row)
            if bad is not None:
                skips.add(path, bad[1], record=f"line {lineno}: {bad[0]}")
                continue
            rows[row["paper_id"]] = row
    except OSError as exc:
        raise DataError(path, f"cannot read file ({exc.strerror})") from exc
    return rows, [DataError(s.path, s.message, field=s.record) for s in skips.skips]


def _bad_field(row: dict[str, Any]) -> tuple[str, str] | None:
    """``(field, problem)`` of the first field holding the wrong type: a title, abstract or
    decision that is not text (a list title read as "['x']", ``decision: 1`` as "1"), keywords
    that are not a list of texts."""
    for key in ("title", "abstract", "decision"):
        value = row.get(key)
        if value is not None and not isinstance(value, str):
            return key, f"expected text, got {type(value).__name__}"
    kw = row.get("keywords")
    if kw is not None and not (isinstance(kw, list) and all(isinstance(k, str) for k in kw)):
        return "keywords", "expected a list of texts"
    return None


@lru_cache(maxsize=16)
def cached_paper_metadata(
    path: str, _mtime: int
) -> tuple[dict[str, dict[str, Any]], tuple[DataError, ...]]:
    """:func:`read_paper_metadata`, read once per file version (``_mtime``); each error says
    the row was skipped."""
    rows, bad = read_paper_metadata(Path(path))
    return rows, tuple(DataError(e.path, f"{e.message}; row skipped", field=e.field) for e in bad)


_ABSTRACT = re.compile(r"^\W*a\s?b\s?s\s?t\s?r\s?a\s?c\s?t\b[\s:.\-]*(?P<rest>.*)$", re.I)
_HEADING = re.compile(r"^\s*(#{1,6}\s|\d+(\.\d+)*\.?\s+[A-Z]|\\section|[IVX]+\.\s+[A-Z])")


def guess_title_abstract(text: str) -> tuple[str, str]:
    """Best-effort title (first heading or line) and abstract (after an "Abstract" heading)."""
    lines = text.splitlines()
    title = ""
    for line in lines[:40]:
        s = line.strip()
        if s.startswith("#") and s.lstrip("#").strip():
            title = s.lstrip("#").strip()
            break
    if not title:
        title = next((s.strip() for s in lines[:10] if s.strip() and len(s.strip()) < 300), "")
    abstract: list[str] = []
    for i, line in enumerate(lines[:400]):
        m = _ABSTRACT.match(
            line.strip().lstrip("#").strip() if line.strip().startswith("#") else line
        )
        if not m:
            continue
        rest = m.group("rest").strip()
        if rest:
            abstract.append(rest)
        for nxt in lines[i + 1 :]:
            if _HEADING.match(nxt) and abstract:
                break
            if nxt.strip():
                abstract.append(nxt.strip())
            if sum(len(a) for a in abstract) > 3000:
                break
        break
    return title, " ".join(abstract)[:4000]
