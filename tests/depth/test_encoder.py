"""The offline DoA judge's sentence encoder: context module by hand, determinism, context use."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from prism_review.judge.depth import encoder as encoder_module
from prism_review.judge.depth.encoder import (
    ENCODER_DIR_ENV,
    ENCODER_FILES,
    contextualise,
    load_encoder,
)

GELU_1 = 0.8413447460685429  # 1 * Φ(1)
GELU_2 = 1.9544997361036416  # 2 * Φ(2)


def test_contextualise_by_hand() -> None:
    """One layer whose only tap is the previous unit: x_i = e_i + gelu(e_{i-1})."""
    e = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]], dtype=np.float32)
    w = np.zeros((2, 2, 3), dtype=np.float32)
    w[:, :, 0] = np.eye(2)  # tap 0 reads the previous position (zero padding before the first)
    b = np.zeros(2, dtype=np.float32)
    z = contextualise(e, [(w, b)])
    assert z.shape == (3, 6)
    assert np.allclose(z[:, :2], e)  # own block
    expected_x = np.array([[1.0, 0.0], [0.0 + GELU_1, 2.0], [1.0, 1.0 + GELU_2]])
    assert np.allclose(z[:, 2:4], expected_x, atol=1e-6)
    assert np.allclose(z[:, 4:], np.tile([2 / 3, 1.0], (3, 1)))  # call mean, every row


def test_contextualise_next_tap_and_bias() -> None:
    e = np.array([[0.0], [1.0]], dtype=np.float32)
    w = np.zeros((1, 1, 3), dtype=np.float32)
    w[0, 0, 2] = 1.0  # the next unit
    z = contextualise(e, [(w, np.array([1.0], dtype=np.float32))])
    # x_0 = 0 + gelu(1 + e_1) = gelu(2); x_1 = 1 + gelu(1 + 0) = 1 + gelu(1)
    assert z[:, 1] == pytest.approx([GELU_2, 1 + GELU_1], abs=1e-6)


def test_sentence_vector_does_not_depend_on_its_neighbours() -> None:
    enc = load_encoder()
    s = "Table 2 reports 81.3% accuracy on ImageNet."
    enc.clear_cache()
    alone = enc.vectors([s])[0]
    enc.clear_cache()
    among = enc.vectors(["The paper is poorly written.", s, "Please add ablations."])[1]
    assert np.array_equal(alone, among)
    assert np.isfinite(alone).all() and alone.shape == (enc.meta["dim"],)


def test_vectors_do_not_depend_on_call_grouping_order_or_cache_state() -> None:
    """A sentence's vector is a function of its text alone: encoded alone, with others in any
    order, or after a restart with part of the texts already cached (a resumed run)."""
    enc = load_encoder()
    texts = [
        "The paper is poorly written.",
        "Table 2 reports 81.3% accuracy on ImageNet, which is below the baseline of [3].",
        "Please add ablations.",
        "Why is the learning rate fixed at 0.1 for all the experiments in Section 4?",
        "Minor: typo in Eq. 3.",
    ]
    enc.clear_cache()
    alone = np.vstack([enc.vectors([t])[0] for t in texts])
    for order in ([4, 3, 2, 1, 0], [1, 3, 0, 4, 2]):
        enc.clear_cache()
        got = enc.vectors([texts[i] for i in order])
        assert np.array_equal(got, alone[order])
    enc.clear_cache()
    enc.vectors(texts[:2])  # the interrupted run got this far
    assert np.array_equal(enc.vectors(texts), alone)
    enc.clear_cache()


def test_the_encoder_directory_can_be_overridden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """$PRISM_DEPTH_ENCODER_DIR loads another artefact directory (to compare a new encoder
    with `prism agreement`); a directory without the files is refused by name."""
    bundled = load_encoder().path
    for f in ENCODER_FILES:
        (tmp_path / f).symlink_to(bundled / f)
    monkeypatch.setenv(ENCODER_DIR_ENV, str(tmp_path))
    encoder_module.load_encoder.cache_clear()
    try:
        assert load_encoder().path == tmp_path
        monkeypatch.setenv(ENCODER_DIR_ENV, str(tmp_path / "absent"))
        encoder_module.load_encoder.cache_clear()
        with pytest.raises(FileNotFoundError, match="PRISM_DEPTH_ENCODER_DIR"):
            load_encoder()
    finally:
        monkeypatch.delenv(ENCODER_DIR_ENV)
        encoder_module.load_encoder.cache_clear()
    assert load_encoder().path == bundled


def test_probabilities_read_the_context_and_the_roles_are_sensible() -> None:
    enc = load_encoder()
    fact = "In Table 2 the model reaches 81.3% top-1 accuracy on ImageNet with 25M parameters."
    judgement = "I find the paper poorly written and the contribution unconvincing."
    p = enc.probabilities([judgement, fact])
    for h, classes in enc.classes.items():
        assert p[h].shape == (2, len(classes))
        assert np.allclose(p[h].sum(axis=1), 1.0, atol=1e-5)
    premise = enc.classes["role"].index("Premise")
    assert p["role"][1, premise] > p["role"][0, premise]
    # the same sentence among other neighbours gets other probabilities (context is read)
    q = enc.probabilities(["Thanks to the authors for the rebuttal.", fact, "Typo on page 3."])
    assert not np.allclose(p["role"][1], q["role"][1])
    # and the same call twice gives the same answer
    assert np.array_equal(enc.probabilities([judgement, fact])["role"], p["role"])


def test_a_call_larger_than_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """A call with more sentences than the cache holds still gets every vector."""
    enc = load_encoder()
    enc.clear_cache()
    monkeypatch.setattr(enc._cache, "size", 2)  # the shared VectorCache holds the bound
    texts = ["First point.", "Second point.", "Third point.", "Fourth point."]
    vecs = enc.vectors(texts)
    assert vecs.shape == (4, enc.meta["dim"])
    assert enc.cached == 2
    enc.clear_cache()


def test_empty_call() -> None:
    p = load_encoder().probabilities([])
    assert all(v.shape[0] == 0 for v in p.values())
