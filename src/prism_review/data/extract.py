"""Bounded, atomic zip extraction (``prism data download``).

Every member is checked before a byte is written: it stays inside the target folder (no ``..``,
absolute path or symlink), is named once, is no larger than :data:`MAX_MEMBER_BYTES`, expands
no more than :data:`MAX_RATIO` times its compressed size (a zip bomb), and the members together
stay under :data:`MAX_TOTAL_BYTES`. A member whose file already exists in the target is kept
when the file holds the same bytes, and refused otherwise (a file the user has is never
overwritten). Members are streamed into a temporary folder inside the target, counting bytes
against the declared sizes, and moved into place only when all of them were written; any
failure (a full disk, a damaged member) removes the temporary folder and leaves the target as
it was.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import zipfile
import zlib
from pathlib import Path

from prism_review.guards.errors import DataError
from prism_review.guards.safepath import unsafe_member

#: the largest total of member sizes extracted from one archive (bytes)
MAX_TOTAL_BYTES = 32 << 30
#: the largest single member (bytes)
MAX_MEMBER_BYTES = 8 << 30
#: the largest size / compressed size of a member over :data:`RATIO_FLOOR` bytes
MAX_RATIO = 200
#: members smaller than this are not held to :data:`MAX_RATIO` (tiny files compress freely)
RATIO_FLOOR = 1 << 20
_CHUNK = 1 << 20


class UnsafeArchiveError(DataError):
    """A zip member would land outside the extraction folder (``../``, absolute, symlink), is
    named twice, is over the size or ratio limits, or would overwrite a file."""


def _refuse(archive: Path, name: str, why: str) -> UnsafeArchiveError:
    return UnsafeArchiveError(archive, f"refusing to extract: member {name!r} {why}", field=name)


def _crc(path: Path) -> int:
    crc = 0
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            crc = zlib.crc32(chunk, crc)
    return crc


def _plan(zf: zipfile.ZipFile, archive: Path, target: Path, root: Path) -> list[zipfile.ZipInfo]:
    """The members to write (files already present with the same bytes are left out), after
    every check; the first problem raises :class:`UnsafeArchiveError`."""
    seen: set[str] = set()
    total = 0
    todo = []
    for info in zf.infolist():
        name = info.filename
        dest = (root / name).resolve()
        if (unsafe_member(name) or stat.S_ISLNK(info.external_attr >> 16)
                or (dest != root and root not in dest.parents)):
            raise _refuse(archive, name, f"would be written outside {target}")
        key = name.rstrip("/")
        if key in seen:
            raise _refuse(archive, name, "is named twice in the archive")
        seen.add(key)
        if info.is_dir():
            continue
        if info.file_size > MAX_MEMBER_BYTES:
            raise _refuse(archive, name, f"is {info.file_size:,} bytes, over the "
                          f"{MAX_MEMBER_BYTES:,}-byte member limit")
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size > RATIO_FLOOR and ratio > MAX_RATIO:
            raise _refuse(archive, name, f"expands {ratio:,.0f} times ({info.compress_size:,} to "
                          f"{info.file_size:,} bytes), over the {MAX_RATIO}x limit (a zip bomb?)")
        total += info.file_size
        if total > MAX_TOTAL_BYTES:
            raise _refuse(archive, name, f"takes the archive past the {MAX_TOTAL_BYTES:,}-byte "
                          "total limit")
        if dest.exists() or dest.is_symlink():
            if (dest.is_file() and not dest.is_symlink() and dest.stat().st_size == info.file_size
                    and _crc(dest) == info.CRC):
                continue  # already there, the same bytes
            raise _refuse(archive, name, f"would overwrite {dest} (move it aside or choose "
                          "another --dest)")
        todo.append(info)
    return todo


def _copy(zf: zipfile.ZipFile, info: zipfile.ZipInfo, out: Path, archive: Path) -> None:
    """Stream one member to ``out``, never more bytes than it declares."""
    written = 0
    with zf.open(info) as src, out.open("xb") as dst:
        for chunk in iter(lambda: src.read(_CHUNK), b""):
            written += len(chunk)
            if written > info.file_size:
                raise _refuse(archive, info.filename, "holds more bytes than it declares")
            dst.write(chunk)


def safe_extract(archive: Path, target: Path) -> list[Path]:
    """Extract ``archive`` into ``target`` (see the module docstring); return the member files,
    those already present included. Nothing is written when a check fails; a failure while
    writing removes what was written."""
    target.mkdir(parents=True, exist_ok=True)
    root = target.resolve()
    try:
        zf = zipfile.ZipFile(archive)
    except (OSError, zipfile.BadZipFile) as exc:
        raise DataError(archive, f"not a readable zip: {exc}") from exc
    with zf:
        files = [root / i.filename for i in zf.infolist() if not i.is_dir()]
        todo = _plan(zf, archive, target, root)
        tmp = Path(tempfile.mkdtemp(prefix=".prism-extract-", dir=root))
        moved: list[Path] = []
        try:
            for n, info in enumerate(todo):
                _copy(zf, info, tmp / str(n), archive)
            for n, info in enumerate(todo):
                dest = root / info.filename
                dest.parent.mkdir(parents=True, exist_ok=True)
                if dest.exists() or dest.is_symlink():  # appeared since the checks
                    raise _refuse(archive, info.filename, f"would overwrite {dest}")
                os.replace(tmp / str(n), dest)
                moved.append(dest)
        except BaseException as exc:
            for dest in moved:  # all or nothing
                dest.unlink(missing_ok=True)
            if isinstance(exc, UnsafeArchiveError) or not isinstance(
                    exc, OSError | EOFError | zipfile.BadZipFile | zlib.error):
                raise
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise DataError(archive, f"cannot extract into {target}: {why} (the files written "
                            "were removed)") from exc
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        for info in zf.infolist():
            if info.is_dir():
                (root / info.filename).mkdir(parents=True, exist_ok=True)
    return files
