"""D3's optional support features from the DoA encoder, and an artefact that uses them."""

from __future__ import annotations

import json

import numpy as np
import pytest

from prism_review.judge.constructiveness.model import ARTEFACT, artefact_dir, models_from_dict
from prism_review.judge.constructiveness.support import SUPPORT_NAMES, support_matrix, support_row


def test_support_row_is_shares_and_maxima_not_counts() -> None:
    probs = {
        "role": np.array([[0.9, 0.1], [0.2, 0.8], [0.4, 0.6]]),
        "mixed": np.array([[0.7, 0.3], [1.0, 0.0], [0.9, 0.1]]),
        "argumentative": np.array([[0.0, 1.0], [0.5, 0.5], [0.0, 1.0]]),
    }
    row = dict(zip(SUPPORT_NAMES, support_row(probs), strict=True))
    assert row["premise_share"] == pytest.approx(2 / 3)
    assert row["premise_max"] == pytest.approx(0.8)
    assert row["premise_mean"] == pytest.approx(0.5)
    assert row["mixed_max"] == pytest.approx(0.3)
    assert row["support_any"] == pytest.approx(0.8)
    assert row["argumentative_mean"] == pytest.approx(2.5 / 3)
    # the same sentences twice over: a longer comment, the same features
    doubled = {k: np.vstack([v, v]) for k, v in probs.items()}
    assert support_row(doubled) == pytest.approx(support_row(probs))


def test_support_matrix_reads_the_encoder_per_comment() -> None:
    texts = [
        "The method is not novel.",
        "The method is not novel. Table 2 shows it matches the baseline of Smith et al. (2020) within 0.1 points.",
    ]
    m = support_matrix(texts)
    assert m.shape == (2, len(SUPPORT_NAMES))
    assert ((m >= 0) & (m <= 1)).all()
    assert m[1, SUPPORT_NAMES.index("premise_max")] > m[0, SUPPORT_NAMES.index("premise_max")]
    assert support_matrix([]).shape == (0, len(SUPPORT_NAMES))


def _artefact() -> dict:
    return json.loads((artefact_dir() / ARTEFACT).read_text(encoding="utf-8"))


def test_an_artefact_with_support_columns_adds_them_to_d3() -> None:
    d = _artefact()
    texts = ["The results are weak. Table 2 shows the gain is within noise (0.1 points)."]
    before = models_from_dict(d).rubric_scores(texts)["D3_justification"][0]
    d["rubric"]["support"] = list(SUPPORT_NAMES)
    for s in d["rubric"]["scorers"].values():
        s["coef"] = s["coef"] + [0.0] * len(SUPPORT_NAMES)
    d3 = d["rubric"]["scorers"]["D3_justification"]
    d3["coef"][-len(SUPPORT_NAMES) + SUPPORT_NAMES.index("premise_max")] = 1.0
    after = models_from_dict(d).rubric_scores(texts)["D3_justification"][0]
    premise_max = support_matrix(texts)[0, SUPPORT_NAMES.index("premise_max")]
    assert after[0] == pytest.approx(before[0] + premise_max)


def test_an_artefact_built_with_other_support_features_is_refused() -> None:
    d = _artefact()
    d["rubric"]["support"] = ["premise_share"]
    for s in d["rubric"]["scorers"].values():
        s["coef"] = s["coef"] + [0.0]
    with pytest.raises(ValueError, match="rebuild it"):
        models_from_dict(d).rubric_scores(["A comment."])
