"""One writer per run folder: ``<out>/.lock`` is held (``fcntl.flock``) while a run writes.

Two ``prism evaluate`` on one ``--out`` would both append to ``results.jsonl`` and rewrite
``manifest.json``; the second is refused instead, with a message naming the process that holds
the folder (its pid, host, command and start time are written into the lock file). The lock is
released by the kernel when the holder exits, so a killed run never leaves a stale lock.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

from prism_review.llm.credentials import redact_argv

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks, runs are not serialised
    fcntl = None  # type: ignore[assignment]

LOCK_FILE = ".lock"


class RunFolderBusy(RuntimeError):
    """Another process is writing to the run folder."""


class RunLock:
    """``with RunLock(out):`` holds the folder's lock or raises :class:`RunFolderBusy`."""

    def __init__(self, folder: Path | str) -> None:
        self.path = Path(folder) / LOCK_FILE
        self._fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _describe(os.pread(fd, 4096, 0))
                os.close(fd)
                raise RunFolderBusy(
                    f"{self.path.parent} is in use by another run ({holder}); wait for it to "
                    "finish or choose another --out folder"
                ) from None
        info = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "command": " ".join(redact_argv(sys.argv[:8])),
            "started": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(info).encode("utf-8"), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock
            self._fd = None

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def _describe(raw: bytes) -> str:
    try:
        info = json.loads(raw.decode("utf-8"))
        command = " ".join(redact_argv(str(info["command"]).split(" ")))  # a lock of an older run
        return f"pid {info['pid']} on {info['host']}, started {info['started']}: {command}"
    except (ValueError, KeyError, TypeError):
        return "a process that left no details"
