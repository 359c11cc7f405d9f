"""Per-run memo of shared work (e.g. novelty's paper side and candidate pool), kept on disk.

``get_or_compute(key, fn)`` runs ``fn`` once per key per run folder, even when several units ask
at the same time, and stores the JSON result under ``<run>/memo/``, so a resumed run reuses it.
Several stores on one run folder (the actors of ``--engine ray``, each with its own store) compute
a key once between them: the computing store holds an exclusive lock on ``<key file>.lock``
(``flock``, polled without blocking the event loop, removed once the value is stored), and
the others wait for it and read the stored value, so a piece shared by units on different workers (a paper's candidate pool, a group
of papers' constructiveness call) is paid for once, as on the local engine.

The files are the source of truth: a store keeps at most ``MEMORY_ENTRIES`` values in memory
(the most recently used; a value dropped from memory is read back from its file), so a
corpus-scale run's memory does not grow with its papers.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import json
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prism_review.atomic import write_text

if TYPE_CHECKING:
    from pydantic import BaseModel


def input_digest(inp: BaseModel) -> str:
    """A short digest of a step input, for the memo key of a piece computed from it: a piece
    asked again with another input (other reviews, other settings) is a new piece."""
    return hashlib.sha256(inp.model_dump_json().encode("utf-8")).hexdigest()[:24]


#: values a store keeps in memory: a piece is asked for by the units of its paper (a group's
#: by those of its ≤ 12 papers), and the runner holds at most a few hundred units in flight
MEMORY_ENTRIES = 256


class MemoStore:
    def __init__(self, folder: Path, *, memory_entries: int = MEMORY_ENTRIES) -> None:
        self.folder = Path(folder)
        self.memory_entries = memory_entries
        self._locks: dict[str, asyncio.Lock] = {}
        self._waiting: dict[str, int] = {}
        self._mem: OrderedDict[str, Any] = OrderedDict()

    def _remember(self, key: str, value: Any) -> None:
        self._mem[key] = value
        self._mem.move_to_end(key)
        while len(self._mem) > self.memory_entries:
            self._mem.popitem(last=False)

    def _path(self, key: str) -> Path:
        digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
        return self.folder / f"{digest}.json"

    async def get_or_compute(self, key: str, fn: Callable[[], Awaitable[Any]]) -> Any:
        if key in self._mem:
            self._mem.move_to_end(key)
            return self._mem[key]
        lock = self._locks.setdefault(key, asyncio.Lock())
        self._waiting[key] = self._waiting.get(key, 0) + 1
        try:
            async with lock:
                return await self._get_locked(key, fn)
        finally:  # the key's lock lives while someone holds or waits for it
            self._waiting[key] -= 1
            if not self._waiting[key]:
                del self._waiting[key], self._locks[key]

    async def _get_locked(self, key: str, fn: Callable[[], Awaitable[Any]]) -> Any:
        if key in self._mem:
            return self._mem[key]
        path = self._path(key)
        if (found := self._read(path, key)) is not None:
            return found[0]
        lock = path.with_suffix(".lock")
        async with _file_lock(lock):  # another store may be computing it
            if (found := self._read(path, key)) is not None:
                value = found[0]
            else:
                value = await fn()
                write_text(path, json.dumps({"key": key, "value": value}, ensure_ascii=False))
                self._remember(key, value)
            # the value is on disk, so the lock is no longer needed: removed by whoever holds it
            # and sees the value (a store that opens it afresh locks a new file, finds the value
            # and removes that one), never before, so two stores never compute a key at once;
            # a run folder keeps no lock file per key
            lock.unlink(missing_ok=True)
        return value

    def _read(self, path: Path, key: str) -> tuple[Any] | None:
        """``(value,)`` stored for ``key`` (kept in memory), or None."""
        if not path.exists():
            return None
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
            if stored.get("key") == key:
                self._remember(key, stored["value"])
                return (stored["value"],)
        except (json.JSONDecodeError, KeyError, OSError):
            pass  # a torn memo file is recomputed
        return None


@contextlib.asynccontextmanager
async def _file_lock(path: Path, poll: float = 0.02) -> AsyncIterator[None]:
    """An exclusive ``flock`` on ``path`` across processes (and across stores of one process),
    polled so the event loop keeps running while another holder computes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as fh:
        while True:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                await asyncio.sleep(poll)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
