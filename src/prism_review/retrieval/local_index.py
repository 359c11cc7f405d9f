"""A local literature index (tantivy, BM25) answering novelty queries offline.

Documents are ``{id, title, abstract, year, venue, kind}`` where ``kind`` is ``paper`` (a corpus
paper with its abstract) or ``bib`` (a title from some paper's bibliography). :meth:`search`
returns hits in the Semantic Scholar ``/paper/search`` shape, so the pool pipeline treats both
backends alike; hits carry no ``score`` field, so relevance is the same rank score
``(n − rank)/n`` as for Semantic Scholar results without one.

Build with :func:`build_index` (or ``prism index build``); open with :class:`LocalIndex`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import tantivy

from prism_review.atomic import write_text
from prism_review.retrieval.candidates import title_id

MANIFEST = "prism_index.json"
INDEX_VERSION = 1
_WORD = re.compile(r"[A-Za-z0-9]+")


def _schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("id", stored=True, tokenizer_name="raw")
    sb.add_text_field("title", stored=True, tokenizer_name="en_stem")
    sb.add_text_field("abstract", stored=True, tokenizer_name="en_stem")
    sb.add_text_field("venue", stored=True, tokenizer_name="raw")
    sb.add_text_field("kind", stored=True, tokenizer_name="raw")
    sb.add_integer_field("year", stored=True, indexed=True)
    return sb.build()


def _title_key(title: str) -> str:
    return " ".join(_WORD.findall(title.lower()))


def merge_docs(docs: Iterable[dict[str, Any]], conflicts: list[str] | None = None) -> list[dict[str, Any]]:
    """One document per id and per normalised title; a richer record (with an abstract, a
    year, a ``paper`` kind) wins over a bare bibliography title. Two documents sharing an id
    under different titles are two papers of which one is kept: each is noted in
    ``conflicts``."""
    by_key: dict[str, dict[str, Any]] = {}
    order: list[str] = []
    ids: dict[str, str] = {}
    for d in docs:
        title = str(d.get("title") or "").strip()
        if not title:
            continue
        doc_id = str(d.get("id") or title_id(title))
        doc: dict[str, Any] = {
            "id": doc_id,
            "title": title,
            "abstract": str(d.get("abstract") or "").strip(),
            "year": d.get("year") if isinstance(d.get("year"), int) else None,
            "venue": str(d.get("venue") or ""),
            "kind": str(d.get("kind") or "paper"),
        }
        known = ids.get(doc_id)
        key = known or _title_key(title)
        ids[doc_id] = key
        old = by_key.get(key)
        if known and old is not None and conflicts is not None and \
                _title_key(old["title"]) != _title_key(title):
            conflicts.append(f"id {doc_id!r} holds two titles, {old['title']!r:.80} and "
                             f"{title!r:.80}: one document kept")
        if old is None:
            by_key[key] = doc
            order.append(key)
            continue
        rank = (bool(doc["abstract"]), doc["kind"] == "paper", doc["year"] is not None)
        if rank > (bool(old["abstract"]), old["kind"] == "paper", old["year"] is not None):
            by_key[key] = {**doc, "year": doc["year"] if doc["year"] is not None else old["year"]}
    return [by_key[k] for k in order]


def build_index(
    out_dir: str | Path, docs: Iterable[dict[str, Any]], *, sources: list[str] | None = None
) -> dict[str, Any]:
    """Write a fresh index of ``docs`` to ``out_dir`` and return its manifest."""
    t0 = time.perf_counter()
    out = Path(out_dir)
    if out.exists() and not (out / MANIFEST).exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} exists and is not a prism index; refusing to overwrite")
    conflicts: list[str] = []
    merged = merge_docs(docs, conflicts)  # read every source first: unreadable input leaves the old index
    out.parent.mkdir(parents=True, exist_ok=True)
    new = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        manifest = _write_index(new, merged, sources, t0, conflicts)
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)  # a failed build (disk full) keeps the old index
        raise
    if out.exists():
        shutil.rmtree(out)
    os.replace(new, out)
    return manifest


def _write_index(
    out: Path, merged: list[dict[str, Any]], sources: list[str] | None, t0: float,
    conflicts: list[str],
) -> dict[str, Any]:
    index = tantivy.Index(_schema(), path=str(out))
    writer = index.writer(heap_size=50_000_000, num_threads=1)
    for d in merged:
        fields: dict[str, Any] = {k: d[k] for k in ("id", "title", "abstract", "venue", "kind")}
        if d["year"] is not None:
            fields["year"] = d["year"]
        writer.add_document(tantivy.Document(**fields))
    writer.commit()
    writer.wait_merging_threads()
    manifest = {
        "version": INDEX_VERSION,
        "documents": len(merged),
        "papers": sum(1 for d in merged if d["kind"] == "paper"),
        "bibliography_titles": sum(1 for d in merged if d["kind"] == "bib"),
        "sources": sources or [],
        #: ids shared by documents of different titles (one kept each), and the first notes
        "id_conflicts": len(conflicts),
        "id_conflict_notes": conflicts[:100],
        "seconds": round(time.perf_counter() - t0, 3),
    }
    write_text(out / MANIFEST, json.dumps(manifest, indent=1))
    return manifest


class LocalIndex:
    """Search a built index; ``await idx.search(query, limit)`` like the S2 client."""

    name = "local"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not (self.path / MANIFEST).is_file():
            raise FileNotFoundError(
                f"no prism literature index at {self.path} (build one with `prism index build`)"
            )
        self.manifest = json.loads((self.path / MANIFEST).read_text(encoding="utf-8"))
        self._index = tantivy.Index.open(str(self.path))
        self._index.reload()
        self._searcher = self._index.searcher()

    def search_sync(self, query: str, limit: int = 10) -> list[dict[str, Any]]:
        """BM25 over title (boost 2) and abstract; OR of the query's words."""
        words = _WORD.findall(query)
        if not words:
            return []
        q = self._index.parse_query(
            " ".join(words), ["title", "abstract"], field_boosts={"title": 2.0}
        )
        hits = self._searcher.search(q, limit).hits
        out: list[dict[str, Any]] = []
        for _score, addr in hits:
            doc = self._searcher.doc(addr)
            year = doc.get_first("year")
            out.append(
                {
                    "paperId": doc.get_first("id"),
                    "title": doc.get_first("title") or "",
                    "abstract": doc.get_first("abstract") or "",
                    "year": int(year) if year is not None else None,
                    "venue": doc.get_first("venue") or "",
                    "url": None,
                    "externalIds": {},
                }
            )
        return out

    async def search(self, query: str, limit: int = 10) -> list[dict[str, Any]]:
        """Async wrapper (the index is local and fast; no thread hop needed)."""
        return self.search_sync(query, limit)

    def describe(self) -> dict[str, Any]:
        """Index location and size for the run manifest."""
        return {
            "backend": "local",
            "path": str(self.path),
            **{
                k: self.manifest.get(k)
                for k in ("documents", "papers", "bibliography_titles", "version")
            },
        }
