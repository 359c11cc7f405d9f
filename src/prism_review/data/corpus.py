"""Stream the PRISM corpus table ``papers.parquet`` (31 columns, ~12 GB of text uncompressed).

The reader never materialises the table: it reads the small filter columns (``venue``,
``decision``) of one row group, skips row groups with no match, then decodes only the projected
columns of the matching rows in record batches of ``batch_size`` rows. Memory is bounded by one
batch of text plus pyarrow's buffers for one row group's column chunks.

>>> reader = CorpusReader("papers.parquet", venues=["ICLR2025"], decisions=["reject"])
>>> for rec in reader:          # CorpusRecord(paper=Paper, reviews=[Review, ...], row={...})
...     ...
>>> reader.skips.summary()      # rows or fields that could not be read, counted
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from prism_review.data.grobid import parse_grobid_bib
from prism_review.data.reviews import human_review, parse_reviews_field
from prism_review.data.skips import SkipLog
from prism_review.guards.errors import DataError
from prism_review.guards.limits import loads
from prism_review.records import BibEntry, Decision, DecisionKind, Paper, Review
from prism_review.venues import Venue, get_venue

CORPUS_COLUMNS: tuple[str, ...] = (
    "paper_id", "venue", "decision", "meta_review", "num_reviews", "rating_avg", "rating_min",
    "rating_max", "confidence_avg", "soundness_avg", "presentation_avg", "contribution_avg",
    "reviews_json", "keywords", "primary_area", "subject_areas", "review_title",
    "review_abstract", "grobid_title", "grobid_abstract", "grobid_authors", "grobid_keywords",
    "grobid_date", "full_text", "grobid_fulltext", "bibliography_json", "bibliography_bib",
    "pdf_path", "stat_num_reviews", "stat_has_meta_review", "stat_has_decision",
)  # fmt: skip

#: the large text columns; everything else is metadata
TEXT_COLUMNS: frozenset[str] = frozenset(
    {"meta_review", "reviews_json", "full_text", "grobid_fulltext", "bibliography_json",
     "bibliography_bib", "review_abstract", "grobid_abstract"}
)  # fmt: skip
METADATA_COLUMNS: tuple[str, ...] = tuple(c for c in CORPUS_COLUMNS if c not in TEXT_COLUMNS)

#: decision-filter words that stand for several kinds
DECISION_GROUPS: dict[str, frozenset[DecisionKind]] = {
    "accept": frozenset(
        {DecisionKind.ACCEPT_ORAL, DecisionKind.ACCEPT_SPOTLIGHT, DecisionKind.ACCEPT_POSTER,
         DecisionKind.CONDITIONAL}
    ),
    "oral": frozenset({DecisionKind.ACCEPT_ORAL}),
    "spotlight": frozenset({DecisionKind.ACCEPT_SPOTLIGHT}),
    "poster": frozenset({DecisionKind.ACCEPT_POSTER}),
}  # fmt: skip


def decision_kinds(names: Iterable[str | DecisionKind]) -> frozenset[DecisionKind]:
    """Resolve filter words (``accept``, ``reject``, ``accept-oral``, ``oral``…) to kinds."""
    out: set[DecisionKind] = set()
    for name in names:
        if isinstance(name, DecisionKind):
            out.add(name)
            continue
        low = name.strip().lower()
        if low in DECISION_GROUPS:
            out |= DECISION_GROUPS[low]
            continue
        try:
            out.add(DecisionKind(low))
        except ValueError:
            known = sorted({k.value for k in DecisionKind} | set(DECISION_GROUPS))
            raise ValueError(f"unknown decision {name!r}; use one of {', '.join(known)}") from None
    return frozenset(out)


@dataclass
class CorpusRecord:
    """One corpus row: the paper, its human reviews and the projected raw columns."""

    paper: Paper
    reviews: list[Review] = field(default_factory=list)
    row: dict[str, Any] = field(default_factory=dict)


class CorpusReader:
    """Streaming, filtered reader over ``papers.parquet``.

    ``columns`` projects the read (``paper_id``, ``venue`` and ``decision`` are always added);
    pass :data:`METADATA_COLUMNS` for a metadata-only scan. With ``strict=False`` (default) a bad
    cell is a counted skip in :attr:`skips`; with ``strict=True`` it raises :class:`DataError`.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        venues: Sequence[str] | None = None,
        decisions: Sequence[str | DecisionKind] | None = None,
        columns: Sequence[str] | None = None,
        batch_size: int = 64,
        strict: bool = False,
    ) -> None:
        self.path = Path(path)
        self.venue_ids = {get_venue(v).id for v in venues} if venues else None
        self.decision_filter = decision_kinds(decisions) if decisions else None
        self.batch_size = batch_size
        self.skips = SkipLog(strict=strict)
        self.rows_scanned = 0
        try:
            self._file = pq.ParquetFile(self.path, pre_buffer=False)
        except (OSError, pa.ArrowInvalid) as exc:
            raise DataError(self.path, f"not a readable parquet file: {exc}") from exc
        names = set(self._file.schema_arrow.names)
        wanted = list(CORPUS_COLUMNS if columns is None else columns)
        for key in ("paper_id", "venue", "decision"):
            if key not in wanted:
                wanted.insert(0, key)
        missing = [c for c in wanted if c not in names]
        if missing:
            raise DataError(
                self.path,
                f"column(s) missing from the table: {', '.join(missing)}",
                field=missing[0],
            )
        self.columns = wanted

    @property
    def file_columns(self) -> list[str]:
        """Every column the file holds (not just the projected ones)."""
        return list(self._file.schema_arrow.names)

    @property
    def num_row_groups(self) -> int:
        """Row groups in the file."""
        return int(self._file.num_row_groups)

    def max_row_group_mb(self) -> float:
        """Largest uncompressed size (MB) of the projected columns in one row group.

        pyarrow decodes a row group's column chunks as a unit, so the scan's peak memory grows
        with this figure (about 1.5–3× it, see ``benchmarks/README.md``), not with the file size.
        """
        meta = self._file.metadata
        idx = [i for i in range(meta.num_columns) if meta.schema.column(i).name in self.columns]
        sizes = [
            sum(meta.row_group(g).column(i).total_uncompressed_size for i in idx)
            for g in range(meta.num_row_groups)
        ]
        return max(sizes, default=0) / 2**20

    @property
    def num_rows(self) -> int:
        """Rows in the file (before filtering), from the footer."""
        return int(self._file.metadata.num_rows)

    def _row_group_mask(self, index: int) -> list[bool] | None:
        """Which rows of row group ``index`` pass the filters (None: all of them)."""
        if self.venue_ids is None and self.decision_filter is None:
            return None
        table = self._file.read_row_group(index, columns=["venue", "decision"])
        mask = []
        for venue, decision in zip(
            table.column("venue").to_pylist(), table.column("decision").to_pylist(), strict=True
        ):
            ok = True
            if self.venue_ids is not None:
                ok = _venue_id(venue) in self.venue_ids
            if ok and self.decision_filter is not None:
                ok = Decision.parse(decision).kind in self.decision_filter
            mask.append(ok)
        return mask

    def iter_rows(self) -> Iterator[dict[str, Any]]:
        """Yield the projected columns of every matching row as a plain dict."""
        for rg in range(self._file.num_row_groups):
            mask = self._row_group_mask(rg)
            if mask is not None and not any(mask):
                self.rows_scanned += len(mask)
                continue
            pos = 0
            for batch in self._file.iter_batches(
                batch_size=self.batch_size, row_groups=[rg], columns=self.columns
            ):
                take = mask[pos : pos + batch.num_rows] if mask is not None else None
                pos += batch.num_rows
                self.rows_scanned += batch.num_rows
                if take is not None:
                    if not any(take):
                        continue
                    batch = batch.filter(pa.array(take))
                yield from batch.to_pylist()

    def __iter__(self) -> Iterator[CorpusRecord]:
        seen: set[tuple[str, str]] = set()
        for row in self.iter_rows():
            rec = self.to_record(row)
            if rec is None:
                continue
            key = (rec.paper.venue, rec.paper.paper_id)
            if key in seen:  # the first row of an id wins; a repeat would count the paper twice
                self.skips.add(self.path, "duplicate paper id; this row skipped",
                               field="paper_id", record=rec.paper.paper_id)
                continue
            seen.add(key)
            yield rec

    def to_record(self, row: dict[str, Any]) -> CorpusRecord | None:
        """Convert one row; a row without a usable id or venue is skipped (and counted)."""
        pid = row.get("paper_id")
        if not isinstance(pid, str) or not pid.strip():
            got = "empty" if isinstance(pid, str) else type(pid).__name__
            self.skips.add(
                self.path, f"paper_id is {got}, expected a non-empty string", field="paper_id"
            )
            return None
        venue = _lookup_venue(row.get("venue"))
        if venue is None:
            self.skips.add(
                self.path, f"unknown venue {row.get('venue')!r}", field="venue", record=pid
            )
            return None
        paper = Paper(
            paper_id=pid,
            venue=venue.id,
            title=_first_text(row, "review_title", "grobid_title"),
            abstract=_first_text(row, "review_abstract", "grobid_abstract"),
            full_text=_first_text(row, "grobid_fulltext", "full_text"),
            decision=Decision.parse(row.get("decision")),
            meta_review=row.get("meta_review") if isinstance(row.get("meta_review"), str) else None,
            keywords=self._json_list(row, "keywords", pid),
            bibliography=self._bibliography(row, pid),
            source_path=str(self.path),
        )
        reviews: list[Review] = []
        if "reviews_json" in row:
            reviews = self._reviews(row["reviews_json"], pid, venue)
        return CorpusRecord(paper=paper, reviews=reviews, row=row)

    def _reviews(self, raw: Any, pid: str, venue: Venue) -> list[Review]:
        try:
            items = parse_reviews_field(raw, path=self.path)
        except DataError as err:
            self.skips.add_error(err, record=pid)
            return []
        out = []
        for k, fields in enumerate(items):
            try:
                out.append(human_review(pid, venue, k, fields, path=self.path))
            except DataError as err:
                self.skips.add_error(err, record=pid)
        return out

    def _bibliography(self, row: dict[str, Any], pid: str) -> list[BibEntry]:
        raw = row.get("bibliography_json")
        if not isinstance(raw, str) or not raw.strip():
            return []
        try:
            return parse_grobid_bib(loads(raw), path=self.path)
        except json.JSONDecodeError as exc:
            self.skips.add(
                self.path, f"invalid JSON ({exc.msg})", field="bibliography_json", record=pid
            )
        except DataError as err:
            field = "bibliography_json" + (err.field or "")
            self.skips.add(self.path, err.message, field=field, record=pid)
        return []

    def _json_list(self, row: dict[str, Any], name: str, pid: str) -> list[str]:
        raw = row.get(name)
        if raw is None or raw == "":
            return []
        value = raw
        if isinstance(raw, str):
            try:
                value = loads(raw)
            except json.JSONDecodeError:
                self.skips.add(self.path, "invalid JSON array", field=name, record=pid)
                return []
        if not isinstance(value, list):
            self.skips.add(
                self.path, f"expected a list, got {type(value).__name__}", field=name, record=pid
            )
            return []
        return [str(v) for v in value]


def _venue_id(raw: Any) -> str | None:
    venue = _lookup_venue(raw)
    return venue.id if venue else None


def _lookup_venue(raw: Any) -> Venue | None:
    if not isinstance(raw, str):
        return None
    try:
        return get_venue(raw)
    except KeyError:
        return None


def _first_text(row: dict[str, Any], *names: str) -> str:
    for name in names:
        value = row.get(name)
        if isinstance(value, str) and value.strip():
            return value
    return ""
