"""Where the project's shared material lives (specs, reference vectors, human labels).

The shared folder sits beside the repository (``<parent>/shared``), both on a developer machine
and in CI's fresh clone; ``PRISM_SHARED_DIR`` overrides the search. Tests and training commands
use these paths instead of absolute ones, so they work wherever the clone is. Product code (the
training commands, ``prism agreement``) reads them from here, never from :mod:`prism_review.testing`.
"""

from __future__ import annotations

import os
from pathlib import Path


def shared_dir() -> Path:
    """The ``shared`` folder: ``$PRISM_SHARED_DIR``, else the first ``shared/`` with ``spec/``
    and ``data/`` beside this file's ancestors or the working directory's."""
    env = os.environ.get("PRISM_SHARED_DIR")
    if env:
        return Path(env)
    starts = [Path(__file__).resolve(), Path.cwd().resolve()]
    for start in starts:
        for parent in start.parents:
            cand = parent / "shared"
            if (cand / "spec").is_dir() and (cand / "data").is_dir():
                return cand
    return Path.cwd().parent / "shared"


SHARED = shared_dir()
VECTORS = SHARED / "spec" / "vectors"
DATA = SHARED / "data"
