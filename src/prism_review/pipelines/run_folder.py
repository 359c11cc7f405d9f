"""The run folder's life around a run: created only for a run that starts, and never touched by
a dry run.

- :func:`made_folder` creates ``--out`` for the run and, when the run is refused before it
  wrote anything (an unknown name, a bad sample, a busy folder), removes what it created, so no
  folder holding only ``.lock`` is left behind.
- :func:`dry_run_folder` gives a dry run a scratch copy of what it reads (the folder's
  ``manifest.json`` and ``results.jsonl``, so finished units are not estimated again): the
  estimate never writes a manifest, a lock or a result into the real folder.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from prism_review.pipelines.runlock import LOCK_FILE

#: what a dry run reads from the real folder
DRY_RUN_READS = ("manifest.json", "results.jsonl")


@contextlib.contextmanager
def made_folder(out: Path) -> Iterator[Path]:
    """``out``, created if needed; removed again when the run fails leaving only its lock."""
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    try:
        yield out
    except BaseException:
        if created:
            with contextlib.suppress(OSError):
                left = [p.name for p in out.iterdir()]
                if set(left) <= {LOCK_FILE}:
                    (out / LOCK_FILE).unlink(missing_ok=True)
                    out.rmdir()
        raise


@contextlib.contextmanager
def dry_run_folder(out: Path, *, copy: bool = True) -> Iterator[Path]:
    """A scratch folder holding copies of what a dry run reads from ``out`` (when ``copy``)."""
    with tempfile.TemporaryDirectory(prefix="prism-dry-run-") as tmp:
        scratch = Path(tmp)
        if copy and out.is_dir():
            for name in DRY_RUN_READS:
                if (out / name).is_file():
                    shutil.copyfile(out / name, scratch / name)
        yield scratch
