"""SEA: ``sea/{id}.txt``, markdown with bold section headers (``**Summary:**`` …).

Sections are cut at every recognised review-section header (the REC fix of risk D3: the
original let Weaknesses run on through Questions, scores and the decision).
"""

from __future__ import annotations

from pathlib import Path

from prism_review.records import Review
from prism_review.systems.base import check_txt, read_text, single_llm_review
from prism_review.systems.parsing import split_bold_sections
from prism_review.systems.spec import SystemSpec
from prism_review.systems.text_compat import bold_review, raw_text

SYSTEM = "sea"


def load(path: Path, paper_id: str, venue: str) -> list[Review]:
    """The single SEA review in ``path`` ([] when it has no text)."""
    raw = read_text(path)
    return single_llm_review(
        raw,
        split_bold_sections,
        system=SYSTEM,
        paper_id=paper_id,
        venue=venue,
        path=path,
        raw_text=raw,
    )


def check(path: Path) -> list[tuple[str | None, str]]:
    """§1.2: a ``.txt`` review must be non-empty (and readable UTF-8)."""
    return check_txt(path)


def compat(review: Review, dimension: str, human_clean: str) -> str:
    """The original PRISM code's text of a SEA review (``--compat``, prism-reference §2)."""
    raw = raw_text(review)
    if dimension == "flaws" and review.venue == "ICLR2024":
        return raw  # the original's ICLR2024 flaw script read the raw file
    # elsewhere the reference names the line-based extractor for SEA's flaws
    return bold_review(raw, dimension)



SPEC = SystemSpec(
    id=SYSTEM,
    label="SEA",
    patterns=("{id}.txt",),
    load=load,
    check=check,
    compat=compat,
    order=1,
)
