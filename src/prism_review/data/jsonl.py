"""Stream JSON Lines files, splitting on ``"\\n"`` only.

Review and paper texts contain U+2028/U+2029 and carriage returns; ``str.splitlines()`` and
text-mode line iteration would cut records in two or rewrite the text. This reader splits the raw
bytes on ``b"\\n"``, decodes each line as UTF-8 and keeps every other character as it is.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from prism_review.data.skips import SkipLog
from prism_review.guards import limits
from prism_review.guards.limits import json_problem, loads

_CHUNK = 1 << 20


def iter_lines(path: str | Path) -> Iterator[tuple[int, bytes]]:
    """Yield ``(line_number, raw_line)`` (1-based, without the ``\\n``), streaming the file."""
    buf = b""
    lineno = 0
    limits.check_regular(path)  # a named pipe would block the open below
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in lines:
                lineno += 1
                yield lineno, line
    if buf:
        yield lineno + 1, buf


def iter_jsonl(
    path: str | Path, skips: SkipLog, *, allow_nan: bool = False
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line.

    A line that is not UTF-8, not JSON (numbers outside the parse limits included, see
    :func:`~prism_review.guards.limits.loads`) or not an object is recorded in ``skips`` (or raises
    :class:`DataError` when the log is strict).
    """
    for lineno, raw in iter_lines(path):
        if raw.strip():
            obj = _object(path, lineno, raw, skips, allow_nan)
            if obj is not None:
                yield lineno, obj


def first_object(path: str | Path, skips: SkipLog) -> tuple[int, dict[str, Any]] | None:
    """``(line_number, object)`` of the first non-blank line, which tells a file's kind; None
    for a file of blank lines or when that line is bad (recorded in ``skips``, or raised when
    the log is strict). Only that line is read."""
    for lineno, raw in iter_lines(path):
        if raw.strip():
            obj = _object(path, lineno, raw, skips)
            return None if obj is None else (lineno, obj)
    return None


def _object(
    path: str | Path, lineno: int, raw: bytes, skips: SkipLog, allow_nan: bool = False
) -> dict[str, Any] | None:
    """The object on one non-blank line, or None with the problem recorded in ``skips``."""
    where = f"line {lineno}"
    if len(raw) > limits.MAX_LINE_BYTES:
        limit = limits.MAX_LINE_BYTES
        skips.add(path, f"line is {len(raw):,} bytes, over the {limit:,}-byte limit", record=where)
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        skips.add(path, f"not valid UTF-8 (byte {exc.start})", record=where)
        return None
    try:
        obj = loads(text, allow_nan=allow_nan)
    except json.JSONDecodeError as exc:
        skips.add(path, json_problem(exc, lines=False), record=where)
        return None
    if not isinstance(obj, dict):
        skips.add(path, f"expected an object, got {type(obj).__name__}", record=where)
        return None
    return obj


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """Every object of a JSON Lines file whose lines must all be good (human-labelled files,
    training data): a malformed line raises :class:`~prism_review.guards.errors.DataError` naming
    the file and line number. Accepts bare NaN (these files mark a missing label so)."""
    return [row for _, row in iter_jsonl(path, SkipLog(strict=True), allow_nan=True)]
