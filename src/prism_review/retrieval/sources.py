"""Document sources for the local literature index: titles, abstracts and bibliographies.

Each function yields index documents ``{id, title, abstract, year, venue, kind}``:

* :func:`docs_from_jsonl` — any JSONL of papers ``{id, title, abstract, year, venue}``;
* :func:`docs_from_layout` — an evaluation layout (DATA_ROOT): every paper's title/abstract
  plus its bibliography (the paper's own reference list parsed when no GROBID bibliography);
* :func:`docs_from_corpus` — ``papers.parquet``: titles, abstracts, ``bibliography_json``;
* :func:`docs_from_venue_dir` — a raw HF venue folder/zip: GROBID metadata and bibliography.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from prism_review.data.jsonl import iter_jsonl
from prism_review.data.skips import SkipLog
from prism_review.records import BibEntry
from prism_review.retrieval.bibparse import parse_reference_list
from prism_review.retrieval.candidates import title_id
from prism_review.venues import get_venue


def _bib_docs(bib: list[BibEntry]) -> Iterator[dict[str, Any]]:
    for b in bib:
        if b.title.strip():
            yield {
                "id": title_id(b.title),
                "title": b.title.strip(),
                "abstract": "",
                "year": b.year,
                "venue": b.venue or "",
                "kind": "bib",
            }


def _year(value: Any) -> int | None:
    try:
        return int(str(value)[:4]) if value not in (None, "") else None
    except ValueError:
        return None


def docs_from_jsonl(path: str | Path, skips: SkipLog | None = None) -> Iterator[dict[str, Any]]:
    """Rows ``{id, title, abstract, year, venue}``, streamed; blank lines are skipped and a line
    that is not a JSON object is recorded in ``skips`` (without it: raises
    :class:`~prism_review.guards.errors.DataError` naming it)."""
    for _, row in iter_jsonl(path, skips if skips is not None else SkipLog(strict=True)):
        yield {
            "id": row.get("id") or row.get("paper_id") or row.get("paperId"),
            "title": row.get("title"),
            "abstract": row.get("abstract"),
            "year": _year(row.get("year")),
            "venue": row.get("venue"),
            "kind": row.get("kind") or "paper",
        }


def docs_from_layout(root: str | Path, skips: SkipLog | None = None) -> Iterator[dict[str, Any]]:
    """Papers of an evaluation layout and the titles in their reference lists. A paper that
    cannot be read (not UTF-8, empty, outside the root) is left out and recorded in ``skips``;
    the other papers are still indexed."""
    from prism_review.data.layout import EvalLayout
    from prism_review.guards.errors import DataError

    log = skips if skips is not None else SkipLog()
    layout = EvalLayout(root)
    for venue in layout.venues():
        year = get_venue(venue).year
        for pid in layout.paper_ids(venue):
            try:
                paper = layout.load_paper(venue, pid)
            except DataError as exc:
                log.add_error(exc, record=pid)
                continue
            if paper.title:
                yield {
                    "id": pid,
                    "title": paper.title,
                    "abstract": paper.abstract,
                    "year": year,
                    "venue": venue,
                    "kind": "paper",
                }
            yield from _bib_docs(paper.bibliography or parse_reference_list(paper.full_text))
    for err in layout.problems:
        log.add_error(err)


def docs_from_corpus(
    path: str | Path, venues: list[str] | None = None, skips: SkipLog | None = None
) -> Iterator[dict[str, Any]]:
    """Titles, abstracts and GROBID bibliographies of ``papers.parquet`` (streamed).

    Rows or bibliographies that cannot be read are recorded in ``skips`` (when given) once the
    stream is exhausted, so a caller can say how much was left out of the index.
    """
    from prism_review.data.corpus import CorpusReader

    cols = [
        "paper_id",
        "venue",
        "review_title",
        "grobid_title",
        "review_abstract",
        "grobid_abstract",
        "bibliography_json",
    ]
    reader = CorpusReader(path, venues=venues, columns=cols)
    for rec in reader:
        p = rec.paper
        if p.title:
            yield {
                "id": p.paper_id,
                "title": p.title,
                "abstract": p.abstract,
                "year": get_venue(p.venue).year,
                "venue": p.venue,
                "kind": "paper",
            }
        # the reader parsed bibliography_json already; what it could not read is in its skips
        yield from _bib_docs(p.bibliography)
    if skips is not None:
        skips.skips.extend(reader.skips.skips)


def docs_from_venue_dir(
    path: str | Path, venue: str | None = None, skips: SkipLog | None = None
) -> Iterator[dict[str, Any]]:
    """A raw venue folder or zip: titles/abstracts (review JSON, else GROBID metadata) and the
    GROBID bibliography, else the titles parsed from the paper text's reference list.

    Papers or texts that cannot be read are recorded in ``skips`` (when given)."""
    from prism_review.data.venue_folder import VenueFolder
    from prism_review.guards.errors import DataError

    with VenueFolder(path, venue=venue) as vf:
        year = vf.venue.year if vf.venue else None
        for paper, _ in vf.iter_papers(with_text=False):
            if paper.title:
                yield {"id": paper.paper_id, "title": paper.title, "abstract": paper.abstract, "year": year,
                       "venue": vf.venue_name, "kind": "paper"}
            bib = paper.bibliography
            if not bib:
                try:
                    text = vf.grobid_fulltext(paper.paper_id) or vf.text(paper.paper_id) or ""
                except DataError as exc:  # an undecodable text: no reference list from it
                    if skips is not None:
                        skips.add_error(exc, record=paper.paper_id)
                    text = ""
                bib = parse_reference_list(text)
            yield from _bib_docs(bib)
        if skips is not None:
            skips.skips.extend(vf.skips.skips)


def bundled_literature() -> Path | None:
    """The literature JSONL shipped with the package for the demo (None when absent)."""
    from importlib import resources

    path = Path(str(resources.files("prism_review") / "resources" / "novelty" / "literature.jsonl"))
    return path if path.is_file() else None


def docs_from_demo(skips: SkipLog | None = None) -> Iterator[dict[str, Any]]:
    """The bundled demo layout's papers and reference lists, plus the bundled literature."""
    from prism_review.data.layout import demo_root
    from prism_review.guards.errors import DataError

    try:
        root = demo_root()
    except DataError:  # an installation without the demo data
        root = None
    if root is not None:
        yield from docs_from_layout(root, skips)
    lit = bundled_literature()
    if lit is not None:
        yield from docs_from_jsonl(lit, skips)
