"""Which papers a venue folder holds: manifest files (``paper_ids_<n>_<venue>.txt``, one id a
line) and the ``papers/`` listing.
"""

from __future__ import annotations

from pathlib import Path

from prism_review.guards.errors import DataError
from prism_review.guards.safepath import UnsafePathError, check_id
from prism_review.systems.base import read_text


def read_manifest(path: Path, unsafe: list[DataError] | None = None) -> list[str]:
    """Ids of a manifest file, one per line, blank lines and ``#`` comments ignored. An id that
    is not a plain file name (``../x``, ``a/b``) is left out and appended to ``unsafe``."""
    text = read_text(path)
    ids = []
    for i, line in enumerate(text.split("\n"), start=1):
        pid = line.strip()
        if not pid or pid.startswith("#"):
            continue
        try:
            ids.append(check_id(pid, source=path, field=f"line {i}"))
        except UnsafePathError as exc:
            if unsafe is not None:
                unsafe.append(exc)
    return ids


def list_paper_ids(pdir: Path) -> list[str]:
    """Ids of ``papers/``, sorted, from ``{id}.txt`` / ``{id}.grobid.txt`` (deduplicated)."""
    ids = set()
    for p in pdir.iterdir() if pdir.is_dir() else []:
        if p.is_file() and not p.name.startswith("."):
            if p.name.endswith(".grobid.txt"):
                ids.add(p.name[: -len(".grobid.txt")])
            elif p.name.endswith(".txt"):
                ids.add(p.name[: -len(".txt")])
    return sorted(ids)
