"""Every dataset prism-review reads is a *source* of papers and their reviews.

``open_source(path)`` looks at what ``path`` is and returns the matching :class:`Source`:

| what ``path`` is | source |
|---|---|
| a PRISM evaluation layout (``<VENUE>/papers/``, ``human_reviews/``, system folders) | ``layout`` |
| ``papers.parquet`` of the PRISM corpus (a ``reviews_json`` column), or a folder holding it | ``corpus`` |
| one raw per-venue corpus folder (``json/``, ``txt/``, GROBID) or its zip, or a folder of them | ``venue-folders`` |
| ProReviewer: a parquet with ``reviews``/``markdown`` columns, a folder of them, a ``save_to_disk`` folder, or JSONL rows | ``proreviewer`` |

A source streams :class:`SourceItem` s (one paper, its metadata and every system's reviews), so a
47k-paper table is never held in memory. Problems stay local: a malformed row, review or paper
is a counted skip in :attr:`Source.skips` naming file, row and field; it never drops a venue or
another paper. ``prism evaluate``, ``review generate`` and ``task`` read every source this way.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean
from typing import Any, ClassVar

from prism_review.data.errors import DataError
from prism_review.data.skips import SkipLog
from prism_review.records import Paper, Review
from prism_review.venues import get_venue, leading_number

HUMAN = "human"


@dataclass
class SourceItem:
    """One paper with every system's reviews of it, ready to be cut into work units."""

    venue: str
    paper_id: str
    paper: Paper | None  # None when the paper itself could not be read (see ``errors``)
    meta: dict[str, Any] = field(default_factory=dict)
    reviews: dict[str, list[Review]] = field(default_factory=dict)
    #: ``(system or None, error)`` for what could not be read; the rest of the item still runs
    errors: list[tuple[str | None, DataError]] = field(default_factory=list)


class Source(ABC):
    """A dataset seen as venues → papers → systems' reviews."""

    kind: ClassVar[str]

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        #: rows, reviews and fields that could not be read (counted, named, never silent)
        self.skips = SkipLog()

    @abstractmethod
    def venues(self) -> list[str]:
        """Canonical ids of the venues present, in registry order."""

    @abstractmethod
    def systems(self, venue: str) -> list[str]:
        """Ids of the reviewer systems this source holds for ``venue`` (``human`` first)."""

    @abstractmethod
    def items(
        self,
        *,
        venues: Sequence[str] | None = None,
        limit: int | None = None,
        sample: dict[str, list[str]] | None = None,
    ) -> Iterator[SourceItem]:
        """Stream the papers of ``venues`` (all when None), at most ``limit`` per venue, only the
        ids ``sample`` lists for a venue when given (a venue ``sample`` omits is skipped)."""

    def problems(self) -> list[DataError]:
        """Every counted skip as a :class:`DataError` (file, row and field named)."""
        out = []
        for s in self.skips.skips:
            where = s.path + (f" [{s.record}]" if s.record else "")
            out.append(DataError(where, s.message, field=s.field))
        return out

    def describe(self) -> dict[str, str]:
        return {"kind": self.kind, "path": str(self.path)}


def meta_from_reviews(paper: Paper, reviews: Sequence[Review]) -> dict[str, Any]:
    """The subgroup metadata of a paper (same keys as ``EvalLayout.paper_meta``) from its
    decision and the raw overall ratings of its human reviews."""
    v = get_venue(paper.venue)
    ratings = [
        x
        for x in (leading_number(r.raw_scores.get(v.rating_field)) for r in reviews)
        if x is not None
    ]
    norms = [n for n in (v.rating_scale.normalise(x) for x in ratings) if n is not None]
    return {
        "paper_id": paper.paper_id,
        "venue": v.id,
        "decision": paper.decision.raw,
        "decision_kind": paper.decision.kind.value,
        "accepted": paper.decision.accepted,
        "avg_rating": mean(ratings) if ratings else None,
        "avg_rating_norm": mean(norms) if norms else None,
        "n_human_ratings": len(ratings),
    }


class _Limiter:
    """Per-venue ``limit`` and ``sample`` bookkeeping shared by the streaming sources."""

    def __init__(
        self,
        venues: Sequence[str] | None,
        limit: int | None,
        sample: dict[str, list[str]] | None,
    ) -> None:
        self.venues = {get_venue(v).id for v in venues} if venues else None
        self.limit = limit
        self.sample = {get_venue(v).id: set(ids) for v, ids in sample.items()} if sample else None
        self.taken: dict[str, int] = {}

    def wants_venue(self, venue: str) -> bool:
        if self.venues is not None and venue not in self.venues:
            return False
        return self.sample is None or venue in self.sample

    def take(self, venue: str, paper_id: str) -> bool:
        """True when this paper is in the selection (and counts it towards the limit)."""
        if not self.wants_venue(venue):
            return False
        if self.sample is not None and paper_id not in self.sample[venue]:
            return False
        if self.limit is not None and self.taken.get(venue, 0) >= self.limit:
            return False
        self.taken[venue] = self.taken.get(venue, 0) + 1
        return True

    def full(self, venues: Sequence[str]) -> bool:
        """True when every wanted venue has reached the limit (the scan may stop)."""
        if self.limit is None:
            return False
        wanted = [v for v in venues if self.wants_venue(v)]
        return bool(wanted) and all(self.taken.get(v, 0) >= self.limit for v in wanted)


def read_sample(path: Path) -> dict[str, list[str]]:
    """A ``prism data sample`` manifest: ``sample_manifest.json`` (or the folder holding it), or
    one ``paper_ids_<n>_<venue>.txt`` file (its venue from the name)."""
    from prism_review.data.layout import read_manifest
    from prism_review.data.sampling import MANIFEST_NAME

    path = Path(path)
    if path.is_dir():
        path = path / MANIFEST_NAME
    if not path.is_file():
        raise DataError(path, "sample manifest not found (write one with `prism data sample`)")
    if path.suffix == ".txt":
        stem = path.stem.rsplit("_", 1)[-1]
        try:
            venue = get_venue(stem).id
        except KeyError:
            raise DataError(path, f"cannot tell the venue from the name ({stem!r})") from None
        return {venue: read_manifest(path)}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(path, f"not a JSON sample manifest: {exc}") from exc
    venues = data.get("venues") if isinstance(data, dict) else None
    if not isinstance(venues, dict):
        raise DataError(path, "expected an object with a 'venues' mapping", field="venues")
    out: dict[str, list[str]] = {}
    for name, vs in venues.items():
        ids = vs.get("paper_ids") if isinstance(vs, dict) else None
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise DataError(path, "expected a list of paper ids", field=f"venues.{name}.paper_ids")
        try:
            out[get_venue(name).id] = ids
        except KeyError:
            raise DataError(path, f"unknown venue {name!r}", field="venues") from None
    return out


def open_source(path: Path | str) -> Source:
    """The source ``path`` holds, detected by its shape (see the module docstring)."""
    from prism_review.data.source_kinds import detect

    return detect(Path(path))
