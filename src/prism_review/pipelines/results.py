"""The versioned results log: one JSON ``ResultRow`` per line, written a whole unit at a time.

Resume rests on two rules:

* a unit's rows are appended with one ``write`` (handed to the operating system before the unit
  counts as done, so a killed process loses nothing it counted); every row carries
  ``unit_size``, so a unit is complete only when that many rows with its key are present;
* the log is fsynced at most once every :data:`SYNC_SECONDS` and when the run closes it (one
  fsync per unit blocked the run's only thread for 2–11 ms per unit, up to a fifth of a
  corpus run's time): a machine crash loses at most the last second's units, which the next
  run recomputes;
* on open, a torn last line (the process was killed mid-write) and the rows of incomplete units
  are dropped, and the file is rewritten atomically without them;
* a damaged line elsewhere (not a result row: edited by hand, a disk error) is moved to
  ``results.quarantine.jsonl`` next to the log and counted; the other units resume.

So a run killed at any moment and started again ends with exactly the rows of an uninterrupted
run, with no duplicates.
"""

from __future__ import annotations

import os
import time
from collections import OrderedDict
from pathlib import Path

from prism_review.dimensions.base import RESULTS_SCHEMA_VERSION, ResultRow

#: the longest a unit's rows stay written but not fsynced (see the module docstring)
SYNC_SECONDS = 1.0


class ResultsLogError(ValueError):
    """The results log cannot be read (wrong schema version, not a results log)."""


def _unit_id(row: ResultRow) -> tuple[str, str]:
    return (row.dimension, row.unit_key)


