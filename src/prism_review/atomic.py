"""Atomic file writes: a reader (or a crash) sees the old file or the new one, never half.

Every file a run rewrites (``manifest.json``, ``summary.*``, ``report.html``, the memo, the
index) goes through :func:`write_text`: the text goes to a temporary file in the same folder,
is flushed to disk, then ``os.replace`` swaps it in. A failed write (disk full, read-only
folder) removes the temporary file and leaves the old file as it was.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from pathlib import Path


def write_bytes(path: Path | str, data: bytes) -> Path:
    """Replace ``path`` with ``data`` atomically (same-folder temp file, fsync, rename)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path


def write_text(path: Path | str, text: str) -> Path:
    """Replace ``path`` with UTF-8 ``text`` atomically."""
    return write_bytes(path, text.encode("utf-8"))


#: the errors of the machine's edges, not of the input: a full disk or quota, a file-size limit
#: (``ulimit -f``), a read-only file system, a folder the user may not write to
DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EACCES,
                         errno.EPERM})


def is_disk_error(exc: BaseException) -> bool:
    """True for an :class:`OSError` of :data:`DISK_ERRNOS` (no retry or other input helps)."""
    return isinstance(exc, OSError) and exc.errno in DISK_ERRNOS


def disk_error(exc: OSError, *, run: bool = True) -> str:
    """One line for a failed write or read: what, where, and that finished work is kept (of
    the run folder; ``run=False``: of any command)."""
    where = f" ({exc.filename})" if exc.filename else ""
    what = exc.strerror or str(exc)
    if not run:
        return (f"{what}{where}. Files already written are kept; free space or fix the folder's "
                "permissions, then re-run the same command.")
    return (
        f"{what}{where}. Finished work in the run folder is kept; free space or fix the "
        "folder's permissions, then re-run the same command to resume."
    )
