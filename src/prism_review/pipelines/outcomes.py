"""What a unit's outcome leaves in the run folder, apart from the scheduling that produced it:
the stamp on a finished unit's rows, a failed unit's line in ``<out>/errors.jsonl``, and which
failures stop the run instead (:mod:`~prism_review.pipelines.runner` runs the units).
"""

from __future__ import annotations

import contextlib
import json
import traceback
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from prism_review.judge.markup import masked_counts

if TYPE_CHECKING:
    from prism_review.dimensions.base import Dimension, ResultRow, WorkUnit
    from prism_review.judge.base import Judge
    from prism_review.pipelines.run_config import EvalOptions


def is_fatal(exc: BaseException) -> bool:
    """Errors that must stop the run: the max-errors cutoff, bad credentials or config, and a
    full disk, file-size limit or read-only folder (every later unit would fail the same way,
    each leaving a traceback in ``errors.jsonl``, after its calls were paid for)."""
    from prism_review.atomic import is_disk_error
    from prism_review.llm.errors import ConfigError, FatalProviderError, TooManyErrors

    return isinstance(exc, TooManyErrors | FatalProviderError | ConfigError) or bool(
        getattr(exc, "fatal", False)
    ) or is_disk_error(exc)


#: unit failures one run writes to ``errors.jsonl`` with their traceback; later ones are counted
#: in one closing line
MAX_FAILURE_ROWS = 500
#: characters of a failure's traceback kept
MAX_TRACEBACK_CHARS = 4000


class FailureLog:
    """A run's unit failures in ``errors.jsonl``, bounded: the first :data:`MAX_FAILURE_ROWS`
    with their traceback, then a count written by :meth:`close` (a run where every unit fails
    no longer fills the disk with tracebacks). A failure that cannot be written (the disk) is
    counted with them."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.written = 0
        self.not_written = 0

    def record(self, dim: Dimension, unit: WorkUnit, exc: BaseException) -> None:
        """Call from the ``except`` block: the traceback is the one being handled."""
        if self.written >= MAX_FAILURE_ROWS:
            self.not_written += 1
            return
        row = {
            "dimension": dim.name,
            "unit_key": unit.key,
            "error": f"{type(exc).__name__}: {exc}"[:MAX_TRACEBACK_CHARS],
            "traceback": traceback.format_exc(limit=5)[-MAX_TRACEBACK_CHARS:],
            "time": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        try:
            with open(self.path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(row) + "\n")
        except OSError:
            self.not_written += 1
            return
        self.written += 1

    def close(self) -> None:
        """Write the count of failures left out, if any."""
        if not self.not_written:
            return
        note = {"kind": "note", "error": f"{self.not_written} more unit failure(s) not written "
                f"here (at most {MAX_FAILURE_ROWS} per run); the run's totals count them all",
                "time": datetime.now(UTC).isoformat(timespec="seconds")}
        with contextlib.suppress(OSError), open(self.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(note) + "\n")


def stamp(
    row: ResultRow,
    dim: Dimension,
    unit: WorkUnit,
    judge: Judge,
    opts: EvalOptions,
    chash: str,
) -> None:
    """Fill in what every row of a finished unit carries: its dimension and unit, the paper's
    meta, the judge, the mode and the config hash (and, offline, what the judge left unread)."""
    row.dimension = dim.name
    row.unit_key = unit.key
    row.meta = {**unit.extra.get("meta", {}), **row.meta}
    row.judge = judge.name
    row.mode = "compat" if opts.compat else "clean"
    row.config_hash = chash
    if judge.mode == "offline":  # what the offline judges left unread of the review (issue 16)
        for review in unit.reviews:
            if review.reviewer_id == row.reviewer_id and review.system == row.system:
                if counts := masked_counts(review.text):
                    row.extracted.setdefault("offline_masked", counts)
                break
