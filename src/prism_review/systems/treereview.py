"""TreeReview: ``tree/{id}_review.json`` whose ``full_review`` string uses bold section headers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prism_review.guards.errors import DataError
from prism_review.records import Review
from prism_review.systems.base import parse_json, read_text, require_str, single_llm_review
from prism_review.systems.parsing import split_bold_sections
from prism_review.systems.spec import SystemSpec
from prism_review.systems.text_compat import bold_review, raw_json

SYSTEM = "treereview"


def load(path: Path, paper_id: str, venue: str) -> list[Review]:
    """The TreeReview review (the root-node answer in ``full_review``)."""
    raw = read_text(path)
    data = parse_json(path, raw)
    if not isinstance(data, dict):
        raise DataError(path, f"expected a JSON object, got {type(data).__name__}")
    if "full_review" not in data:
        raise DataError(path, "missing", field="full_review")
    text = require_str(path, data["full_review"], "full_review")
    return single_llm_review(
        text,
        split_bold_sections,
        system=SYSTEM,
        paper_id=paper_id,
        venue=venue,
        path=path,
        raw_text=raw,
    )


def check(data: Any) -> list[tuple[str | None, str]]:
    """§1.2: ``full_review`` is a non-empty string."""
    if not isinstance(data, dict):
        return [(None, f"expected a JSON object, got {type(data).__name__}")]
    value = data.get("full_review")
    if not isinstance(value, str) or not value.strip():
        what = (
            "missing"
            if value is None
            else ("empty" if isinstance(value, str) else f"a {type(value).__name__}")
        )
        return [("full_review", f"'full_review' must be a non-empty string (is {what})")]
    return []


def compat(review: Review, dimension: str, human_clean: str) -> str:
    """The original PRISM code's text of a TreeReview review (``--compat``, prism-reference §2):
    its ``full_review`` read as SEA's. TreeReview's flaw script is only described as
    "full_review → Summary, Weaknesses, Questions": the same line-based extractor."""
    return bold_review(str((raw_json(review) or {}).get("full_review") or ""), dimension)



SPEC = SystemSpec(
    id=SYSTEM,
    folder="tree",
    label="TreeReview",
    patterns=("{id}_review.json", "{id}.json"),
    load=load,
    check=check,
    check_json=True,
    compat=compat,
    order=3,
)
