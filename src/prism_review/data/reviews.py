"""Turn a human review's field dict (as the corpora store it) into a :class:`Review`.

The PRISM corpus (``reviews_json``), the per-venue ``json/<id>.json`` files and the evaluation
layout's ``human_reviews/<id>.json`` all hold reviews as flat dicts keyed by the venue's field
names. Text fields become ordered sections (in the dict's own order), score fields become raw and
normalised scores through the venue registry, and everything else is kept in ``extra``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from prism_review.guards import limits
from prism_review.guards.errors import DataError
from prism_review.guards.limits import cap_text, json_problem, loads
from prism_review.records import Review
from prism_review.systems.human import human_review as _build_human
from prism_review.venues import Venue


def human_review(
    paper_id: str,
    venue: Venue | None,
    index: int,
    fields: Any,
    *,
    path: Path | str,
    venue_name: str | None = None,
) -> Review:
    """Build the ``index``-th human review of ``paper_id`` from its field dict.

    The per-venue field handling is the one of :func:`prism_review.systems.human.human_review`
    (the layout's adapter); here a review without usable text, or of an unknown venue, is a
    :class:`DataError` naming ``path`` and the field, so corpus scans count it as a skip.
    """
    if venue is None:
        raise DataError(path, f"unknown venue {venue_name!r}", field="venue")
    review = _build_human(paper_id, venue, index, fields, path=path)
    if review is None:
        raise DataError(path, "review has no non-empty text field", field=f"reviews[{index}]")
    return review


def parse_reviews_field(raw: Any, *, path: Path | str, field: str = "reviews_json") -> list[Any]:
    """Decode a ``reviews_json`` cell (a JSON list, or an object holding ``reviews``)."""
    if raw is None:
        return []
    value = raw
    if isinstance(raw, bytes | str):
        text = raw.decode("utf-8", errors="strict") if isinstance(raw, bytes) else raw
        if not text.strip():
            return []
        try:
            value = loads(text)
        except json.JSONDecodeError as exc:
            raise DataError(path, json_problem(exc), field=field) from exc
    if isinstance(value, dict):
        value = value.get("reviews", [])
    if not isinstance(value, list):
        raise DataError(
            path, f"expected a list of reviews, got {type(value).__name__}", field=field
        )
    return value


def cap_review(review: Review, limit: int | None = None) -> tuple[Review, DataError | None]:
    """``review`` with its sections cut to ``limit`` characters in all (default
    :data:`prism_review.guards.limits.MAX_REVIEW_CHARS`; the cut recorded in ``extra["cut_chars"]``), and a
    :class:`DataError` naming the file when it was cut."""
    limit = limits.MAX_REVIEW_CHARS if limit is None else limit  # read at call time
    total = sum(len(s.text) for s in review.sections)
    if total <= limit:
        return review, None
    total = max(total, int(review.extra.get("source_chars") or 0))  # a loader may have pre-cut
    left, sections = limit, []
    for sec in review.sections:
        if left <= 0:
            break
        text, _ = cap_text(sec.text, left)
        sections.append(sec.model_copy(update={"text": text}))
        left -= len(text)
    extra = dict(review.extra)
    for key in ("body", "raw_text"):
        if isinstance(extra.get(key), str):
            extra[key] = cap_text(extra[key], limit)[0]
    extra["cut_chars"] = total - limit
    note = DataError(
        review.source_path or review.paper_id,
        f"review {review.reviewer_id} cut to {limit:,} characters ({total - limit:,} removed)",
        field="cut",
    )
    return review.model_copy(update={"sections": sections, "extra": extra}), note
