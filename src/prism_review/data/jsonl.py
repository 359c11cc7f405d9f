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

from prism_review.data import limits
from prism_review.data.limits import loads
from prism_review.data.skips import SkipLog

_CHUNK = 1 << 20


def iter_lines(path: str | Path) -> Iterator[tuple[int, bytes]]:
    """Yield ``(line_number, raw_line)`` (1-based, without the ``\\n``), streaming the file."""
    buf = b""
    lineno = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in lines:
                lineno += 1
                yield lineno, line
    if buf:
        yield lineno + 1, buf


def iter_jsonl(path: str | Path, skips: SkipLog) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line.

    A line that is not UTF-8, not JSON or not an object is recorded in ``skips`` (or raises
    :class:`DataError` when the log is strict).
    """
    for lineno, raw in iter_lines(path):
        if not raw.strip():
            continue
        where = f"line {lineno}"
        if len(raw) > limits.MAX_LINE_BYTES:
            limit = limits.MAX_LINE_BYTES
            skips.add(path, f"line is {len(raw):,} bytes, over the {limit:,}-byte limit",
                      record=where)
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            skips.add(path, f"not valid UTF-8 (byte {exc.start})", record=where)
            continue
        try:
            obj = loads(text)
        except json.JSONDecodeError as exc:
            skips.add(path, f"invalid JSON ({exc.msg} at char {exc.pos})", record=where)
            continue
        if not isinstance(obj, dict):
            skips.add(path, f"expected an object, got {type(obj).__name__}", record=where)
            continue
        yield lineno, obj
