"""The ProReviewer dataset (``UKPLab/ProReviewer-Dataset``): ICLR papers with initial ratings.

Each row is one version-matched ICLR submission with the reviewers' *pre-rebuttal* ratings
(train = ICLR 2025, test = ICLR 2026). Accepted inputs, all read in streamed batches:

- a ``.parquet`` file, or a folder of them (``data/train-*.parquet``, ``data/test-*.parquet``);
- a ``datasets`` ``save_to_disk`` folder (``dataset_dict.json`` + ``<split>/data-*.arrow``, or a
  single split with ``state.json``), read with pyarrow directly so ``datasets`` is not needed;
- ``.jsonl`` files.

The split comes from the file or folder name; the venue from ``metadata.venueid`` (falling back
to the split). Reviews become ``Review`` records (system ``human``, ids ``Human_<k>``) whose
``Rating`` is the *initial* rating, normalised with the venue's scale.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from prism_review.data.jsonl import iter_jsonl
from prism_review.data.skips import SkipLog
from prism_review.guards.errors import DataError
from prism_review.guards.limits import loads
from prism_review.records import (
    HUMAN_SYSTEM,
    Decision,
    Paper,
    Review,
    Section,
    human_reviewer_id,
)
from prism_review.venues import Venue, get_venue, leading_number

SPLIT_VENUES = {"train": "ICLR2025", "test": "ICLR2026"}
_TEXT = (("summary", "Summary"), ("strengths", "Strengths"), ("weaknesses", "Weaknesses"),
         ("questions", "Questions"))  # fmt: skip
_SCORES = (("initial_rating", "Rating"), ("confidence", "Confidence"), ("soundness", "Soundness"),
           ("contribution", "Contribution"), ("presentation", "Presentation"))  # fmt: skip


@dataclass
class ProReviewerItem:
    """One paper with its reviews, initial ratings and the dataset's aggregate scores."""

    paper: Paper
    reviews: list[Review]
    split: str | None
    arxiv_id: str | None = None
    initial_ratings: list[float | None] = field(default_factory=list)
    scores: dict[str, Any] = field(default_factory=dict)

    @property
    def initial_rating_avg(self) -> float | None:
        """Mean of the readable initial ratings (None when there are none)."""
        vals = [r for r in self.initial_ratings if r is not None]
        return sum(vals) / len(vals) if vals else None


def _split_of(path: Path) -> str | None:
    for part in reversed(path.parts):
        m = re.match(r"^(train|test|validation)(?:[-_.]|$)", part)
        if m:
            return m.group(1)
    return None


def _sources(root: Path) -> list[tuple[Path, str | None, str]]:
    """(file, split, kind) for every data file under ``root``; kind is parquet, arrow or jsonl."""
    if root.is_file():
        kind = {".parquet": "parquet", ".arrow": "arrow", ".jsonl": "jsonl"}.get(root.suffix)
        if kind is None:
            raise DataError(root, "expected a .parquet, .arrow or .jsonl file or a folder")
        return [(root, _split_of(Path(root.name)), kind)]
    if not root.is_dir():
        raise DataError(root, "no such file or folder")
    out: list[tuple[Path, str | None, str]] = []
    if (root / "dataset_dict.json").is_file() or (root / "state.json").is_file():
        for f in sorted(root.rglob("*.arrow")):
            out.append((f, _split_of(f.relative_to(root)) or _split_of(Path(root.name)), "arrow"))
    else:
        for ext, kind in (("*.parquet", "parquet"), ("*.jsonl", "jsonl")):
            for f in sorted(root.rglob(ext)):
                out.append((f, _split_of(f.relative_to(root)), kind))
    if not out:
        raise DataError(root, "no parquet, arrow or jsonl files found")
    return out


def _arrow_batches(path: Path) -> Iterator[pa.RecordBatch]:
    try:
        with pa.memory_map(str(path)) as src:
            try:
                reader: Any = pa.ipc.open_stream(src)
                yield from reader
            except pa.ArrowInvalid:
                src.seek(0)
                reader = pa.ipc.open_file(src)
                for i in range(reader.num_record_batches):
                    yield reader.get_batch(i)
    except (OSError, pa.ArrowInvalid) as exc:
        raise DataError(path, f"not a readable Arrow file: {exc}") from exc


