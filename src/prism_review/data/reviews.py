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

from prism_review.data.errors import DataError
from prism_review.records import Review, Section
from prism_review.venues import Venue

HUMAN_SYSTEM = "human"


def human_reviewer_id(index: int) -> str:
    """The reviewer id of the ``index``-th human review (0-based in, 1-based out: ``Human_1``)."""
    return f"Human_{index + 1}"


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

    Raises :class:`DataError` naming ``path`` and the field when the dict is not a dict, when a
    known text field holds a non-string, or when the review has no text at all.
    """
    where = f"reviews[{index}]"
    if not isinstance(fields, dict):
        raise DataError(
            path, f"review is a {type(fields).__name__}, expected an object", field=where
        )
    score_names = set(venue.score_fields) | {venue.rating_field} if venue else set()
    text_names = set(venue.text_fields) if venue else set()
    meta_names = set(venue.meta_fields) if venue else set()
    sections: list[Section] = []
    raw_scores: dict[str, Any] = {}
    scores: dict[str, float | None] = {}
    extra: dict[str, Any] = {}
    for key, value in fields.items():
        if key in score_names and venue is not None:
            raw_scores[key] = value
            if key == venue.rating_field:
                scores[key] = venue.rating(fields)[1]
            else:
                scores[key] = venue.read_score(key, value)[1]
        elif key in meta_names:
            extra[key] = value
        elif isinstance(value, str):
            sections.append(Section(name=key, text=value))
        elif key in text_names and value is not None:
            raise DataError(
                path, f"expected text, got {type(value).__name__}", field=f"{where}.{key}"
            )
        else:
            extra[key] = value
    if not any(s.text.strip() for s in sections):
        raise DataError(path, "review has no non-empty text field", field=where)
    return Review(
        paper_id=paper_id,
        venue=venue.id if venue else (venue_name or ""),
        system=HUMAN_SYSTEM,
        reviewer_id=human_reviewer_id(index),
        sections=sections,
        raw_scores=raw_scores,
        scores=scores,
        source_path=str(path),
        extra=extra,
    )


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
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataError(
                path, f"invalid JSON ({exc.msg} at char {exc.pos})", field=field
            ) from exc
    if isinstance(value, dict):
        value = value.get("reviews", [])
    if not isinstance(value, list):
        raise DataError(
            path, f"expected a list of reviews, got {type(value).__name__}", field=field
        )
    return value
