"""``prism data export-layout``: write any source's papers and reviews as an evaluation layout.

The layout written is the one ``prism evaluate --data`` and other PRISM tools read:
``OUT/<VENUE>/papers/<id>.txt``, ``OUT/<VENUE>/human_reviews/<id>.json`` (the review fields as the
corpus stores them, so the venue's formatter reads them back to the same reviews), every other
reviewer system of the source (a built-in system's per-paper files copied as they are, any other
system as bring-your-own ``OUT/<VENUE>/<system>/reviews.jsonl`` rows) and, with a
sample, ``OUT/<VENUE>/paper_ids_<n>_<venue>.txt`` in sample order. Papers that cannot be read and
ids that are not safe file names are counted skips, never written.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from prism_review.data.source_base import Source, SourceItem
from prism_review.records import Review
from prism_review.systems.registry import HUMAN, get_system
from prism_review.venues import get_venue

_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._\-]*$")


@dataclass
class ExportResult:
    papers: dict[str, int] = field(default_factory=dict)  # venue → papers written
    reviews: int = 0  # human reviews
    systems: dict[str, int] = field(default_factory=dict)  # other system → reviews written
    skipped: list[str] = field(default_factory=list)  # one line per skipped paper or review


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def review_fields(review: Review) -> dict[str, Any]:
    """The review's field dict as the corpus stored it (rebuilt from sections when absent)."""
    fields = review.extra.get("fields")
    if isinstance(fields, dict):
        return fields
    if isinstance(fields, str):
        return {"text": fields}
    return {**{s.name or "Review": s.text for s in review.sections}, **review.raw_scores}


def export_layout(
    source: Source,
    out: Path,
    *,
    venues: list[str] | None = None,
    sample: dict[str, list[str]] | None = None,
    limit: int | None = None,
    on_paper: Callable[[str, str], None] | None = None,
) -> ExportResult:
    """Write ``source``'s papers (text) and every system's reviews under ``out`` as a layout."""
    res = ExportResult()
    systems = _SystemWriter(source, out)
    try:
        for item in source.items(venues=venues, limit=limit, sample=sample):
            _export_item(item, out, res, systems)
            if on_paper and item.paper is not None:
                on_paper(item.venue, item.paper_id)
    finally:
        systems.close()
    res.skipped.extend(str(p) for p in source.problems())
    if sample:
        for venue, ids in sample.items():
            written = [i for i in ids if (out / venue / "papers" / f"{i}.txt").is_file()]
            if written:
                v = get_venue(venue)
                _write(out / v.id / f"paper_ids_{len(written)}_{v.lower}.txt",
                       "".join(i + "\n" for i in written))
    return res


def _export_item(item: SourceItem, out: Path, res: ExportResult, systems: _SystemWriter) -> None:
    for _system, err in item.errors:
        res.skipped.append(str(err))
    if item.paper is None:
        return
    pid = item.paper_id
    if not _SAFE_ID.match(pid):
        res.skipped.append(f"{item.paper.source_path}: paper id {pid!r} is not a safe file name")
        return
    vdir = out / get_venue(item.venue).id
    paper = item.paper
    _write(vdir / "papers" / f"{pid}.txt", paper.full_text)
    reviews = item.reviews.get(HUMAN, [])
    doc = {
        "paper_id": pid,
        "title": paper.title,
        "abstract": paper.abstract,
        "Decision": paper.decision.raw,
        "Meta review": paper.meta_review,
        "keywords": paper.keywords,
        "reviews": [review_fields(r) for r in reviews],
    }
    human_file = vdir / get_system(HUMAN).folder / f"{pid}.json"
    _write(human_file, json.dumps(doc, ensure_ascii=False, indent=1))
    res.papers[item.venue] = res.papers.get(item.venue, 0) + 1
    res.reviews += len(reviews)
    for system, sys_reviews in item.reviews.items():
        if system != HUMAN and sys_reviews:
            systems.write(item.venue, pid, system, sys_reviews)
            res.systems[system] = res.systems.get(system, 0) + len(sys_reviews)


class _SystemWriter:
    """The reviews of the systems other than ``human``: a built-in per-paper-file system's file is
    copied from a layout source byte for byte (its own reader reads it back); any other system's
    reviews become bring-your-own JSONL rows (sections, raw scores, extra), one file per system."""

    def __init__(self, source: Source, out: Path) -> None:
        self.source, self.out = source, out
        self.files: dict[tuple[str, str], IO[str]] = {}

    def write(self, venue: str, pid: str, system: str, reviews: list[Review]) -> None:
        vid = get_venue(venue).id
        spec = _file_spec(system)
        layout = getattr(self.source, "layout", None)
        if spec is not None and layout is not None:
            found = spec.find(layout.venue_dir(vid) / spec.folder, pid)
            if found is not None:
                dest = self.out / vid / spec.folder / found.name
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(found, dest)
                return
        key = (vid, system)
        if key not in self.files:
            path = self.out / vid / system / "reviews.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            self.files[key] = path.open("w", encoding="utf-8")
        for r in reviews:
            row = {"paper_id": pid, "reviewer_id": r.reviewer_id,
                   "sections": [{"name": sec.name or "", "text": sec.text} for sec in r.sections],
                   "scores": r.raw_scores, "extra": r.extra}
            self.files[key].write(json.dumps(row, ensure_ascii=False, default=str) + "\n")

    def close(self) -> None:
        for f in self.files.values():
            f.close()


def _file_spec(system: str) -> Any:
    from prism_review.data.layout import _file_spec as spec_of

    return spec_of(system)
