"""Where an evaluation layout's venues are: the DATA_ROOT under a path, its venue folders
(``ICLR2024`` or ``ICLR_2024``), folders that look like venues but name none, and the bundled
demo's root.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

from prism_review.guards.errors import DataError
from prism_review.venues import VENUES, get_venue


def venue_dirs(root: Path) -> dict[str, Path]:
    """Canonical venue id → folder, in registry order; ``ICLR_2024`` folders are accepted."""
    found: dict[str, Path] = {}
    if root.is_dir():
        for child in sorted(root.iterdir()):
            if not child.is_dir():
                continue
            try:
                vid = get_venue(child.name).id
            except KeyError:
                continue
            if vid not in found or child.name == vid:
                found[vid] = child
    return {v: found[v] for v in VENUES if v in found}


_VENUE_LIKE = re.compile(r"^[A-Za-z]+[_-]?\d{4}$")


def unknown_folders(root: Path) -> list[Path]:
    """Folders of ``root`` that look like venue folders (``NeurIPS2024``, or holding
    ``papers/``) but name no known venue: they are skipped, so callers report them."""
    if not root.is_dir():
        return []
    out = []
    for child in sorted(root.iterdir()):
        if child.name.startswith(".") or not child.is_dir():
            continue
        if not (_VENUE_LIKE.match(child.name) or (child / "papers").is_dir()):
            continue
        try:
            get_venue(child.name)
        except KeyError:
            out.append(child)
    return out


def find_data_root(path: Path | str) -> Path:
    """The DATA_ROOT under ``path``: ``<p>/input``, ``<p>/Data/input``, ``<p>``, then any ``input``
    directory below; the first holding all five venues wins, else the first holding any venue.
    """
    base = Path(path)
    fixed = [base / "input", base / "Data" / "input", base]

    def candidates() -> Iterator[Path]:
        yield from fixed
        if base.is_dir():  # walked only when the fixed places hold no complete root
            yield from _input_dirs(base)

    partial = None
    for cand in candidates():
        found = venue_dirs(cand)
        if len(found) == len(VENUES):
            return cand
        if found and partial is None:
            partial = cand
    if partial is not None:
        return partial
    raise DataError(base, f"no venue folder ({', '.join(VENUES)}) found here or below")


def _input_dirs(base: Path) -> list[Path]:
    """Every ``input`` directory below ``base``, not descending into venue folders."""
    found: list[Path] = []
    for dirpath, dirnames, _files in os.walk(base):
        keep = []
        for name in sorted(dirnames):
            if name == "input":
                found.append(Path(dirpath) / name)
            try:
                get_venue(name)
            except KeyError:
                keep.append(name)
        dirnames[:] = keep
    return found


def demo_root() -> Path:
    """The bundled demo dataset (an evaluation layout with one venue folder)."""
    res = resources.files("prism_review") / "resources" / "demo"
    path = Path(str(res))
    if not path.is_dir():
        raise DataError(path, "the bundled demo dataset is missing from this installation")
    return path
