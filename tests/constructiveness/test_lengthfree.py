"""D3's ridge leaves the length term unpenalised: other features explain what length does not."""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import Ridge

from prism_review.judge.constructiveness.features import HAND_NAMES
from prism_review.training.constructiveness import rubric_fit as F
from prism_review.training.constructiveness import train as T
from prism_review.training.constructiveness.lengthfree import length_free_ridge


def _data(n: int = 300) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    length = rng.uniform(1.0, 6.0, n)
    x = np.column_stack([rng.normal(size=(n, 4)), length, rng.normal(size=n)])
    y = 1.5 * length + 0.8 * x[:, 0] + rng.normal(scale=0.2, size=n)
    return x, y, rng.uniform(0.5, 1.0, n)


def test_the_length_slope_is_not_shrunk_however_strong_the_penalty() -> None:
    x, y, w = _data()
    coef, _ = length_free_ridge(x, y, 1e7, w, length_col=4)
    z = np.column_stack([np.ones(len(y)), x[:, 4]])
    slope = np.linalg.lstsq(z * np.sqrt(w)[:, None], y * np.sqrt(w), rcond=None)[0][1]
    assert abs(coef[4] - slope) < 1e-6
    assert np.abs(np.delete(coef, 4)).max() < 1e-3  # everything else is shrunk away
    plain = Ridge(alpha=1e7).fit(x, y, sample_weight=w).coef_
    assert abs(plain[4]) < 0.05  # a plain ridge shrinks length too


def test_it_is_the_ridge_with_an_unpenalised_length_column() -> None:
    # penalised Frisch–Waugh–Lovell: the same fit as a plain ridge whose length column is scaled
    # so far up that its penalty vanishes
    x, y, w = _data()
    coef, b = length_free_ridge(x, y, 3.0, w, length_col=4)
    big = x.copy()
    big[:, 4] *= 1e4
    m = Ridge(alpha=3.0).fit(big, y, sample_weight=w)
    ref = m.coef_.copy()
    ref[4] *= 1e4
    np.testing.assert_allclose(coef, ref, atol=1e-4)
    assert abs(b - m.intercept_) < 1e-3


def test_the_d3_setup_uses_it_on_the_log_length_column() -> None:
    assert T.SETUP["D3_justification"]["length_free"]
    assert not T.SETUP["D1_actionability"].get("length_free", False)
    assert F.length_column(100, T.SETUP["D3_justification"]) == 100 + HAND_NAMES.index("log_len")
    x, y, w = _data()
    src = np.zeros(len(y))
    coef, _ = F.fit_ridge(x, y, src, 1e7, [], 1.0, length_col=4)
    assert coef[4] > 1.4  # the length slope survives a penalty that zeroes the rest
    coef, _ = F.fit_ridge(x, y, src, 1e7, [], 1.0)
    assert abs(coef[4]) < 0.05
