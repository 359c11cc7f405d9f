"""One adapter per built-in reviewer system: where its file for a paper is and how to read it.

``load_review_file(system, path, paper_id, venue)`` returns ``(reviews, skip notes)``; malformed
files raise :class:`~prism_review.data.errors.DataError` naming the file and field. Bring-your-own
systems (JSONL folders) are read by :class:`prism_review.systems.byo.ByoSource` instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prism_review.records import Review
from prism_review.systems import cyclereview, deepreview, human, reviewer2, sea, treereview


@dataclass(frozen=True)
class Adapter:
    """How one built-in system stores its reviews."""

    system: str
    #: file-name patterns for a paper, preferred first (``{id}`` is the paper id)
    patterns: tuple[str, ...]
    load: Callable[[Path, str, str], list[Review]]
    #: validity check: on the parsed JSON (``json=True``) or on the path (``.txt`` systems)
    check: Callable[[Any], list[tuple[str | None, str]]]
    json: bool


def _load_human(path: Path, paper_id: str, venue: str) -> list[Review]:
    return human.load_human(path, paper_id, venue)[0]


ADAPTERS: dict[str, Adapter] = {
    a.system: a
    for a in [
        Adapter("human", ("{id}.json",), _load_human, human.check_human, True),
        Adapter("sea", ("{id}.txt",), sea.load, sea.check, False),
        Adapter("reviewer2", ("{id}.txt",), reviewer2.load, reviewer2.check, False),
        Adapter(
            "treereview", ("{id}_review.json", "{id}.json"), treereview.load, treereview.check, True
        ),
        Adapter(
            "deepreview", ("{id}.json", "{id}_review.json"), deepreview.load, deepreview.check, True
        ),
        Adapter(
            "cyclereview",
            ("{id}.json", "{id}_result.json"),
            cyclereview.load,
            cyclereview.check,
            True,
        ),
    ]
}

_SUFFIXES = ("_review.json", "_result.json", "-review.json", ".grobid.txt", ".txt", ".json")


def id_from_filename(name: str) -> str | None:
    """The paper id a review or paper file name stands for (None for unrelated files)."""
    for suffix in _SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return None


def find_review_file(folder: Path, system: str, paper_id: str) -> Path | None:
    """The file of ``paper_id`` in a built-in system's folder, or None."""
    for pattern in ADAPTERS[system].patterns:
        path = folder / pattern.format(id=paper_id)
        if path.is_file():
            return path
    return None


def load_review_file(system: str, path: Path, paper_id: str, venue: str) -> list[Review]:
    """Reviews of one paper from one built-in system's file."""
    return ADAPTERS[system].load(path, paper_id, venue)
