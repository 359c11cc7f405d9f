"""Hand-checked context features of the offline DoA judge: section state and neighbour rows."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from prism_review.judge.depth.features import (
    CONTEXT_NAMES,
    SECTION_KINDS,
    context_hand,
    section_features,
    section_kind,
)
from prism_review.training.depth.train import neighbour


def test_section_kind() -> None:
    assert section_kind("- Strengths: The paper is clear.") == "positive"
    assert section_kind("**Weaknesses**") == "negative"
    assert section_kind("Cons:") == "negative"
    assert section_kind("Minor comments: typo in eq. 3.") == "minor"
    assert section_kind("Summary: the paper proposes X.") == "summary"
    assert section_kind("- General Discussion:") == "other"
    assert section_kind("The strengths of the method are unclear.") is None


def test_section_features_by_hand() -> None:
    texts = ["Intro sentence.", "- Strengths: good.", "x", "- Weaknesses: bad.", "y", "z"]
    pos = SECTION_KINDS.index("positive")
    neg = SECTION_KINDS.index("negative")
    assert section_features(texts, 0) == [0.0] * len(SECTION_KINDS) + [0.0, 0.0]
    f = section_features(texts, 1)
    assert f[pos] == 1.0 and sum(f[: len(SECTION_KINDS)]) == 1.0 and f[-2:] == [1.0, 0.0]
    f = section_features(texts, 5)
    assert f[neg] == 1.0 and f[-2] == 0.0
    assert abs(f[-1] - np.log1p(2) / 4.0) < 1e-12
    assert len(context_hand(texts, 2)) == len(CONTEXT_NAMES)


def test_neighbour_rows_stay_inside_a_review() -> None:
    x = sp.csr_matrix(np.array([[1.0], [2.0], [3.0], [4.0]]))
    group = np.array([0, 0, 1, 1])
    assert neighbour(x, group, -1).toarray().ravel().tolist() == [0.0, 1.0, 0.0, 3.0]
    assert neighbour(x, group, 1).toarray().ravel().tolist() == [2.0, 0.0, 4.0, 0.0]
