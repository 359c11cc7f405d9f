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
from pathlib import Path

from prism_review.data.source_base import HUMAN, Source, SourceItem, meta_from_reviews
from prism_review.data.source_kinds import detect
from prism_review.guards import limits
from prism_review.guards.errors import DataError
from prism_review.venues import get_venue

__all__ = ["HUMAN", "Source", "SourceItem", "meta_from_reviews", "check_sample", "open_source", "read_sample"]


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
        data = limits.loads(path.read_bytes())
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
    if not any(out.values()):  # an empty sample must not mean "no filter": it selects nothing
        raise DataError(path, "the sample selects no paper (no venue lists a paper id); draw "
                        "it again with `prism data sample` from the data you evaluate",
                        field="venues")
    return out


def check_sample(path: Path, sample: dict[str, list[str]], present: list[str]) -> None:
    """A sample none of whose venues is in the data would evaluate nothing, unsaid."""
    if not any(v in present for v in sample):
        raise DataError(path, f"the sample's venues ({', '.join(sample)}) are not in the data "
                        f"(it holds {', '.join(present) or 'no venue'})", field="venues")


def open_source(path: Path | str) -> Source:
    """The source ``path`` holds, detected by its shape (see the module docstring)."""
    return detect(Path(path))
