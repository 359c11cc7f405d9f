"""Input paths stay inside their root: ids, manifests, symlinks and archive members.

Every loader that turns untrusted text (a manifest line, a paper id of a JSONL row, a zip member
name) or a directory entry (which may be a symlink) into a file to read goes through this
module. A path that resolves outside its root is refused with an :class:`UnsafePathError`
naming the path and where it leads, so callers count it as a skipped input instead of reading a
file the data set does not own.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath, PureWindowsPath

from prism_review.guards.errors import DataError


class UnsafePathError(DataError):
    """A path (or an id used as a file name) that would leave its root."""


def check_id(pid: str, *, source: object, field: str | None = None) -> str:
    """``pid`` when it is usable as a file-name stem, else :class:`UnsafePathError`.

    An id may not contain path separators, NUL or control characters, and may not be ``.``,
    ``..`` or start with a dot (``../../x`` and ``/etc/passwd`` are refused).
    """
    bad = (
        not pid
        or pid in {".", ".."}
        or pid.startswith(".")
        or any(c in pid for c in "/\\\x00")
        or any(ord(c) < 32 for c in pid)
    )
    if bad:
        raise UnsafePathError(
            source, f"paper id {pid!r} is not a plain file name (refused)", field=field
        )
    return pid


def inside(root: Path | str, path: Path | str) -> Path:
    """``path`` resolved (symlinks followed) when it stays inside ``root`` resolved; otherwise
    :class:`UnsafePathError` naming both. Missing files are resolved as far as they exist."""
    real_root = Path(os.path.realpath(root))
    real = Path(os.path.realpath(path))
    if real != real_root and real_root not in real.parents:
        raise UnsafePathError(path, f"resolves to {real}, outside {real_root} (refused)")
    return real


def is_inside(root: Path | str, path: Path | str) -> bool:
    """True when ``path`` resolves inside ``root`` (see :func:`inside`)."""
    try:
        inside(root, path)
    except UnsafePathError:
        return False
    return True


def unsafe_member(name: str) -> bool:
    """True when an archive member name is absolute, has a drive letter or NUL, or climbs out
    of its folder with ``..`` (zip-slip)."""
    posix = name.replace("\\", "/")
    return (
        "\x00" in name
        or posix.startswith("/")
        or bool(PureWindowsPath(name).drive)
        or ".." in PurePosixPath(posix).parts
    )
