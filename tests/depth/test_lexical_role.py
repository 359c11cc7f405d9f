"""The lexical-stack experiment's feature layout (issue 12): neighbours stay inside a review,
and the figures are the ones ``prism agreement --dataset substanreview`` reports."""

import numpy as np

from prism_review.agreement.substanreview import r_premise
from prism_review.judge.depth.model import load_model
from prism_review.training.depth.lexical_role import (
    LABELS,
    NEIGHBOUR_WEIGHT,
    lexical_rows,
    neighbour_block,
    scores,
)


def test_neighbour_block_does_not_cross_review_edges() -> None:
    logp = np.arange(12, dtype=float).reshape(4, 3)
    groups = np.array([0, 0, 1, 1])
    out = neighbour_block(logp, groups)
    assert out.shape == (4, 9)
    np.testing.assert_array_equal(out[:, :3], logp)
    np.testing.assert_array_equal(out[0, 3:6], 0)  # first of review 0: no previous
    np.testing.assert_array_equal(out[1, 6:9], 0)  # last of review 0 does not see review 1
    np.testing.assert_array_equal(out[2, 3:6], 0)  # first of review 1 does not see review 0
    np.testing.assert_array_equal(out[1, 3:6], logp[0])
    np.testing.assert_array_equal(out[2, 6:9], logp[3])


def test_lexical_rows_hold_own_and_half_weighted_neighbour_vectors() -> None:
    lin = load_model()
    ns = len(lin.vocab)
    texts = ["The method is weak.", "Table 2 shows a drop of 3 points.", "Thanks."]
    x = lexical_rows(lin, texts).toarray()
    assert x.shape == (3, 3 * ns + len(lin.dense_scale))
    idx, v = lin.sparse_vector(texts[1])
    np.testing.assert_allclose(x[1, idx], v)
    np.testing.assert_allclose(x[0, 2 * ns + idx], NEIGHBOUR_WEIGHT * v)  # next of unit 0
    np.testing.assert_allclose(x[2, ns + idx], NEIGHBOUR_WEIGHT * v)  # previous of unit 2
    assert not x[0, ns : 2 * ns].any() and not x[2, 2 * ns : 3 * ns].any()
    np.testing.assert_allclose(x[1, 3 * ns :], lin.dense_part(texts, 1))


def test_scores_r_premise_matches_the_agreement_formula() -> None:
    seqs = [["claim", "evidence", "none"], ["none", "none"], ["evidence", "evidence", "claim"]]
    y = np.array([LABELS.index(s) for seq in seqs for s in seq])
    g = np.array([k for k, seq in enumerate(seqs) for _ in seq])
    out = scores(y, y, g)
    assert out["macro_f1"] == 1.0
    assert out["r_premise.gold"] == round(float(np.mean([r_premise(s) for s in seqs])), 4)
