"""scikit-learn's English stop words, imported on first use.

Importing scikit-learn takes ~2.5 s of CPU; every ``prism`` process imports the novelty
modules (the CLI lists all dimensions' settings, and a ``--workers`` process builds the run's
settings), while only a novelty evaluation reads the stop words. Same frozenset as before.
"""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def english_stop_words() -> frozenset[str]:
    """``sklearn.feature_extraction.text.ENGLISH_STOP_WORDS``."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)
