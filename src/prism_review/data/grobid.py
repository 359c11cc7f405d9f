"""Parse GROBID outputs: TEI XML, the metadata JSON and the bibliography JSON.

All parsers take the raw bytes or decoded JSON plus the path they came from, and raise
:class:`DataError` naming that path (and the field) when the content is malformed, so callers can
count a malformed file and move on. The TEI parser never resolves entities or touches the network.
"""

from __future__ import annotations

import re
from typing import Any

from lxml import etree
from pydantic import BaseModel, Field

from prism_review.guards.errors import DataError
from prism_review.records import BibEntry, Section

TEI_NS = "http://www.tei-c.org/ns/1.0"
_NS = {"t": TEI_NS}


class TeiDocument(BaseModel):
    """What prism-review uses from a GROBID TEI file."""

    title: str = ""
    abstract: str = ""
    authors: list[str] = Field(default_factory=list)
    sections: list[Section] = Field(default_factory=list)
    bibliography: list[BibEntry] = Field(default_factory=list)


class GrobidMetadata(BaseModel):
    """``grobid_metadata/<id>.grobid.json``: title, authors, abstract, keywords, date."""

    title: str = ""
    authors: list[str] = Field(default_factory=list)
    abstract: str = ""
    keywords: list[str] = Field(default_factory=list)
    date: str | None = None


def _parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, recover=False)


def _text(node: Any) -> str:
    """All text under ``node``, whitespace collapsed."""
    if node is None:
        return ""
    return re.sub(r"\s+", " ", "".join(node.itertext())).strip()


def _person(node: Any) -> str:
    forenames = [_text(f) for f in node.findall("t:forename", _NS)]
    surname = _text(node.find("t:surname", _NS))
    return " ".join(p for p in [*forenames, surname] if p) or _text(node)


def _year(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    m = re.search(r"\b(1[5-9]\d\d|20\d\d)\b", str(value or ""))
    return int(m.group(1)) if m else None


def _bib_from_tei(node: Any) -> BibEntry:
    title = node.find("t:analytic/t:title", _NS)
    if title is None or not _text(title):
        title = node.find("t:monogr/t:title", _NS)
    venue = None
    if node.find("t:analytic", _NS) is not None:
        venue = _text(node.find("t:monogr/t:title", _NS)) or None
    authors = [_person(p) for p in node.iterfind(".//t:author/t:persName", _NS)]
    date = node.find(".//t:imprint/t:date", _NS)
    year = _year(date.get("when") or _text(date)) if date is not None else None
    return BibEntry(title=_text(title), authors=authors, year=year, venue=venue)


def parse_tei(data: bytes, *, path: object) -> TeiDocument:
    """Parse a GROBID TEI document: title, abstract, authors, body sections, bibliography."""
    if not data.strip():
        raise DataError(path, "empty TEI file")
    try:
        root = etree.fromstring(data, parser=_parser())
    except etree.XMLSyntaxError as exc:
        raise DataError(path, f"malformed XML: {exc}") from exc
    if etree.QName(root).namespace != TEI_NS:
        raise DataError(path, f"root element {root.tag!r} is not in the TEI namespace", field="TEI")
    header = root.find("t:teiHeader", _NS)
    title = _text(root.find(".//t:titleStmt/t:title", _NS)) if header is not None else ""
    abstract = _text(root.find(".//t:profileDesc/t:abstract", _NS))
    authors = [
        _person(p)
        for p in root.iterfind(".//t:sourceDesc/t:biblStruct/t:analytic/t:author/t:persName", _NS)
    ]
    sections: list[Section] = []
    for div in root.iterfind(".//t:text/t:body/t:div", _NS):
        head = div.find("t:head", _NS)
        name = _text(head)
        if head is not None and head.get("n"):
            name = f"{head.get('n')} {name}".strip()
        paras = [_text(p) for p in div if etree.QName(p).localname in {"p", "formula", "list"}]
        body = "\n\n".join(p for p in paras if p)
        if name or body:
            sections.append(Section(name=name, text=body))
    bib = [_bib_from_tei(b) for b in root.iterfind(".//t:back//t:listBibl/t:biblStruct", _NS)]
    return TeiDocument(
        title=title, abstract=abstract, authors=authors, sections=sections, bibliography=bib
    )


def _str_list(value: Any, *, path: object, field: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in re.split(r"[;,]", value) if v.strip()]
    if not isinstance(value, list):
        raise DataError(path, f"expected a list, got {type(value).__name__}", field=field)
    out = []
    for item in value:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            name = item.get("name") or " ".join(
                str(item[k])
                for k in ("first", "forename", "middle", "last", "surname")
                if item.get(k)
            )
            if name:
                out.append(str(name))
        elif item is not None:
            raise DataError(path, f"list item is a {type(item).__name__}", field=field)
    return out


def parse_grobid_metadata(value: Any, *, path: object) -> GrobidMetadata:
    """Validate a decoded ``grobid_metadata`` JSON object."""
    if not isinstance(value, dict):
        raise DataError(path, f"expected an object, got {type(value).__name__}")
    for key in ("title", "abstract"):
        if value.get(key) is not None and not isinstance(value[key], str):
            raise DataError(path, f"expected text, got {type(value[key]).__name__}", field=key)
    date = value.get("date")
    return GrobidMetadata(
        title=value.get("title") or "",
        abstract=value.get("abstract") or "",
        authors=_str_list(value.get("authors"), path=path, field="authors"),
        keywords=_str_list(value.get("keywords"), path=path, field="keywords"),
        date=str(date) if date not in (None, "") else None,
    )


def parse_grobid_bib(value: Any, *, path: object) -> list[BibEntry]:
    """Validate a decoded ``grobid_bib`` JSON list of ``{title, authors, year, venue}``."""
    if isinstance(value, dict) and isinstance(value.get("references"), list):
        value = value["references"]
    if not isinstance(value, list):
        raise DataError(path, f"expected a list of references, got {type(value).__name__}")
    out = []
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise DataError(path, f"reference is a {type(item).__name__}", field=f"[{i}]")
        title = item.get("title") or ""
        if not isinstance(title, str):
            raise DataError(
                path, f"expected text, got {type(title).__name__}", field=f"[{i}].title"
            )
        venue = item.get("venue")
        out.append(
            BibEntry(
                title=title,
                authors=_str_list(item.get("authors"), path=path, field=f"[{i}].authors"),
                year=_year(item.get("year")),
                venue=str(venue) if venue else None,
            )
        )
    return out
