"""Where a raw venue folder's files come from: the folder itself, or its zip read in place.

:class:`VenueSource` lists and reads members by their path relative to the venue folder
(``json/<id>.json``), whichever form it has: zip members are streamed under the size cap
(``guards.limits``), never extracted, a member named twice is a counted skip (the first copy is
read), and a path outside the folder is refused (``guards.safepath``).
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path, PurePosixPath

from prism_review.data.skips import SkipLog
from prism_review.guards import limits
from prism_review.guards.errors import DataError
from prism_review.guards.safepath import inside, unsafe_member


class VenueSource:
    """A directory or a zip, addressed by POSIX-style relative member names."""

    def __init__(self, path: Path, skips: SkipLog) -> None:
        self.path = path
        self._zip: zipfile.ZipFile | None = None
        self.prefix = ""
        if path.is_dir():
            return
        try:
            self._zip = zipfile.ZipFile(path)
        except (OSError, zipfile.BadZipFile) as exc:
            raise DataError(path, f"not a readable folder or zip: {exc}") from exc
        names = []
        #: member name -> its first entry (a zip may name a member twice; ``ZipFile.read`` by
        #: name reads the last one while the listing held both)
        self._infos: dict[str, zipfile.ZipInfo] = {}
        for info in self._zip.infolist():
            if unsafe_member(info.filename):
                skips.add(path, "unsafe member name ignored", record=info.filename)
            elif info.filename in self._infos:
                skips.add(path, "member named twice: the first copy is read, this one ignored",
                          record=info.filename)
            elif not info.is_dir():
                self._infos[info.filename] = info
                names.append(info.filename)
        self._names = names
        self.prefix = _find_prefix(names)

    def label(self, rel: str) -> str:
        """A path for messages: ``dir/rel`` or ``archive.zip!prefix/rel``."""
        if self._zip is None:
            return str(self.path / rel)
        return f"{self.path}!{self.prefix}{rel}"

    def list(self, folder: str) -> list[str]:
        """File names (not paths) directly inside ``folder``."""
        if self._zip is None:
            d = self.path / folder
            return sorted(p.name for p in d.iterdir() if p.is_file()) if d.is_dir() else []
        want = f"{self.prefix}{folder}/"
        return sorted(
            n[len(want) :] for n in self._names if n.startswith(want) and "/" not in n[len(want) :]
        )

    def read(self, rel: str) -> bytes | None:
        """The member's bytes, or None when it does not exist."""
        if self._zip is None:
            if unsafe_member(rel):
                raise DataError(self.label(rel), "member name leaves the folder (refused)")
            p = self.path / rel
            if not p.is_file():
                return None
            inside(self.path, p)  # a symlink out of the folder is refused, naming where it leads
            _refuse_twin(p, self.label(rel))
            limits.check_file_size(p)
            return p.read_bytes()
        info = self._infos.get(self.prefix + rel)
        if info is None:
            return None
        try:
            return self._read_member(info, rel)
        except (
            zipfile.BadZipFile,
            OSError,
            EOFError,
            zlib.error,
        ) as exc:  # CRC error, truncated member
            raise DataError(self.label(rel), f"cannot read zip member: {exc}") from exc

    def _read_member(self, info: zipfile.ZipInfo, rel: str) -> bytes:
        assert self._zip is not None
        with self._zip.open(info) as fh:
            return limits.read_capped(fh, self.label(rel), declared=info.file_size)

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()


def _refuse_twin(path: Path, label: str) -> None:
    """A symbolic link to another file of its own folder (``json/b.json`` -> ``a.json``) would
    give paper ``b`` paper ``a``'s record: refused, as the layout's readers refuse it."""
    if not path.is_symlink():
        return
    target = path.resolve()
    if target.parent == path.parent.resolve() and target.name != path.name:
        raise DataError(label, f"not read: a link to {target.name}, another paper's file "
                        "(counted once)")


def _find_prefix(names: list[str]) -> str:
    """The folder inside the zip that holds ``json/`` or ``scraping_summary.json``."""
    best: str | None = None
    for n in names:
        parts = PurePosixPath(n).parts
        for i, part in enumerate(parts):
            if part in {"json", "scraping_summary.json"} and (part != "json" or i < len(parts) - 1):
                prefix = "".join(p + "/" for p in parts[:i])
                if best is None or len(prefix) < len(best):
                    best = prefix
                break
    return best or ""