class ResultsLog:
    """Append-only JSONL results log with unit-level atomicity."""

    def __init__(self, path: Path, config_hash: str = "") -> None:
        self.path = Path(path)
        #: the run's config hash: a row of another (a log copied or joined from another run) is
        #: moved to the quarantine file, not resumed as this run's unit
        self.config_hash = config_hash
        #: finished units → their row count (the rows stay on disk: a corpus-scale run's rows
        #: would not fit in memory; :meth:`rows` reads them back)
        self._done: dict[tuple[str, str], int] = {}
        self.n_rows = 0
        self.dropped_rows = 0
        #: damaged lines moved to :attr:`quarantine_path` when the log was opened
        self.quarantined: list[str] = []
        self._last_sync = time.monotonic()
        self._unsynced = False
        self._load()

    @property
    def quarantine_path(self) -> Path:
        return self.path.with_name(self.path.stem + ".quarantine.jsonl")

    # -- reading -------------------------------------------------------------------------
    def _load(self) -> None:
        if not self.path.exists():
            return
        damaged: list[tuple[int, str, str]] = []
        kept, dropped, torn = _complete_units(self.path, damaged, self.config_hash)
        self.dropped_rows = dropped + (1 if torn else 0)
        if damaged:
            with open(self.quarantine_path, "a", encoding="utf-8") as fh:
                for lineno, line, why in damaged:
                    fh.write(line + "\n")
                    self.quarantined.append(f"{self.path}: line {lineno}: {why}")
                fh.flush()
                os.fsync(fh.fileno())
        if torn or dropped or damaged:
            self._rewrite(kept)
        self._done = {key: len(rows) for key, rows in kept.items()}
        self.n_rows = sum(self._done.values())

    def _rewrite(self, kept: OrderedDict[tuple[str, str], list[ResultRow]]) -> None:
        tmp = self.path.with_suffix(self.path.suffix + ".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            for rows in kept.values():
                for row in rows:
                    fh.write(row.model_dump_json() + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)

    def is_done(self, dimension: str, unit_key: str) -> bool:
        return (dimension, unit_key) in self._done

    def rows(self) -> list[ResultRow]:
        """Every row of the finished units, read from disk in file order."""
        return read_results(self.path) if self.path.exists() else []

    def __len__(self) -> int:
        return len(self._done)

    # -- writing -------------------------------------------------------------------------
    def append_unit(self, rows: list[ResultRow]) -> None:
        """Append one unit's rows in a single write (fsynced within :data:`SYNC_SECONDS`, and
        by :meth:`sync`). Rows must share one unit key."""
        if not rows:
            raise ValueError("a unit must produce at least one row")
        key = _unit_id(rows[0])
        if any(_unit_id(r) != key for r in rows):
            raise ValueError("rows of one unit must share dimension and unit_key")
        if key in self._done:
            return
        for r in rows:
            r.unit_size = len(rows)
        payload = "".join(r.model_dump_json() + "\n" for r in rows)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(payload)
            fh.flush()
            now = time.monotonic()
            if now - self._last_sync >= SYNC_SECONDS:
                os.fsync(fh.fileno())
                self._last_sync, self._unsynced = now, False
            else:
                self._unsynced = True
        self._done[key] = len(rows)
        self.n_rows += len(rows)

    def sync(self) -> None:
        """fsync the units written since the last fsync (the runner calls it when a run ends)."""
        if not self._unsynced:
            return
        with open(self.path, "rb") as fh:
            os.fsync(fh.fileno())
        self._last_sync, self._unsynced = time.monotonic(), False


def _complete_units(
    path: Path, damaged: list[tuple[int, str, str]] | None = None, config_hash: str = ""
) -> tuple[OrderedDict[tuple[str, str], list[ResultRow]], int, bool]:
    """The complete units of a log, in file order; rows dropped (partial or repeated units);
    whether the last line was torn. A line that is not a result row is appended to ``damaged``
    as ``(line number, text, reason)`` (without that list it raises, naming the line); other
    schema versions raise."""
    raw = path.read_bytes()
    complete = raw[: raw.rfind(b"\n") + 1]
    groups: OrderedDict[tuple[str, str], list[ResultRow]] = OrderedDict()
    hashes: dict[str, int] = {}  # config hash -> its first line (read-only: one hash only)
    for lineno, raw_line in enumerate(complete.split(b"\n"), start=1):
        line = raw_line.decode("utf-8", errors="replace")
        if not line.strip():
            continue
        try:
            row = ResultRow.model_validate_json(raw_line)
        except ValueError as exc:
            why = f"not a result row ({str(exc).splitlines()[0]})"
            if damaged is None:
                raise ResultsLogError(
                    f"{path}: line {lineno} is {why}; run `prism evaluate` on the folder again "
                    "to move it aside"
                ) from exc
            damaged.append((lineno, line, why))
            continue
        if row.schema_version != RESULTS_SCHEMA_VERSION:
            raise ResultsLogError(
                f"{path}: line {lineno} has schema_version {row.schema_version}, "
                f"this prism-review writes {RESULTS_SCHEMA_VERSION}"
            )
        if config_hash and row.config_hash and row.config_hash != config_hash and damaged is not None:
            damaged.append((lineno, line, f"a row of config {row.config_hash}, not this run's "
                            f"{config_hash}"))
            continue
        if row.config_hash and damaged is None:
            hashes.setdefault(row.config_hash, lineno)
        if len(hashes) > 1:
            first = next(iter(hashes.items()))
            raise ResultsLogError(
                f"{path}: line {lineno} is a row of config {row.config_hash}, line {first[1]} of "
                f"config {first[0]}: the log mixes runs made with other settings, so its rows "
                "cannot be summarised together (keep each run in its own folder)")
        groups.setdefault(_unit_id(row), []).append(row)
    kept: OrderedDict[tuple[str, str], list[ResultRow]] = OrderedDict()
    dropped = 0
    for key, rows in groups.items():
        size = rows[0].unit_size
        if len(rows) >= size:
            kept[key] = rows[:size]  # a unit written twice keeps its first copy
            dropped += len(rows) - size
        else:
            dropped += len(rows)
    return kept, dropped, len(complete) < len(raw)


def read_results(path: Path | str) -> list[ResultRow]:
    """All complete rows of a results log (a run folder or the ``results.jsonl`` itself).

    Read-only: unlike :class:`ResultsLog`, it never rewrites the file.
    """
    p = Path(path)
    if p.is_dir():
        p = p / "results.jsonl"
    if not p.exists():
        raise FileNotFoundError(f"no results log at {p}")
    return [r for rows in _complete_units(p)[0].values() for r in rows]
