"""The inference-side TF-IDF path gives exactly the training-side terms and vectors.

``DepthModel.sparse_vector`` memoises each word's character n-grams and gathers the idf with
numpy; training builds its vocabulary with :func:`features.unit_terms`. Any drift between the
two would change the grounding head's scores, so both are compared term for term and bit for bit.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from prism_review.judge.depth.features import unit_terms
from prism_review.judge.depth.model import fast_unit_terms, load_model

TEXTS = [
    "The authors should compare against Smith et al. (2020) on Table 3.",
    "It is unclear why the loss in Eq. (4) converges; the proof of Lemma 2 assumes i.i.d. data.",
    "a",
    "",
    "!!! --- ???",
    "Große Äpfel İstanbul naïve café 123 ４５６ résumé ÉCOLE",
    "x x x x x x the the the the model model",
    "Überprüfung der Ergebnisse: 99.5% vs 12,3 %",
    "w_1 + w_2 = 3; ab ab ab cd_ef",
]


def _reference_sparse(model, text):  # type: ignore[no-untyped-def]
    """The implementation before the memo (per term: (1 + log c) · idf, then l2)."""
    counts = Counter(unit_terms(text))
    idx, val = [], []
    for term, c in counts.items():
        j = model.vocab.get(term)
        if j is not None:
            idx.append(j)
            val.append((1.0 + math.log(c)) * model.idf[j])
    v = np.asarray(val, dtype=np.float64)
    if idx:
        v = v / np.linalg.norm(v)
    return np.asarray(idx, dtype=np.int64), v


@pytest.mark.parametrize("text", TEXTS)
def test_fast_terms_equal_training_terms(text: str) -> None:
    assert fast_unit_terms(text) == unit_terms(text)
    assert fast_unit_terms(text) == unit_terms(text)  # second call served by the memo


def test_sparse_vector_bit_identical_on_real_sentences() -> None:
    from prism_review.testing.shared import DATA

    model = load_model()
    path = DATA / "labels" / "disapere" / "dev.jsonl"
    texts = list(TEXTS)
    if path.exists():
        from prism_review.judge.depth.data import load_disapere

        texts += [t for r in load_disapere(path)[:40] for t in r.texts]
    for text in texts:
        i_new, v_new = model.sparse_vector(text)
        i_ref, v_ref = _reference_sparse(model, text)
        assert i_new.tolist() == i_ref.tolist()
        assert v_new.dtype == v_ref.dtype and v_new.tobytes() == v_ref.tobytes(), text
