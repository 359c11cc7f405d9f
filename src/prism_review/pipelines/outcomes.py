"""What a unit's outcome leaves in the run folder, apart from the scheduling that produced it:
the stamp on a finished unit's rows, a failed unit's line in ``<out>/errors.jsonl``, and which
failures stop the run instead (:mod:`~prism_review.pipelines.runner` runs the units).
"""

from __future__ import annotations

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
    """Errors that must stop the run: the max-errors cutoff, bad credentials or config."""
    from prism_review.llm.errors import ConfigError, FatalProviderError, TooManyErrors

    return isinstance(exc, TooManyErrors | FatalProviderError | ConfigError) or bool(
        getattr(exc, "fatal", False)
    )


def record_failure(errors_path: Path, dim: Dimension, unit: WorkUnit, exc: BaseException) -> None:
    """Append the failed unit's line to ``errors.jsonl`` (call it from the ``except`` block: the
    traceback is the one being handled); the unit is not written, so a re-run computes it."""
    with open(errors_path, "a", encoding="utf-8") as fh:
        fh.write(
            json.dumps(
                {
                    "dimension": dim.name,
                    "unit_key": unit.key,
                    "error": f"{type(exc).__name__}: {exc}",
                    "traceback": traceback.format_exc(limit=5),
                    "time": datetime.now(UTC).isoformat(timespec="seconds"),
                }
            )
            + "\n"
        )


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
