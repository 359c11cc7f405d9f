"""The review texts behind a report's drill-down rows, read back from the run's data.

The results log keeps each review's extraction and scores, not the review itself; an auditor
wants the text beside what was extracted from it. :func:`review_texts` opens the source named in
the run's manifest (``data``; a manifest without one is said, not guessed) and reads the reviews of the
papers the report lists. When the data cannot be read (moved, deleted, another machine) the
report says so instead of showing the text: nothing here can fail a report.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

ReviewKey = tuple[str, str, str, str]  # venue, paper id, system, reviewer id
#: a table source (parquet, JSONL) is read front to back to find the papers: not above this size
MAX_SCAN_BYTES = 256 << 20


def review_texts(manifest: dict[str, Any], papers: list[tuple[str, str]]) -> tuple[dict[ReviewKey, str], str]:
    """``({(venue, paper, system, reviewer): text}, note)``; the note says why texts are missing."""
    from prism_review.data.sources import open_source

    data = manifest.get("data")
    if not papers:
        return {}, "no papers"
    if not data:
        return {}, "review texts not shown: the run's manifest names no data"
    wanted: dict[str, list[str]] = defaultdict(list)
    for venue, pid in papers:
        wanted[venue].append(pid)
    out: dict[ReviewKey, str] = {}
    try:
        path = Path(str(data))
        if not path.exists():
            return {}, f"review texts not shown: the run's data {data} is not here"
        if path.is_file() and path.stat().st_size > MAX_SCAN_BYTES:  # a table is scanned whole
            return {}, (f"review texts not shown: the run's data {data} is a "
                        f"{path.stat().st_size >> 20} MiB table, not re-read for the report")
        source = open_source(str(data))
        for item in source.items(sample=dict(wanted)):
            for system, reviews in item.reviews.items():
                for r in reviews:
                    out[(item.venue, item.paper_id, system, r.reviewer_id)] = r.text
    except Exception as exc:  # a report is never lost to its data: say why the text is absent
        return out, f"review texts not shown: the run's data {data} could not be read ({exc})"
    return out, ""
