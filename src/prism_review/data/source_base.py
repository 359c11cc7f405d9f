"""What a source is: :class:`Source` (venues → papers → systems' reviews), the
:class:`SourceItem` it streams, and the bookkeeping its kinds share (the per-venue limit and
sample, review-derived metadata). The kinds are in :mod:`prism_review.data.source_kinds`;
:func:`prism_review.data.sources.open_source` picks one by the path's shape.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean
from typing import Any, ClassVar

from prism_review.data.skips import SkipLog
from prism_review.guards.errors import DataError
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
