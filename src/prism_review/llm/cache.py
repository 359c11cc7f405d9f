"""The on-disk response cache: SQLite in WAL mode, shared by every run on the machine.

The key (:func:`request_key`) hashes the provider, the endpoint's base URL, model, messages and
every output-affecting setting (temperature, token budget, response format and schema,
seed/epoch) — never the API key, timeout or concurrency. Every reply is stored whatever the
temperature, so the same command with the same settings re-run into a new output folder is
served entirely from the cache; ``--no-cache``, a new ``--seed`` or a new epoch draws again. Two
servers serving the same model name never share replies (the base URL is in the key).

The cache is an optimisation, never a reason to lose work: a read or write that fails (a
corrupt or locked database, a full disk) is logged and treated as a miss. The cache lives in ``$PRISM_CACHE_DIR`` if set, else in the
platform user cache directory (``$XDG_CACHE_HOME/prism-review`` on Linux).
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from prism_review.cache_dir import cache_root

CACHE_FILE = "llm-cache.sqlite3"
log = logging.getLogger("prism_review.llm")


def default_cache_dir() -> Path:
    """``$PRISM_CACHE_DIR``, else the user cache dir (``$XDG_CACHE_HOME/prism-review``): the
    one cache root (:func:`prism_review.cache_dir.cache_root`)."""
    return cache_root()


def request_key(payload: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of ``payload`` (the request hash used everywhere)."""
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    """A thread-safe SQLite key → reply store with hit/miss counters."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / CACHE_FILE
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT, "
                "text TEXT, usage TEXT, created REAL)"
            )
            self._db.commit()
        self.hits = 0
        self.misses = 0
        self.writes = 0

    def get(self, key: str) -> tuple[str, dict[str, Any]] | None:
        """The cached (reply text, usage) for ``key``, counting a hit or a miss."""
        with self._lock:
            row = self._db.execute(
                "SELECT text, usage FROM responses WHERE key = ?", (key,)
            ).fetchone()
            if row is None:
                self.misses += 1
                return None
            self.hits += 1
        return row[0], json.loads(row[1] or "{}")

    def put(self, key: str, model: str, text: str, usage: dict[str, Any]) -> None:
        """Store a reply (last writer wins)."""
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses (key, model, text, usage, created) "
                "VALUES (?, ?, ?, ?, ?)",
                (key, model, text, json.dumps(usage), time.time()),
            )
            self._db.commit()
            self.writes += 1

    def delete(self, key: str, text: str | None = None) -> None:
        """Drop ``key``'s reply (a reply the judge could not use); with ``text``, only while the
        stored reply is that one (not another's usable reply stored since)."""
        with self._lock:
            if text is None:
                self._db.execute("DELETE FROM responses WHERE key = ?", (key,))
            else:
                self._db.execute("DELETE FROM responses WHERE key = ? AND text = ?", (key, text))
            self._db.commit()

    def count(self) -> int:
        """Number of stored replies."""
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._db.close()


def open_cache(directory: str | Path) -> ResponseCache | None:
    """The cache in ``directory``, or None (logged) when it cannot be opened: run uncached."""
    try:
        return ResponseCache(directory)
    except (OSError, sqlite3.Error) as exc:
        log.warning("LLM cache %s cannot be opened (%s): running without a cache", directory, exc)
        return None
