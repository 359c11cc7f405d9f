"""Parsing limits for untrusted input: JSON nesting depth, line and file size, text length.

Papers and reviews come from the internet. Without limits a 100,000-deep JSON array crashes the
parser with ``RecursionError`` and a 50 MB single-line review keeps the offline judges busy for
minutes at gigabytes of memory. Every loader parses JSON through :func:`loads` and reads files
through :func:`check_file_size`; texts longer than the caps are cut by :func:`cap_text` and
the cut is recorded by the caller (so a number computed on a cut text says so).
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any

from prism_review.guards.errors import DataError

#: deepest JSON nesting accepted (real review files nest 4 levels at most)
MAX_JSON_DEPTH = 64
#: longest single JSONL line, in bytes
MAX_LINE_BYTES = 64 << 20
#: largest whole file read into memory (a paper, a review file, a manifest)
MAX_FILE_BYTES = 128 << 20
#: longest review text kept (characters over all sections); longer reviews are cut
MAX_REVIEW_CHARS = 60_000
#: longest paper text kept (characters); longer papers are cut
MAX_PAPER_CHARS = 600_000
#: most digits of a JSON integer (Python refuses to convert past 4,300 with a ValueError that
#: no JSON handler catches; no score, id or count in a review file comes near 40)
MAX_INT_DIGITS = 40


class TooDeep(json.JSONDecodeError):
    """JSON nested deeper than :data:`MAX_JSON_DEPTH` (a :class:`json.JSONDecodeError`, so every
    loader's existing handler reports it as invalid JSON, naming file and line)."""


class BadNumber(json.JSONDecodeError):
    """A JSON number outside the parse limits: an integer of more than :data:`MAX_INT_DIGITS`
    digits, a float that overflows to infinity, or a bare ``NaN``/``Infinity`` (a
    :class:`json.JSONDecodeError`, so every loader reports it as invalid JSON naming the file and
    line, and skips that file or line)."""


def _number_hooks(doc: str, allow_nan: bool) -> dict[str, Any]:
    def parse_int(digits: str) -> int:
        if len(digits.lstrip("-")) > MAX_INT_DIGITS:
            raise BadNumber(f"integer of {len(digits.lstrip('-')):,} digits, over the "
                            f"{MAX_INT_DIGITS}-digit limit", doc, max(doc.find(digits), 0))
        return int(digits)

    def parse_float(text: str) -> float:
        value = float(text)
        if not allow_nan and not math.isfinite(value):
            raise BadNumber(f"number {text[:20]}{'...' if len(text) > 20 else ''} overflows a "
                            "float", doc, max(doc.find(text), 0))
        return value

    def parse_constant(name: str) -> float:
        if not allow_nan:
            raise BadNumber(f"{name} is not a number JSON allows", doc, max(doc.find(name), 0))
        return float(name)

    return {"parse_int": parse_int, "parse_float": parse_float, "parse_constant": parse_constant}


def loads(text: str | bytes, *, max_depth: int | None = None, allow_nan: bool = False) -> Any:
    """``json.loads`` within the parse limits: nesting deeper than ``max_depth`` (default
    :data:`MAX_JSON_DEPTH`) raises :class:`TooDeep`; an integer past :data:`MAX_INT_DIGITS`
    digits, a float overflowing to infinity and (unless ``allow_nan``: human-labelled files
    hold ``NaN`` for a missing label) ``NaN``/``Infinity`` raise :class:`BadNumber`."""
    max_depth = MAX_JSON_DEPTH if max_depth is None else max_depth
    doc = text if isinstance(text, str) else text.decode("utf-8")
    try:
        value = json.loads(doc, **_number_hooks(doc, allow_nan))
    except RecursionError:
        raise TooDeep(f"nested deeper than {max_depth} levels", doc, 0) from None
    if _deeper_than(value, max_depth):
        raise TooDeep(f"nested deeper than {max_depth} levels", doc, 0)
    return value


def json_problem(exc: json.JSONDecodeError, *, lines: bool = True) -> str:
    """``invalid JSON (<reason> at line L col C)`` for ``exc`` (``col C`` alone for one JSONL
    line). Some of ``json``'s reasons end in "at" ("Invalid control character at"), which a
    position appended after them would double."""
    reason = exc.msg.removesuffix(" at")
    where = f"line {exc.lineno} col {exc.colno}" if lines else f"col {exc.colno}"
    return f"invalid JSON ({reason} at {where})"


def _deeper_than(value: Any, limit: int) -> bool:
    """True when ``value`` nests more than ``limit`` containers (iterative: no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return False


_NOT_REGULAR = ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a character device"),
                (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                (stat.S_ISDIR, "a folder"))


def check_regular(path: Path | str) -> os.stat_result | None:
    """:class:`DataError` when ``path`` (followed through links) is not a regular file: opening a
    named pipe blocks until someone writes to it, a device never ends. None when it cannot be
    stat'ed (the read that follows reports it, naming the file)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    for test, what in _NOT_REGULAR:
        if test(st.st_mode):
            raise DataError(path, f"not a regular file ({what}; refused)")
    return st


def check_file_size(path: Path | str, limit: int | None = None) -> None:
    """:class:`DataError` when ``path`` is not a regular file (:func:`check_regular`) or is
    larger than ``limit`` bytes (default :data:`MAX_FILE_BYTES`, read at call time); nothing is
    read."""
    limit = MAX_FILE_BYTES if limit is None else limit
    st = check_regular(path)
    if st is None:
        return  # the read that follows reports it, naming the file
    size = st.st_size
    if size > limit:
        raise DataError(path, f"file is {size:,} bytes, over the {limit:,}-byte limit (refused)")


def cap_text(text: str, limit: int) -> tuple[str, int]:
    """``(text cut to limit characters, characters removed)``."""
    if len(text) <= limit:
        return text, 0
    return text[:limit], len(text) - limit


def read_capped(fh: Any, where: str, *, declared: int = 0, limit: int | None = None) -> bytes:
    """The bytes of an open stream (a zip member), read in chunks: one over ``limit`` (default
    :data:`MAX_FILE_BYTES`, read at call time) by its ``declared`` size or while reading is a
    :class:`DataError` naming ``where``, raised before the stream fills the memory."""
    limit = MAX_FILE_BYTES if limit is None else limit
    over = DataError(where, f"member is over the {limit:,}-byte limit (refused)")
    if declared > limit:
        raise over
    buf = bytearray()
    for chunk in iter(lambda: fh.read(1 << 20), b""):
        buf += chunk
        if len(buf) > limit:
            raise over
    return bytes(buf)
