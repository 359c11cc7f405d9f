"""Task inputs from any source (evaluation layout, corpus table or folders, ProReviewer).

Both become :class:`TaskPaper` records: the paper, its human reviews, and a split. ProReviewer
has its own splits (train = ICLR 2025, test = ICLR 2026). The PRISM layout has none, so a paper
goes to ``train`` when the first 8 hex digits of ``sha256("<seed>:<paper_id>")``, read as a
fraction of 2^32, fall below ``train_fraction``: the same split on every machine.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from prism_review.records import Paper, Review
from prism_review.venues import get_venue, leading_number


@dataclass
class TaskPaper:
    """One paper, its human reviews and its split (``train``, ``test`` or None)."""

    paper: Paper
    reviews: list[Review] = field(default_factory=list)
    split: str | None = None

    @property
    def venue(self) -> str:
        return self.paper.venue

    def ratings(self) -> list[tuple[str, float, float | None]]:
        """``(reviewer_id, raw rating, normalised rating)`` of each review with a readable rating.

        The rating is the venue's rating field (ProReviewer: the *initial* rating).
        """
        v = get_venue(self.paper.venue)
        out = []
        for r in self.reviews:
            raw = r.raw_scores.get(v.rating_field, r.raw_scores.get("Rating"))
            value = leading_number(raw)
            if value is not None:
                out.append((r.reviewer_id, value, v.rating_scale.normalise(value)))
        return out

    def mean_rating(self) -> tuple[float | None, float | None]:
        """Mean raw and mean normalised rating (None without ratings)."""
        rs = self.ratings()
        if not rs:
            return None, None
        norms = [n for _, _, n in rs if n is not None]
        return sum(x for _, x, _ in rs) / len(rs), (sum(norms) / len(norms) if norms else None)


def hash_split(paper_id: str, train_fraction: float, seed: int = 0) -> str:
    """``train`` or ``test`` for ``paper_id``, deterministic (see the module docstring)."""
    digest = hashlib.sha256(f"{seed}:{paper_id}".encode()).hexdigest()
    return "train" if int(digest[:8], 16) / 2**32 < train_fraction else "test"


def from_layout(
    data_root: Path | str, venues: Sequence[str] | None = None, *, limit: int | None = None,
    manifest: str | None = None, train_fraction: float = 0.5, seed: int = 0,
    problems: list[str] | None = None,
) -> Iterator[TaskPaper]:  # fmt: skip
    """Papers of a PRISM evaluation layout with their human reviews and a hash split.

    A paper whose text or human-review file cannot be read is left out; the reason is appended
    to ``problems`` (raised as :class:`DataError` when ``problems`` is None).
    """
    from prism_review.data.layout import EvalLayout, find_data_root
    from prism_review.guards.errors import DataError

    layout = EvalLayout(find_data_root(Path(data_root)))
    wanted = {get_venue(v).id for v in venues} if venues else None
    for vid in layout.venues():
        if wanted is not None and vid not in wanted:
            continue
        ids = layout.paper_ids(vid, manifest)
        for pid in ids[:limit] if limit else ids:
            try:
                paper = layout.load_paper(vid, pid)
                reviews = layout.load_reviews(vid, pid, "human")
            except DataError as exc:
                if problems is None:
                    raise
                problems.append(str(exc))
                continue
            yield TaskPaper(paper=paper, reviews=reviews, split=hash_split(pid, train_fraction, seed))
    if problems is not None:  # unsafe manifest ids, paths out of the root, bad metadata rows
        problems.extend(str(e) for e in layout.problems)


def from_proreviewer(path: Path | str, *, split: str | None = None, limit: int | None = None,
                     problems: list[str] | None = None) -> Iterator[TaskPaper]:  # fmt: skip
    """ProReviewer items (their own train/test splits), ``limit`` papers per split at most.

    Rows and reviews the reader skipped are appended to ``problems`` once the stream ends.
    """
    from prism_review.data.proreviewer import ProReviewerReader

    seen: dict[str | None, int] = {}
    reader = ProReviewerReader(path, split=split)
    for item in reader:
        k = seen.get(item.split, 0)
        if limit and k >= limit:
            continue
        seen[item.split] = k + 1
        yield TaskPaper(paper=item.paper, reviews=item.reviews, split=item.split)
    if problems is not None:
        problems.extend(str(s) for s in reader.skips.skips)


def from_source(
    path: Path | str, venues: Sequence[str] | None = None, *, limit: int | None = None,
    train_fraction: float = 0.5, seed: int = 0, problems: list[str] | None = None,
) -> Iterator[TaskPaper]:  # fmt: skip
    """Papers of any corpus-style source (``papers.parquet``, venue folders or zips) with their
    human reviews and the hash split; its counted skips are appended to ``problems`` at the end
    (raised as :class:`DataError` when ``problems`` is None)."""
    from prism_review.data.sources import open_source

    src = open_source(path)
    for item in src.items(venues=venues, limit=limit):
        for _system, err in item.errors:
            if problems is None:
                raise err
            problems.append(str(err))
        if item.paper is None:
            continue
        split = hash_split(item.paper_id, train_fraction, seed)
        yield TaskPaper(paper=item.paper, reviews=item.reviews.get("human", []), split=split)
    found = src.problems()
    if found and problems is None:
        raise found[0]
    if problems is not None:
        problems.extend(str(p) for p in found)


def load_papers(
    *, data: Path | str | None = None, proreviewer: Path | str | None = None,
    venues: Sequence[str] | None = None, limit: int | None = None, manifest: str | None = None,
    train_fraction: float = 0.5, seed: int = 0, keep_text: bool = True,
    problems: list[str] | None = None,
) -> list[TaskPaper]:  # fmt: skip
    """Load task papers from exactly one source (``data`` layout or ``proreviewer``).

    ``keep_text=False`` drops each paper's full text as it streams in (the baselines need only
    decisions and ratings; ProReviewer's 5,011 markdown papers would otherwise stay in memory).
    With ``problems`` given, unreadable papers and reviews are left out and described there.
    """
    if (data is None) == (proreviewer is None):
        raise ValueError("give exactly one of a PRISM data folder or a ProReviewer path")
    items: Iterable[TaskPaper]
    if proreviewer is not None:
        items = from_proreviewer(proreviewer, limit=limit, problems=problems)
        if venues:
            wanted = {get_venue(v).id for v in venues}
            items = (i for i in items if i.venue in wanted)
    else:
        assert data is not None
        from prism_review.data.sources import open_source

        kind = open_source(data).kind
        if kind == "proreviewer":  # its own train/test splits
            return load_papers(proreviewer=data, venues=venues, limit=limit, keep_text=keep_text,
                               problems=problems)  # fmt: skip
        if kind == "layout":
            items = from_layout(data, venues, limit=limit, manifest=manifest,
                                train_fraction=train_fraction, seed=seed, problems=problems)  # fmt: skip
        else:
            items = from_source(data, venues, limit=limit, train_fraction=train_fraction,
                                seed=seed, problems=problems)  # fmt: skip
    if keep_text:
        return list(items)
    out = []
    for item in items:
        item.paper = item.paper.model_copy(update={"full_text": "", "sections": []})
        out.append(item)
    return out
