"""Append-only JSONL output for generation runs, resumable by key.

Rows are written one per finished item and flushed at once, so an interrupted run keeps what it
finished; the next run reads the keys already present (``paper_id`` for reviews and
meta-reviews, ``id`` for perturbation comments) and skips them. A torn last line (the process
was killed mid-write) is ignored on reading and overwritten cleanly by the next append.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from prism_review.data.jsonl import iter_jsonl
from prism_review.data.skips import SkipLog


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The complete JSON-object rows of ``path`` (split on ``\\n`` only; blank lines and torn
    lines, even one cut inside a multi-byte character, are skipped)."""
    if not path.is_file():
        return []
    return [row for _, row in iter_jsonl(path, SkipLog())]


class JsonlAppender:
    """Appends rows to one JSONL file; ``done`` holds the keys already written."""

    def __init__(self, path: Path, key: str = "paper_id") -> None:
        self.path = path
        self.key = key
        self.done: set[str] = {str(r[key]) for r in read_rows(path) if r.get(key) is not None}
        self._lock = threading.Lock()
        self._repair_tail()

    def _repair_tail(self) -> None:
        """Make sure the file ends with a newline, so a torn last line stays on its own line."""
        if self.path.is_file() and self.path.stat().st_size:
            with self.path.open("rb") as fh:
                fh.seek(-1, 2)
                last = fh.read(1)
            if last != b"\n":
                with self.path.open("ab") as fh:
                    fh.write(b"\n")

    def append(self, row: dict[str, Any]) -> None:
        """Write ``row`` as one line and flush; records its key as done."""
        line = json.dumps(row, ensure_ascii=False) + "\n"
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(line)
                fh.flush()
            self.done.add(str(row[self.key]))
