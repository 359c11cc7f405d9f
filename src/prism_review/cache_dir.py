"""The one folder prism-review caches in: ``$PRISM_CACHE_DIR``, else the user cache dir.

Everything that keeps files between runs (the LLM response cache, the novelty literature
index built on first use) lives under :func:`cache_root`, so one variable moves or isolates all
of it (the tests point it at a temporary folder).
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def cache_root() -> Path:
    """``$PRISM_CACHE_DIR`` if set, else the user cache dir (``$XDG_CACHE_HOME/prism-review``
    on Linux)."""
    env = os.environ.get("PRISM_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_cache_dir("prism-review", appauthor=False))
