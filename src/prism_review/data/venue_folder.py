"""Read one raw per-venue corpus folder (``ICLR_2024/``) or its zip (``ICLR_2024.zip``) in place.

Members are read straight out of the zip with :mod:`zipfile`; nothing is extracted. The folder
holds ``json/<id>.json`` (reviews, decision, meta-review), ``txt/<id>.txt``, the GROBID outputs
``grobid_metadata/``, ``grobid_bib/``, ``grobid_tei/``, ``grobid_fulltext/`` and
``scraping_summary.json``. Missing or malformed GROBID outputs are counted in
:meth:`VenueFolder.grobid_report` (and skipped when assembling a paper), never fatal.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prism_review.data.grobid import (
    GrobidMetadata,
    TeiDocument,
    parse_grobid_bib,
    parse_grobid_metadata,
    parse_tei,
)
from prism_review.data.reviews import human_review
from prism_review.data.skips import SkipLog
from prism_review.data.venue_archive import VenueSource
from prism_review.guards.errors import DataError
from prism_review.records import BibEntry, Decision, Paper, Review
from prism_review.systems.base import parse_json
from prism_review.venues import Venue, get_venue

#: GROBID output kind → (sub-folder, file suffix)
GROBID_KINDS: dict[str, tuple[str, str]] = {
    "metadata": ("grobid_metadata", ".grobid.json"),
    "bib": ("grobid_bib", ".grobid.json"),
    "tei": ("grobid_tei", ".grobid.tei.xml"),
    "fulltext": ("grobid_fulltext", ".grobid.txt"),
}


def _decode(data: bytes, *, path: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(path, f"not valid UTF-8 (byte {exc.start})") from exc


def _load_json(data: bytes, *, path: str) -> Any:
    text = _decode(data, path=path)
    if not text.strip():
        raise DataError(path, "empty JSON file")
    return parse_json(path, text)


@dataclass
class ScrapingSummary:
    """``scraping_summary.json``: how many papers were scraped, how many failed, which ids."""

    total_processed: int | None = None
    total_failed: int | None = None
    paper_ids: list[str] = field(default_factory=list)


@dataclass
class GrobidReport:
    """Per GROBID output kind: how many papers have it, miss it, or have it malformed."""

    present: dict[str, int] = field(default_factory=dict)
    missing: dict[str, list[str]] = field(default_factory=dict)
    malformed: dict[str, list[str]] = field(default_factory=dict)

    def summary(self) -> str:
        """One line per kind: ok, missing and malformed counts."""
        return "; ".join(
            f"{k}: {self.present.get(k, 0)} ok, {len(self.missing.get(k, []))} missing, "
            f"{len(self.malformed.get(k, []))} malformed"
            for k in GROBID_KINDS
        )


class VenueFolder:
    """One venue's raw corpus folder or zip. Use as a context manager to close the zip."""

    def __init__(self, path: str | Path, *, venue: str | None = None, strict: bool = False,
                 skips: SkipLog | None = None) -> None:
        self.path = Path(path)
        #: the caller's log when given, so what opening finds (unsafe or repeated zip members)
        #: is in it too
        self.skips = skips if skips is not None else SkipLog(strict=strict)
        if not self.path.exists():
            raise DataError(self.path, "no such folder or zip")
        self._src = VenueSource(self.path, self.skips)
        name = venue or (self._src.prefix.strip("/").split("/")[-1] if self._src.prefix else "")
        name = name or self.path.stem
        try:
            self.venue: Venue | None = get_venue(name)
        except KeyError:
            self.venue = None
        self.venue_name = self.venue.id if self.venue else name

    def __enter__(self) -> VenueFolder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the underlying zip, if any."""
        self._src.close()

    # -- listing ---------------------------------------------------------------------------
    def paper_ids(self) -> list[str]:
        """Ids with a ``json/<id>.json``; else the summary's ``paper_ids``; sorted."""
        ids = [n[: -len(".json")] for n in self._src.list("json") if n.endswith(".json")]
        if ids:
            return sorted(ids)
        summary = self.scraping_summary()
        return sorted(summary.paper_ids) if summary else []

    def scraping_summary(self) -> ScrapingSummary | None:
        """The parsed ``scraping_summary.json`` (None when absent)."""
        found = self._read_json("scraping_summary.json")
        if found is None:
            return None
        value, label = found
        if not isinstance(value, dict):
            raise DataError(label, f"expected an object, got {type(value).__name__}")
        ids = value.get("paper_ids", [])
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise DataError(label, "expected a list of strings", field="paper_ids")
        counts: dict[str, int | None] = {}
        for key in ("total_processed", "total_failed"):
            v = value.get(key)
            if v is not None and (not isinstance(v, int) or isinstance(v, bool)):
                raise DataError(label, f"expected an integer, got {type(v).__name__}", field=key)
            counts[key] = v
        return ScrapingSummary(counts["total_processed"], counts["total_failed"], list(ids))

    # -- single files ----------------------------------------------------------------------
    def record(self, paper_id: str) -> dict[str, Any]:
        """The decoded ``json/<id>.json`` (raises :class:`DataError` when missing or bad)."""
        rel = f"json/{paper_id}.json"
        data = self._src.read(rel)
        label = self._src.label(rel)
        if data is None:
            raise DataError(label, "file missing")
        value = _load_json(data, path=label)
        if not isinstance(value, dict):
            raise DataError(label, f"expected an object, got {type(value).__name__}")
        return value

    def text(self, paper_id: str) -> str | None:
        """``txt/<id>.txt`` decoded as UTF-8 (None when absent)."""
        return self._read_text(f"txt/{paper_id}.txt")

    def nougat_mmd(self, paper_id: str) -> str | None:
        """``paper_nougat_mmd/<id>.mmd`` (ICLR 2024 only; None when absent)."""
        return self._read_text(f"paper_nougat_mmd/{paper_id}.mmd")

    def folder_counts(self) -> dict[str, int]:
        """Files per known sub-folder (``json``, ``txt``, ``grobid_tei``, …) that exists."""
        names = ["json", "txt", *(f for f, _ in GROBID_KINDS.values()), "review_json", "review_raw_txt",
                 "paper_nougat_mmd"]  # fmt: skip
        counts = {n: len(self._src.list(n)) for n in dict.fromkeys(names)}
        return {k: v for k, v in counts.items() if v}

    def _read_text(self, rel: str) -> str | None:
        data = self._src.read(rel)
        return None if data is None else _decode(data, path=self._src.label(rel))

    def _read_json(self, rel: str) -> tuple[Any, str] | None:
        """``(decoded JSON, label)`` of member ``rel`` (None when absent)."""
        data = self._src.read(rel)
        if data is None:
            return None
        label = self._src.label(rel)
        return _load_json(data, path=label), label

    def _grobid_rel(self, kind: str, paper_id: str) -> str:
        folder, suffix = GROBID_KINDS[kind]
        return f"{folder}/{paper_id}{suffix}"

    def grobid_metadata(self, paper_id: str) -> GrobidMetadata | None:
        """Parsed ``grobid_metadata/<id>.grobid.json`` (None when absent)."""
        found = self._read_json(self._grobid_rel("metadata", paper_id))
        return None if found is None else parse_grobid_metadata(found[0], path=found[1])

    def grobid_bib(self, paper_id: str) -> list[BibEntry] | None:
        """Parsed ``grobid_bib/<id>.grobid.json`` (None when absent)."""
        found = self._read_json(self._grobid_rel("bib", paper_id))
        return None if found is None else parse_grobid_bib(found[0], path=found[1])

    def grobid_bibtex(self, paper_id: str) -> str | None:
        """Raw ``grobid_bib/<id>.grobid.bib`` text (None when absent)."""
        return self._read_text(f"grobid_bib/{paper_id}.grobid.bib")

    def grobid_tei(self, paper_id: str) -> TeiDocument | None:
        """Parsed ``grobid_tei/<id>.grobid.tei.xml`` (None when absent)."""
        rel = self._grobid_rel("tei", paper_id)
        data = self._src.read(rel)
        return None if data is None else parse_tei(data, path=self._src.label(rel))

    def grobid_fulltext(self, paper_id: str) -> str | None:
        """``grobid_fulltext/<id>.grobid.txt`` (None when absent)."""
        return self._read_text(self._grobid_rel("fulltext", paper_id))

    # -- assembled records -----------------------------------------------------------------
    def _optional(self, fn: Any, paper_id: str) -> Any:
        """Call a GROBID reader; a malformed file is a counted skip and gives None."""
        try:
            return fn(paper_id)
        except DataError as err:
            self.skips.add_error(err, record=paper_id)
            return None

    def paper(self, paper_id: str, *, with_text: bool = True) -> tuple[Paper, list[Review]]:
        """Assemble a :class:`Paper` and its human reviews from every file the folder has.

        ``json/<id>.json`` is required (a bad one raises :class:`DataError`); malformed GROBID
        outputs and bad single reviews are counted in :attr:`skips` and left out.
        """
        rec = self.record(paper_id)
        label = self._src.label(f"json/{paper_id}.json")
        meta = rec.get("Meta review")
        if isinstance(meta, dict):
            meta_text = meta.get("Metareview")
            meta = meta_text if isinstance(meta_text, str) else None
        elif meta is not None and not isinstance(meta, str):
            self.skips.add(
                label, f"expected text or object, got {type(meta).__name__}", field="Meta review"
            )
            meta = None
        decision = self.decision(paper_id, rec)
        self._text_fields(rec, label, ("title", "abstract"))
        tei = self._optional(self.grobid_tei, paper_id) if with_text else None
        gmeta = self._optional(self.grobid_metadata, paper_id)
        full = ""
        if with_text:
            full = (
                self._optional(self.grobid_fulltext, paper_id)
                or self._optional(self.text, paper_id)
                or self._optional(self.nougat_mmd, paper_id)
                or ""
            )
        bib = (
            tei.bibliography
            if tei and tei.bibliography
            else (self._optional(self.grobid_bib, paper_id) or [])
        )
        paper = Paper(
            paper_id=paper_id,
            venue=self.venue_name,
            title=_str(rec.get("title"))
            or (tei.title if tei else "")
            or (gmeta.title if gmeta else ""),
            abstract=_str(rec.get("abstract"))
            or (tei.abstract if tei else "")
            or (gmeta.abstract if gmeta else ""),
            full_text=full,
            sections=tei.sections if tei else [],
            bibliography=bib,
            decision=decision,
            meta_review=meta,
            keywords=[str(k) for k in rec.get("keywords") or [] if isinstance(k, str)],
            source_path=label,
        )
        return paper, self._reviews(rec, paper_id, label)

    def decision(self, paper_id: str, rec: dict[str, Any]) -> Decision:
        """The decision of ``record(paper_id)``: one that is not text is a counted skip and no
        decision (``Decision: 1`` is not the decision "1", ``["Accept"]`` not an accept)."""
        self._text_fields(rec, self._src.label(f"json/{paper_id}.json"), ("Decision",))
        value = rec.get("Decision")
        return Decision.parse(value if isinstance(value, str) else None)

    def _text_fields(self, rec: dict[str, Any], label: str, keys: tuple[str, ...]) -> None:
        for key in keys:
            value = rec.get(key)
            if value is not None and not isinstance(value, str):
                self.skips.add(label, f"expected text, got {type(value).__name__} (not used)",
                               field=key)

    def _reviews(self, rec: dict[str, Any], paper_id: str, label: str) -> list[Review]:
        items = rec.get("reviews", [])
        if not isinstance(items, list):
            self.skips.add(label, f"expected a list, got {type(items).__name__}", field="reviews")
            return []
        out = []
        for k, fields in enumerate(items):
            try:
                out.append(
                    human_review(
                        paper_id, self.venue, k, fields, path=label, venue_name=self.venue_name
                    )
                )
            except DataError as err:
                self.skips.add_error(err, record=paper_id)
        return out

    def iter_papers(self, *, with_text: bool = True) -> Iterator[tuple[Paper, list[Review]]]:
        """Every paper in turn; an unreadable ``json/<id>.json`` is a counted skip."""
        for pid in self.paper_ids():
            try:
                yield self.paper(pid, with_text=with_text)
            except DataError as err:
                self.skips.add_error(err, record=pid)

    def grobid_report(self) -> GrobidReport:
        """Check every paper's four GROBID outputs: present, missing or malformed."""
        report = GrobidReport()
        readers = {
            "metadata": self.grobid_metadata,
            "bib": self.grobid_bib,
            "tei": self.grobid_tei,
            "fulltext": self.grobid_fulltext,
        }
        for pid in self.paper_ids():
            for kind, fn in readers.items():
                try:
                    value = fn(pid)
                except DataError:
                    report.malformed.setdefault(kind, []).append(pid)
                    continue
                if value is None:
                    report.missing.setdefault(kind, []).append(pid)
                elif kind == "fulltext" and not str(value).strip():
                    report.malformed.setdefault(kind, []).append(pid)
                else:
                    report.present[kind] = report.present.get(kind, 0) + 1
        return report


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""
