"""The ground step scores all premises of a review in one call (``DepthModel.scores_alone``),
and must give exactly what the per-premise call ``scores([text])`` gave: the same score rows,
bit for bit, and so the same grounding labels, on real review text (DISAPERE dev and the
bundled demo's reviews, sentences and clause pieces)."""

from __future__ import annotations

import numpy as np
import pytest

from prism_review.data.layout import EvalLayout, demo_root
from prism_review.judge.depth.clauses import split_clause
from prism_review.judge.depth.data import load_disapere
from prism_review.judge.depth.model import load_model
from prism_review.judge.depth.models import Unit
from prism_review.judge.depth.offline import ground
from prism_review.shared_folder import DATA
from prism_review.text import sentence_spans

DEV = DATA / "labels" / "disapere" / "dev.jsonl"


def _demo_texts() -> list[str]:
    layout = EvalLayout(demo_root())
    out: list[str] = []
    for v in layout.venues():
        for p in layout.paper_ids(v):
            for s in layout.systems(v):
                for r in layout.load_reviews(v, p, s):
                    for sec in r.sections:
                        for sp in sentence_spans(sec.text):
                            out.append(sp.text)
                            out.extend(split_clause(sp.text) or ())
    return out


def _texts() -> list[str]:
    texts = _demo_texts()
    if DEV.is_file():
        texts += [t for r in load_disapere(DEV) for t in r.texts]
    return list(dict.fromkeys(texts))


def _per_premise(model, text):  # type: ignore[no-untyped-def]
    """The ground step before: one ``scores`` call per premise."""
    return model.predict("grounding", model.scores([text])["grounding"])[0]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return _texts()


def test_scores_alone_rows_are_the_per_premise_rows(texts: list[str]) -> None:
    model = load_model()
    model.clear_cache()
    together = model.scores_alone(texts)
    assert len(texts) > 1000
    for i, t in enumerate(texts):
        one = model.scores([t])
        for head, rows in together.items():
            assert np.array_equal(rows[i], one[head][0]), (head, t)


def test_ground_labels_equal_per_premise_labels(texts: list[str]) -> None:
    model = load_model()
    model.clear_cache()
    out = ground([Unit(index=i, text=t) for i, t in enumerate(texts)])
    want = [int(_per_premise(model, t)) for t in texts]
    got = [g.grounding_score for g in out.grounding_results]
    assert got == want
    assert len(set(got)) == 3  # the data exercises every label


def test_scores_alone_of_nothing() -> None:
    assert all(v.shape[0] == 0 for v in load_model().scores_alone([]).values())


def test_sparse_vectors_equal_the_term_string_path(texts: list[str]) -> None:
    """The index-counting ``sparse_vector`` against counting the term strings (the code
    before), bit for bit, on real review text."""
    import math
    from collections import Counter

    from prism_review.judge.depth.features import unit_terms

    model = load_model()
    for t in texts:
        counts = Counter(unit_terms(t))
        idx = [model.vocab[w] for w in counts if w in model.vocab]
        tf = [1.0 + math.log(c) for w, c in counts.items() if w in model.vocab]
        v = np.asarray(tf, dtype=np.float64) * model.idf[np.asarray(idx, dtype=np.int64)]
        if idx:
            v = v / np.linalg.norm(v)
        ia, got = model.sparse_vector(t)
        assert ia.tolist() == idx and np.array_equal(got, v), t
