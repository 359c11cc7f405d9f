"""Per-run memo of shared work (e.g. novelty's paper side and candidate pool), kept on disk.

``get_or_compute(key, fn)`` runs ``fn`` once per key per run folder, even when several units ask
at the same time, and stores the JSON result under ``<run>/memo/``, so a resumed run reuses it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prism_review.atomic import write_text

if TYPE_CHECKING:
    from pydantic import BaseModel


def input_digest(inp: BaseModel) -> str:
    """A short digest of a step input, for the memo key of a piece computed from it: a piece
    asked again with another input (other reviews, other settings) is a new piece."""
    return hashlib.sha256(inp.model_dump_json().encode("utf-8")).hexdigest()[:24]


class MemoStore:
    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._locks: dict[str, asyncio.Lock] = {}
        self._mem: dict[str, Any] = {}

    def _path(self, key: str) -> Path:
        digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
        return self.folder / f"{digest}.json"

    async def get_or_compute(self, key: str, fn: Callable[[], Awaitable[Any]]) -> Any:
        if key in self._mem:
            return self._mem[key]
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            if key in self._mem:
                return self._mem[key]
            path = self._path(key)
            if path.exists():
                try:
                    stored = json.loads(path.read_text(encoding="utf-8"))
                    if stored.get("key") == key:
                        self._mem[key] = stored["value"]
                        return stored["value"]
                except (json.JSONDecodeError, KeyError, OSError):
                    pass  # a torn memo file is recomputed
            value = await fn()
            self.folder.mkdir(parents=True, exist_ok=True)
            write_text(path, json.dumps({"key": key, "value": value}, ensure_ascii=False))
            self._mem[key] = value
            return value
