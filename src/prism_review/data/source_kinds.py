"""The four kinds of :class:`~prism_review.data.source_base.Source` and the shape detection.

Each kind wraps the loader that already reads its format (``EvalLayout``, ``CorpusReader``,
``VenueFolder``, ``ProReviewerReader``) and turns it into a stream of ``SourceItem`` s with every
problem counted in ``Source.skips``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from prism_review.data.jsonl import first_object
from prism_review.data.skips import SkipLog
from prism_review.data.source_base import HUMAN, Source, SourceItem, _Limiter, meta_from_reviews
from prism_review.guards.errors import DataError
from prism_review.records import Paper, Review
from prism_review.venues import VENUES, get_venue


def _registry_order(ids: set[str]) -> list[str]:
    return [v for v in VENUES if v in ids]


class LayoutSource(Source):
    """The PRISM evaluation layout (``DATA_ROOT/<VENUE>/papers``, ``human_reviews``, systems)."""

    kind = "layout"

    def __init__(self, root: Path) -> None:
        from prism_review.data.layout import EvalLayout

        super().__init__(root)
        self.layout = EvalLayout(root)

    def venues(self) -> list[str]:
        return self.layout.venues()

    def systems(self, venue: str) -> list[str]:
        return self.layout.systems(venue)

    def items(
        self,
        *,
        venues: Sequence[str] | None = None,
        limit: int | None = None,
        sample: dict[str, list[str]] | None = None,
    ) -> Iterator[SourceItem]:
        lim = _Limiter(venues, None, sample)
        for venue in self.venues():
            if not lim.wants_venue(venue):
                continue
            ids = sample[venue] if sample is not None and venue in sample else None
            if ids is None:
                ids = self.layout.paper_ids(venue)
            if limit is not None:
                ids = ids[:limit]
            present = self.layout.systems(venue)
            for pid in ids:
                yield self._item(venue, pid, present)

    def _item(self, venue: str, pid: str, present: list[str]) -> SourceItem:
        try:
            paper = self.layout.load_paper(venue, pid)
            meta = dict(self.layout.paper_meta(venue, pid))
        except DataError as exc:  # the paper cannot be read: its reviews are skipped, said why
            return SourceItem(venue, pid, None, errors=[(None, exc)])
        item = SourceItem(venue, pid, paper, meta)
        for s in present:
            try:
                item.reviews[s] = self.layout.load_reviews(venue, pid, s)
            except DataError as exc:  # this system's file is malformed: the others still run
                item.errors.append((s, exc))
                item.reviews[s] = []
        return item

    def problems(self) -> list[DataError]:
        return [*self.layout.problems, *super().problems()]


class _HumanOnly(Source):
    """Shared parts of the corpus-style sources, which hold human reviews only."""

    def systems(self, venue: str) -> list[str]:
        return [HUMAN]

    def items(
        self,
        *,
        venues: Sequence[str] | None = None,
        limit: int | None = None,
        sample: dict[str, list[str]] | None = None,
    ) -> Iterator[SourceItem]:
        seen: dict[tuple[str, str], str] = {}  # (venue, paper id) -> where its first row is
        for got in self._papers(_Limiter(venues, limit, sample)):
            item = got if isinstance(got, SourceItem) else self._item(*got, seen)
            if item is not None:
                yield item

    def _papers(self, lim: _Limiter) -> Iterator[tuple[Paper, list[Review]] | SourceItem]:
        """The selected papers with their reviews (``lim.take`` already applied), or an item
        naming a paper that could not be read."""
        raise NotImplementedError

    def _item(self, paper: Paper, reviews: list[Review], seen: dict[tuple[str, str], str]) -> SourceItem | None:
        key = (paper.venue, paper.paper_id)
        where = str(paper.source_path or self.path)
        if key in seen:
            self.skips.add(
                where,
                f"duplicate paper id (the first row, {seen[key]}, is kept)",
                field="paper_id",
                record=paper.paper_id,
            )
            return None
        seen[key] = where
        if not paper.full_text.strip():
            where = f"{paper.source_path or self.path} [{paper.paper_id}]"  # file and row
            err = DataError(where, "paper text is empty", field="full_text")
            return SourceItem(paper.venue, paper.paper_id, None, errors=[(None, err)])
        return SourceItem(
            paper.venue,
            paper.paper_id,
            paper,
            meta_from_reviews(paper, reviews),
            {HUMAN: reviews},
        )


class CorpusSource(_HumanOnly):
    """The PRISM corpus table ``papers.parquet``, streamed (one batch of rows in memory)."""

    kind = "corpus"
    #: the columns an evaluation needs (the rest of the 31 are never decoded)
    COLUMNS = (
        "paper_id", "venue", "decision", "meta_review", "reviews_json", "keywords",
        "review_title", "review_abstract", "grobid_title", "grobid_abstract", "full_text",
        "grobid_fulltext", "bibliography_json",
    )  # fmt: skip

    def __init__(self, path: Path, *, batch_size: int = 16) -> None:
        super().__init__(path)
        self.batch_size = batch_size
        self._venues: list[str] | None = None

    def venues(self) -> list[str]:
        if self._venues is None:
            from prism_review.data.corpus import _venue_id

            try:
                names = pq.ParquetFile(self.path).schema_arrow.names
                missing = [c for c in self.COLUMNS if c not in names]
                if missing:  # said as CorpusReader says it, not as pyarrow's schema dump
                    raise DataError(self.path, f"column(s) missing from the table: "
                                    f"{', '.join(missing)}", field=missing[0])
                col = pq.read_table(self.path, columns=["venue"]).column("venue")
            except (OSError, pa.ArrowInvalid, KeyError) as exc:
                raise DataError(self.path, f"not a readable corpus table: {exc}") from exc
            ids = {v for v in (_venue_id(x) for x in col.unique().to_pylist()) if v}
            self._venues = _registry_order(ids)
        return self._venues

    def _papers(self, lim: _Limiter) -> Iterator[tuple[Paper, list[Review]] | SourceItem]:
        from prism_review.data.corpus import CorpusReader, _venue_id

        wanted = [v for v in self.venues() if lim.wants_venue(v)]
        if not wanted:
            return
        # without a venue choice every row is read, so a row naming no known venue is a
        # counted skip (to_record) rather than filtered out by the reader unsaid
        chosen = lim.venues is not None or lim.sample is not None
        reader = CorpusReader(
            self.path, venues=wanted if chosen else None, columns=self.COLUMNS,
            batch_size=self.batch_size,
        )
        reader.skips = self.skips
        for row in reader.iter_rows():
            vid, pid = _venue_id(row.get("venue")), row.get("paper_id")
            if vid is not None and isinstance(pid, str) and not lim.take(vid, pid):
                if lim.full(wanted):
                    return
                continue
            rec = reader.to_record(row)  # a row without a usable id or venue is a counted skip
            if rec is not None:
                yield rec.paper, rec.reviews


class VenueFolderSource(_HumanOnly):
    """Raw per-venue corpus folders (``ICLR_2024/``) or their zips, read in place."""

    kind = "venue-folders"

    def __init__(self, path: Path, folders: list[tuple[str, Path]]) -> None:
        super().__init__(path)
        self.folders = folders  # (venue id, folder or zip), in registry order

    def venues(self) -> list[str]:
        return _registry_order({v for v, _ in self.folders})

    def _papers(self, lim: _Limiter) -> Iterator[tuple[Paper, list[Review]] | SourceItem]:
        from prism_review.data.venue_folder import VenueFolder

        for venue, folder in self.folders:
            if not lim.wants_venue(venue):
                continue
            with VenueFolder(folder, venue=venue, skips=self.skips) as vf:
                for pid in vf.paper_ids():
                    if not lim.take(venue, pid):
                        continue
                    try:
                        yield vf.paper(pid)
                    except DataError as err:  # json/<id>.json unreadable: this paper only
                        yield SourceItem(venue, pid, None, errors=[(None, err)])


class ProReviewerSource(_HumanOnly):
    """ProReviewer (parquet, ``save_to_disk`` folder or JSONL): papers with initial reviews."""

    kind = "proreviewer"

    def __init__(self, path: Path) -> None:
        from prism_review.data.proreviewer import ProReviewerReader

        super().__init__(path)
        self.reader = ProReviewerReader(path)
        self.reader.skips = self.skips
        self._venues: list[str] | None = None

    def venues(self) -> list[str]:
        if self._venues is None:
            from prism_review.data.proreviewer import SPLIT_VENUES

            splits = self.reader.splits()
            if splits and all(s in SPLIT_VENUES for s in splits):
                self._venues = _registry_order({SPLIT_VENUES[s] for s in splits})
            else:  # no split names to go by: read the venues off the rows, with a reader of its
                # own so the rows' problems are counted once, by items(), not by this look too
                from prism_review.data.proreviewer import ProReviewerReader

                probe = ProReviewerReader(self.path)
                self._venues = _registry_order({it.paper.venue for it in probe})
        return self._venues

    def _papers(self, lim: _Limiter) -> Iterator[tuple[Paper, list[Review]] | SourceItem]:
        for it in self.reader:
            if lim.take(it.paper.venue, it.paper.paper_id):
                yield it.paper, it.reviews


# -- detection -------------------------------------------------------------------------------
def _parquet_kind(path: Path) -> str | None:
    try:
        names = set(pq.read_schema(path).names)
    except (OSError, pa.ArrowInvalid) as exc:
        raise DataError(path, f"not a readable parquet file: {exc}") from exc
    if "reviews_json" in names:
        return "corpus"
    if "reviews" in names and ({"markdown", "metadata"} & names):
        return "proreviewer"
    return None


def _jsonl_looks_proreviewer(path: Path) -> bool:
    try:
        first = first_object(path, SkipLog(strict=True))
    except (OSError, DataError):
        return False
    row = first[1] if first else {}
    return "reviews" in row and bool({"markdown", "metadata"} & set(row))


def _venue_folders(path: Path) -> list[tuple[str, Path]]:
    """Raw per-venue corpus folders/zips directly under ``path``, by venue."""
    out: dict[str, Path] = {}
    for child in sorted(path.iterdir()):
        if child.suffix == ".zip" or (child.is_dir() and (child / "json").is_dir()):
            try:
                vid = get_venue(child.stem).id
            except KeyError:
                continue
            out.setdefault(vid, child)  # a folder and its zip: the first in name order
    return [(v, out[v]) for v in VENUES if v in out]


_WHAT = (
    "expected a PRISM evaluation layout, papers.parquet, a per-venue corpus folder or zip "
    "(or a folder of them), or ProReviewer (parquet, save_to_disk folder or JSONL)"
)


def detect(path: Path) -> Source:
    """The :class:`Source` for ``path``, by shape; :class:`DataError` saying what was expected."""
    if not path.exists():
        raise DataError(path, "not found")
    if path.is_file():
        return _detect_file(path)
    if (path / "json").is_dir() or (path / "scraping_summary.json").is_file():
        return _one_venue_folder(path)
    from prism_review.data.layout import find_data_root, venue_dirs

    try:
        root = find_data_root(path)
    except DataError:
        root = None
    if root is not None and any((d / "papers").is_dir() for d in venue_dirs(root).values()):
        return LayoutSource(root)
    folders = _venue_folders(path)
    if folders:
        return VenueFolderSource(path, folders)
    if (path / "papers.parquet").is_file():
        return _detect_file(path / "papers.parquet")
    if (path / "dataset_dict.json").is_file() or (path / "state.json").is_file():
        return ProReviewerSource(path)
    parquets = sorted(path.glob("*.parquet")) + sorted(path.glob("data/*.parquet"))
    if parquets and _parquet_kind(parquets[0]) == "proreviewer":
        return ProReviewerSource(path)
    if (path / "papers").is_dir():  # one level too deep, or no venue level at all
        try:
            get_venue(path.name)
            hint = "this is a venue folder: pass the folder above it (DATA_ROOT)"
        except KeyError:
            hint = f"papers/ belongs in a venue folder, DATA_ROOT/<VENUE>/papers/ ({', '.join(VENUES)})"
        raise DataError(path, f"not an evaluation layout: {hint}")
    raise DataError(path, _WHAT)


def _detect_file(path: Path) -> Source:
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        kind = _parquet_kind(path)
        if kind == "corpus":
            return CorpusSource(path)
        if kind == "proreviewer":
            return ProReviewerSource(path)
        raise DataError(path, "a parquet file without the corpus' reviews_json column or "
                        "ProReviewer's reviews/markdown columns")
    if suffix == ".zip":
        return _one_venue_folder(path)
    if suffix == ".arrow":
        return ProReviewerSource(path)
    if suffix == ".jsonl":
        if _jsonl_looks_proreviewer(path):
            return ProReviewerSource(path)
        raise DataError(
            path,
            "a JSONL file that is not ProReviewer: bring-your-own reviews go into an evaluation "
            "layout as DATA_ROOT/<VENUE>/<system>/reviews.jsonl beside papers/ (docs/byo-format.md)",
        )
    raise DataError(path, _WHAT)


def _one_venue_folder(path: Path) -> Source:
    try:
        vid = get_venue(path.stem).id
    except KeyError:
        raise DataError(path, f"cannot tell the venue from the name {path.stem!r} "
                        "(expected e.g. ICLR_2024 or ICLR_2024.zip)") from None
    return VenueFolderSource(path, [(vid, path)])