class ProReviewerReader:
    """Iterate :class:`ProReviewerItem` over a file or folder, optionally one split only."""

    def __init__(self, path: str | Path, *, split: str | None = None, strict: bool = False) -> None:
        self.path = Path(path)
        self.split = split
        self.skips = SkipLog(strict=strict)
        self.sources = [s for s in _sources(self.path) if split is None or s[1] == split]

    def splits(self) -> list[str]:
        """The splits found (``train``, ``test``, …)."""
        return sorted({s for _, s, _ in _sources(self.path) if s})

    def _rows(self, path: Path, kind: str) -> Iterator[tuple[str, dict[str, Any]]]:
        if kind == "jsonl":
            for lineno, obj in iter_jsonl(path, self.skips):
                yield f"line {lineno}", obj
            return
        if kind == "parquet":
            try:
                batches: Any = pq.ParquetFile(path).iter_batches(batch_size=16)
            except (OSError, pa.ArrowInvalid) as exc:
                raise DataError(path, f"not a readable parquet file: {exc}") from exc
        else:
            batches = _arrow_batches(path)
        n = 0
        for batch in batches:
            for row in batch.to_pylist():
                n += 1
                yield f"row {n}", row

    def __iter__(self) -> Iterator[ProReviewerItem]:
        for path, split, kind in self.sources:
            for where, row in self._rows(path, kind):
                try:
                    yield self.convert(row, split=split, path=path)
                except DataError as err:
                    self.skips.add_error(err, record=str(row.get("paper_id") or where))

    def convert(self, row: dict[str, Any], *, split: str | None, path: Path) -> ProReviewerItem:
        """One dataset row → :class:`ProReviewerItem` (bad reviews are counted skips)."""
        pid = row.get("paper_id")
        if not isinstance(pid, str) or not pid:
            raise DataError(path, "expected a non-empty string", field="paper_id")
        meta = _obj(row.get("metadata"), path, "metadata")
        venue = _venue(meta, split, path)
        md = row.get("markdown")
        content = _obj(md, path, "markdown").get("content") if not isinstance(md, str) else md
        if content is not None and not isinstance(content, str):
            raise DataError(
                path, f"expected text, got {type(content).__name__}", field="markdown.content"
            )
        meta_review = _obj(row.get("meta_review"), path, "meta_review").get("metareview")
        paper = Paper(
            paper_id=pid,
            venue=venue.id,
            title=str(row.get("title") or ""),
            full_text=content or "",
            decision=Decision.parse(_obj(row.get("decision"), path, "decision").get("decision")),
            meta_review=meta_review if isinstance(meta_review, str) else None,
            source_path=str(path),
        )
        raw_reviews = row.get("reviews") or []
        if not isinstance(raw_reviews, list):
            raise DataError(
                path, f"expected a list, got {type(raw_reviews).__name__}", field="reviews"
            )
        reviews: list[Review] = []
        ratings: list[float | None] = []
        for k, rv in enumerate(raw_reviews):
            try:
                review = _review(pid, venue, k, rv, path)
            except DataError as err:
                self.skips.add_error(err, record=pid)
                continue
            reviews.append(review)
            ratings.append(leading_number(review.raw_scores.get("Rating")))
        return ProReviewerItem(
            paper=paper,
            reviews=reviews,
            split=split,
            arxiv_id=row.get("arxiv_id") if isinstance(row.get("arxiv_id"), str) else None,
            initial_ratings=ratings,
            scores=_obj(row.get("scores"), path, "scores"),
        )


def _obj(value: Any, path: Path, name: str) -> dict[str, Any]:
    if value is None:
        return {}
    if isinstance(value, str):  # JSONL exports sometimes keep nested structs as JSON strings
        try:
            value = loads(value)
        except json.JSONDecodeError as exc:
            raise DataError(path, f"invalid JSON ({exc.msg})", field=name) from exc
    if not isinstance(value, dict):
        raise DataError(path, f"expected an object, got {type(value).__name__}", field=name)
    return value


def _venue(meta: dict[str, Any], split: str | None, path: Path) -> Venue:
    for key in ("venueid", "venue"):
        m = re.search(r"(20\d\d)", str(meta.get(key) or ""))
        if m:
            try:
                return get_venue(f"ICLR{m.group(1)}")
            except KeyError:
                break
    if split in SPLIT_VENUES:
        return get_venue(SPLIT_VENUES[split])
    raise DataError(
        path,
        "cannot tell the venue (no metadata.venueid and no train/test split)",
        field="metadata.venueid",
    )


def _review(pid: str, venue: Venue, k: int, rv: Any, path: Path) -> Review:
    where = f"reviews[{k}]"
    if not isinstance(rv, dict):
        raise DataError(path, f"review is a {type(rv).__name__}, expected an object", field=where)
    sections = []
    for key, name in _TEXT:
        value = rv.get(key)
        if value is not None and not isinstance(value, str):
            raise DataError(
                path, f"expected text, got {type(value).__name__}", field=f"{where}.{key}"
            )
        sections.append(Section(name=name, text=value or ""))
    if not any(s.text.strip() for s in sections):
        raise DataError(path, "review has no non-empty text field", field=where)
    raw_scores: dict[str, Any] = {}
    scores: dict[str, float | None] = {}
    for key, name in _SCORES:
        if rv.get(key) is None:
            continue
        value = rv[key]
        if leading_number(value) is None:
            raise DataError(path, f"not a number: {value!r}", field=f"{where}.{key}")
        raw_scores[name] = value
        scores[name] = venue.read_score(name, value)[1]
    return Review(
        paper_id=pid,
        venue=venue.id,
        system=HUMAN_SYSTEM,
        reviewer_id=human_reviewer_id(k),
        sections=sections,
        raw_scores=raw_scores,
        scores=scores,
        source_path=str(path),
        extra={
            "review_id": rv.get("id"),
            "initial_rating": leading_number(rv.get("initial_rating")),
        },
    )
