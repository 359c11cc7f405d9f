"""``prism data export-layout``: write any source's papers and human reviews as an evaluation layout.

The layout written is the one ``prism evaluate --data`` and other PRISM tools read:
``OUT/<VENUE>/papers/<id>.txt``, ``OUT/<VENUE>/human_reviews/<id>.json`` (the review fields as the
corpus stores them, so the venue's formatter reads them back to the same reviews) and, with a
sample, ``OUT/<VENUE>/paper_ids_<n>_<venue>.txt`` in sample order. Papers that cannot be read and
ids that are not safe file names are counted skips, never written.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prism_review.data.source_base import Source
from prism_review.records import Review
from prism_review.systems.registry import HUMAN, get_system
from prism_review.venues import get_venue

_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._\-]*$")


@dataclass
class ExportResult:
    papers: dict[str, int] = field(default_factory=dict)  # venue → papers written
    reviews: int = 0
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
    """Write ``source``'s papers (text) and human reviews under ``out`` in the evaluation layout."""
    res = ExportResult()
    for item in source.items(venues=venues, limit=limit, sample=sample):
        for _system, err in item.errors:
            res.skipped.append(str(err))
        if item.paper is None:
            continue
        pid = item.paper_id
        if not _SAFE_ID.match(pid):
            res.skipped.append(f"{item.paper.source_path}: paper id {pid!r} is not a safe file name")
            continue
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
        if on_paper:
            on_paper(item.venue, pid)
    res.skipped.extend(str(p) for p in source.problems())
    if sample:
        for venue, ids in sample.items():
            written = [i for i in ids if (out / venue / "papers" / f"{i}.txt").is_file()]
            if written:
                v = get_venue(venue)
                _write(out / v.id / f"paper_ids_{len(written)}_{v.lower}.txt",
                       "".join(i + "\n" for i in written))
    return res
