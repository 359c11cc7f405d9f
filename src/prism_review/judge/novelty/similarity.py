"""Lexical similarity for the offline novelty judge: TF-IDF cosine over a small local corpus."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer


def tfidf_cosine(queries: Sequence[str], docs: Sequence[str]) -> np.ndarray:
    """``len(queries) × len(docs)`` cosine similarities, IDF fitted on queries + docs.

    Sub-linear term frequency, English stop words removed, tokens of ≥ 2 alphanumerics; an empty
    text has similarity 0 with everything.
    """
    texts = [q or "" for q in queries] + [d or "" for d in docs]
    if not any(t.strip() for t in texts):
        return np.zeros((len(queries), len(docs)))
    vec = TfidfVectorizer(sublinear_tf=True, stop_words="english", token_pattern=r"(?u)\b[A-Za-z0-9][A-Za-z0-9\-]+\b")
    try:
        m = vec.fit_transform(texts)
    except ValueError:  # only stop words
        return np.zeros((len(queries), len(docs)))
    q, d = m[: len(queries)], m[len(queries) :]
    return np.asarray((q @ d.T).todense())
