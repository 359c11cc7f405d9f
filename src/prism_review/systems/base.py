"""Shared plumbing for the reviewer-system modules: reading files, building Review records.

Every system module declares a :class:`~prism_review.systems.spec.SystemSpec` as ``SPEC`` with
its ``load(path, paper_id, venue) -> list[Review]`` and ``check(...) -> list[tuple[field | None,
message]]`` (the §1.2 validity rule of its folder).
LLM systems yield one :class:`Review` with reviewer id ``LLM_Reviewer`` (simulated reviewer 1
for the multi-reviewer systems; the others stay in ``extra``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from prism_review.guards.errors import DataError
from prism_review.guards.limits import check_file_size, json_problem, loads
from prism_review.records import Review, Section
from prism_review.systems.parsing import read_section_scores, split_think

LLM_REVIEWER_ID = "LLM_Reviewer"


def read_text(path: Path) -> str:
    """Read a UTF-8 text file; failures (and files over the size limit) become
    :class:`DataError` naming the file."""
    check_file_size(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DataError(path, f"cannot read file ({exc.strerror})") from exc
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(path, f"not valid UTF-8 (byte {exc.start})") from exc


def check_txt(path: Path) -> list[tuple[str | None, str]]:
    """Problems of a ``.txt`` review file: unreadable, not UTF-8, or empty."""
    try:
        text = read_text(path)
    except DataError as exc:
        return [(None, exc.message)]
    if not text.strip():
        return [(None, "review file is empty")]
    return []


def parse_json(path: Path | str, text: str) -> Any:
    """Parse JSON ``text`` read from ``path`` (nesting limited); errors become :class:`DataError`
    naming the file."""
    try:
        return loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(path, json_problem(exc)) from exc


def read_json(path: Path) -> Any:
    """Parse a UTF-8 JSON file, turning every failure into a :class:`DataError` naming the file."""
    return parse_json(path, read_text(path))


def llm_review(
    *,
    system: str,
    paper_id: str,
    venue: str,
    path: Path,
    raw_text: str,
    body: str,
    sections: list[Section],
    extra: dict[str, Any] | None = None,
    think: str = "",
) -> Review:
    """A Review for an LLM system, with scores read from its score sections.

    ``raw_text`` is the whole file as read (compat policies need it); ``body`` is the review text
    of the chosen reviewer after ``<think>`` removal.
    """
    raw_scores, scores = read_section_scores(sections)
    info: dict[str, Any] = {"raw_text": raw_text, "body": body}
    if think:
        info["think"] = think
    info.update(extra or {})
    return Review(
        paper_id=paper_id,
        venue=venue,
        system=system,
        reviewer_id=LLM_REVIEWER_ID,
        sections=sections,
        raw_scores=raw_scores,
        scores=scores,
        source_path=str(path),
        extra=info,
    )


def single_llm_review(
    text: str,
    split: Callable[[str], list[Section]],
    *,
    system: str,
    paper_id: str,
    venue: str,
    path: Path,
    raw_text: str,
    extra: dict[str, Any] | None = None,
) -> list[Review]:
    """``[review]`` of one reviewer's ``text``: ``<think>`` removed, the body cut into sections
    by ``split`` (see :func:`llm_review`); ``[]`` when no review text is left."""
    think, body = without_think(text)
    if not body:
        return []
    return [
        llm_review(
            system=system,
            paper_id=paper_id,
            venue=venue,
            path=path,
            raw_text=raw_text,
            body=body,
            sections=split(body),
            extra=extra,
            think=think,
        )
    ]


def without_think(text: str) -> tuple[str, str]:
    """``(think, body)`` of a review text, body stripped (a stray tag never erases the
    review's sections: :func:`split_think` with ``guard``)."""
    think, body = split_think(text, guard=True)
    return think, body.strip()


def require_str(path: Path, value: Any, field: str) -> str:
    """``value`` when it is a string, else a :class:`DataError` naming ``field``."""
    if not isinstance(value, str):
        raise DataError(path, f"expected a string, got {type(value).__name__}", field=field)
    return value
