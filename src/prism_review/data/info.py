"""``prism data info``: say what a file or folder is and count what it holds.

Detection is by shape, cheapest first: parquet schemas and the first JSONL record tell the
corpus table, ProReviewer and the perturbation set apart; ``json/`` marks a raw venue folder
(or zip); venue sub-folders holding ``papers/`` mark the evaluation layout. Counting reads only
small columns or file listings, so it is cheap even on the 1.8 GB corpus table.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from prism_review.data.jsonl import first_object
from prism_review.data.skips import SkipLog
from prism_review.guards.errors import DataError
from prism_review.venues import get_venue


def _kind_from_fields(fields: set[str]) -> str | None:
    if "perturbations" in fields and "perturbed_paper" in fields:
        return "perturbation"
    if "reviews_json" in fields and "paper_id" in fields:
        return "prism-corpus"
    if "markdown" in fields and "reviews" in fields:
        return "proreviewer"
    return None


def _first_jsonl_fields(path: Path) -> set[str]:
    try:
        first = first_object(path, SkipLog(strict=True))
    except DataError as exc:
        raise DataError(exc.path, f"first record is not a JSON object ({exc.message})") from exc
    return set(first[1]) if first else set()


def detect(path: Path) -> str:
    """One of ``prism-corpus``, ``venue-folder``, ``layout``, ``proreviewer``, ``perturbation``."""
    if not path.exists():
        raise DataError(path, "no such file or folder")
    if path.suffix == ".parquet":
        try:
            names = set(pq.ParquetFile(path).schema_arrow.names)
        except Exception as exc:  # pyarrow raises several types for garbage
            raise DataError(path, f"not a readable parquet file: {exc}") from exc
        kind = _kind_from_fields(names)
    elif path.suffix == ".jsonl":
        kind = _kind_from_fields(_first_jsonl_fields(path))
    elif path.suffix == ".zip" or (path / "json").is_dir():
        kind = "venue-folder"
    elif (path / "dataset_dict.json").is_file() or (path / "state.json").is_file():
        kind = "proreviewer"
    elif path.is_dir() and _layout_venues(path):
        kind = "layout"
    else:
        kind = None
    if kind is None:
        raise DataError(path, "not a dataset prism-review recognises")
    return kind


def _layout_venues(root: Path) -> list[Path]:
    out = []
    for child in sorted(root.iterdir()) if root.is_dir() else []:
        try:
            get_venue(child.name)
        except KeyError:
            continue
        if (child / "papers").is_dir():
            out.append(child)
    return out


def describe(path: Path) -> dict[str, Any]:
    """Facts about ``path``: its kind and counts suited to that kind."""
    kind = detect(path)
    facts: dict[str, Any] = {"path": str(path), "kind": kind}
    if kind == "prism-corpus":
        from prism_review.data.corpus import CorpusReader
        from prism_review.data.sampling import decision_class

        reader = CorpusReader(path, columns=["paper_id"], batch_size=8192)
        full = CorpusReader(path)
        counts: Counter[str] = Counter()
        for rec in reader:
            counts[f"{rec.paper.venue} {decision_class(rec.paper.decision)}"] += 1
        facts.update(rows=reader.num_rows, row_groups=reader.num_row_groups, columns=len(reader.file_columns),
                      largest_row_group_mb=round(full.max_row_group_mb(), 1),
                      by_venue_decision=dict(sorted(counts.items())), problems=reader.skips.summary(), first_problems=[str(x) for x in reader.skips.skips[:10]])  # fmt: skip
    elif kind == "venue-folder":
        from prism_review.data.venue_folder import VenueFolder

        with VenueFolder(path) as vf:
            summary = vf.scraping_summary()
            facts.update(venue=vf.venue_name, papers=len(vf.paper_ids()), files=vf.folder_counts(),
                         scraping_summary=None if summary is None else {
                             "total_processed": summary.total_processed,
                             "total_failed": summary.total_failed},
                         grobid=vf.grobid_report().summary(), problems=vf.skips.summary(), first_problems=[str(x) for x in vf.skips.skips[:10]])  # fmt: skip
    elif kind == "perturbation":
        from prism_review.data.perturbation import PerturbationReader

        preader = PerturbationReader(path, rebuild_review_input=False)
        cats: Counter[str] = Counter()
        n_pert = 0
        for row in preader:
            cats[row.error_category] += 1
            n_pert += len(row.perturbations)
        facts.update(rows=preader.counts["rows"], perturbations=n_pert, by_category=dict(cats),
                     text_withheld=preader.counts["text_withheld"],
                     hash_mismatch=preader.counts["hash_mismatch"],
                     offset_mismatch=preader.counts["offset_mismatch"],
                     problems=preader.skips.summary(), first_problems=[str(x) for x in preader.skips.skips[:10]])  # fmt: skip
    elif kind == "proreviewer":
        from prism_review.data.proreviewer import ProReviewerReader

        prreader = ProReviewerReader(path)
        splits: Counter[str] = Counter()
        n_reviews = 0
        for item in prreader:
            splits[item.split or "-"] += 1
            n_reviews += len(item.reviews)
        facts.update(papers=sum(splits.values()), by_split=dict(splits), reviews=n_reviews,
                     problems=prreader.skips.summary(), first_problems=[str(x) for x in prreader.skips.skips[:10]])  # fmt: skip
    else:
        facts["venues"] = _layout_counts(path)
    return facts


def _layout_counts(root: Path) -> dict[str, Any]:
    """Per venue: papers, and per system the reviews it holds and the papers they cover (a
    bring-your-own ``reviews.jsonl`` is one file but many reviews); unreadable inputs counted."""
    from prism_review.data.layout import EvalLayout

    layout = EvalLayout(root)
    out: dict[str, Any] = {}
    for venue in layout.venues():
        ids = layout.paper_ids(venue)
        systems: dict[str, dict[str, int]] = {}
        unreadable = 0
        for system in layout.systems(venue):
            n_reviews = n_papers = 0
            for pid in ids:
                try:
                    reviews = layout.load_reviews(venue, pid, system)
                except DataError:
                    unreadable += 1
                    continue
                n_reviews += len(reviews)
                n_papers += bool(reviews)
            systems[system] = {"reviews": n_reviews, "papers": n_papers}
        out[venue] = {
            "papers": len(ids),
            "systems": systems,
            "unreadable_review_files": unreadable,
            "skipped_reviews": len(layout.skipped),
        }
        layout.skipped.clear()
    return out
