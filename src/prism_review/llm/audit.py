"""The audit log: one JSON line per LLM call (or cache hit), appended to ``<out>/audit.jsonl``.

Each line holds the request hash (also the cache key and an entry of
``StepResult.request_ids``), the step, provider, model, parameters, whether it came from the
cache, the raw reply and its parse outcome, so every number can be traced back to the replies
behind it. API keys are never written.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any


class AuditLog:
    """Append-only JSONL writer, safe to share between concurrent calls."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def write(self, record: dict[str, Any]) -> None:
        """Append one record (a ``ts`` field is added)."""
        line = json.dumps({"ts": round(time.time(), 3), **record}, ensure_ascii=False,
                          default=str)
        with self._lock, self.path.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")
