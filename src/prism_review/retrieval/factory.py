"""Building a run's literature retriever from its settings: ``make_retriever(settings, root)``.

``retrieval`` = ``local`` (default: ``index_dir``, or an index of the data's papers and
reference lists built once into the cache, :func:`default_index_dir`) | ``s2`` (Semantic
Scholar: ``s2_base_url``, ``s2_min_interval``, ``s2_max_attempts``, ``s2_retry_delay``; key from
``SEMANTIC_SCHOLAR_API_KEY(S)``) | ``none`` (:class:`NoRetrieval`).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from prism_review.cache_dir import cache_root
from prism_review.records import Paper

RETRIEVAL_MODES = ("local", "s2", "none")


class NoRetrieval:
    """``retrieval=none``: every query returns nothing; claims are extracted (claim rate) but
    not checked, so NS/SR/SSR are null (compat: final score 0.0, NS 0.5, as the original)."""

    name = "none"

    async def search(self, query: str, limit: int = 10) -> list[dict[str, Any]]:
        return []

    def describe(self) -> dict[str, Any]:
        return {"backend": "none"}


def data_root_of(paper: Paper) -> Path | None:
    """The evaluation layout (DATA_ROOT) a paper was read from, if it came from one."""
    if not paper.source_path:
        return None
    p = Path(paper.source_path)
    return p.parents[2] if p.parent.name == "papers" and len(p.parents) >= 3 else None


def default_index_dir(root: Path | None) -> Path:
    """Cache folder of the index built on first use for ``root`` (keyed by its papers' listing):
    ``<cache root>/novelty-index/<hash>`` (:func:`prism_review.cache_dir.cache_root`)."""
    h = hashlib.sha256(str(root).encode())
    if root is not None:
        for d in sorted(root.glob("*/papers")):
            for f in sorted(d.iterdir()):
                h.update(f"{f.name}:{f.stat().st_size}:{f.stat().st_mtime_ns}".encode())
    return cache_root() / "novelty-index" / h.hexdigest()[:16]


def ensure_local_index(index_dir: str | Path | None, root: Path | None) -> Any:
    """Open ``index_dir``, or build (once) an index of ``root`` (else the demo) in the cache."""
    from prism_review.retrieval import sources
    from prism_review.retrieval.local_index import MANIFEST, LocalIndex, build_index

    if index_dir:
        return LocalIndex(index_dir)
    path = default_index_dir(root)
    if not (path / MANIFEST).is_file():
        docs = list(sources.docs_from_layout(root)) if root is not None else list(sources.docs_from_demo())
        lit = sources.bundled_literature()
        if lit is not None and root is not None:
            docs += list(sources.docs_from_jsonl(lit))
        if path.exists():  # a leftover without a manifest (an interrupted build)
            shutil.rmtree(path, ignore_errors=True)
        tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
        build_index(tmp, docs, sources=[f"data:{root}" if root else "demo"])
        try:
            os.replace(tmp, path)  # atomic: a concurrent run either sees no index or a whole one
        except OSError:  # another process won the race
            shutil.rmtree(tmp, ignore_errors=True)
    return LocalIndex(path)


def retrieval_mode(settings: Mapping[str, Any]) -> str:
    """The run's retrieval backend: ``local`` (default), ``s2`` or ``none``."""
    return str(settings.get("retrieval", "local") or "local").lower()


def make_retriever(settings: Mapping[str, Any], root: Path | None) -> Any:
    """The retriever the run's ``settings`` ask for; ``root`` is the data's layout (the local
    index is built from it when no ``index_dir`` is given; None: the bundled demo)."""
    mode = retrieval_mode(settings)
    if mode == "none":
        return NoRetrieval()
    if mode == "s2":
        from prism_review.retrieval.s2 import SemanticScholarClient

        return SemanticScholarClient(
            base_url=settings.get("s2_base_url"),
            min_interval=float(settings.get("s2_min_interval", 1.5)),
            max_attempts=settings.get("s2_max_attempts"),
            retry_delay=float(settings.get("s2_retry_delay", 1.0)),
        )
    if mode == "local":
        return ensure_local_index(settings.get("index_dir"), root)
    raise ValueError(f"unknown retrieval backend {mode!r}; use local, s2 or none")
