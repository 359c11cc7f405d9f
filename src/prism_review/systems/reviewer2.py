"""Reviewer2: ``reviewer2/{id}.txt``.

Shape: a ``PAPER: <title>`` line, a ``===`` rule, a ``REVIEW`` line, a ``---`` rule, then the body,
which may open with a ``<think>…</think>`` block, uses ``##``/``###`` headers and ends with a
``===`` rule. The header lines and trailing rule are dropped, the reasoning goes to
``extra["think"]`` and the paper title to ``extra["paper_title"]``.
"""

from __future__ import annotations

import re
from pathlib import Path

from prism_review.records import Review
from prism_review.systems.base import check_txt, llm_review, read_text, without_think
from prism_review.systems.parsing import split_hash_sections, split_header, strip_rules
from prism_review.systems.spec import SystemSpec
from prism_review.systems.text_compat import hashes, or_whole, raw_text

SYSTEM = "reviewer2"


def body_of(text: str) -> tuple[str | None, str, str]:
    """``(title, think, body)``: header stripped, ``<think>`` removed, trailing ``===`` dropped."""
    title, rest = split_header(text)
    think, body = without_think(rest)
    return title, think, strip_rules(body).strip()


def load(path: Path, paper_id: str, venue: str) -> list[Review]:
    """The single Reviewer2 review in ``path`` ([] when only reasoning or nothing is there)."""
    raw = read_text(path)
    title, think, body = body_of(raw)
    if not body:
        return []
    return [
        llm_review(
            system=SYSTEM,
            paper_id=paper_id,
            venue=venue,
            path=path,
            raw_text=raw,
            body=body,
            sections=split_hash_sections(body),
            think=think,
            extra={"paper_title": title} if title else None,
        )
    ]


def check(path: Path) -> list[tuple[str | None, str]]:
    """§1.2: a ``.txt`` review must be non-empty."""
    return check_txt(path)


_R2_DEPTH = (
    "Summary Of The Paper",
    "Strengths",
    "Weaknesses",
    "Limitations Not Addressed",
    "Brief Justification",
)
_R2_FLAWS = (
    "Summary Of The Paper",
    "Weaknesses",
    "Questions For The Authors",
    "Limitations Not Addressed",
    "Brief Justification",
)


def _r2_body(review: Review) -> str:
    """Reviewer2 text after ``</think>`` (else the header lines stripped), trailing ``===`` cut."""
    raw = raw_text(review)
    closes = list(re.finditer(r"</think>", raw, re.I))
    body = raw[closes[-1].end() :] if closes else split_header(raw)[1]
    return strip_rules(body.strip()).strip()


def compat(review: Review, dimension: str, human_clean: str) -> str:
    """The original PRISM code's text of a Reviewer2 review (``--compat``, prism-reference §2)."""
    body = _r2_body(review)
    if dimension == "depth":
        return or_whole(hashes(body, _R2_DEPTH, levels="##"), body)
    if dimension == "flaws":
        return or_whole(hashes(body, _R2_FLAWS, levels="##", strip=True), body)
    if dimension == "novelty":
        return raw_text(review)
    return body



SPEC = SystemSpec(
    id=SYSTEM,
    label="Reviewer2",
    patterns=("{id}.txt",),
    load=load,
    check=check,
    compat=compat,
    order=2,
)
