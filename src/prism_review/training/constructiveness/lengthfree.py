"""Ridge whose length term is not shrunk: the scorer's other features are fitted to the
length-residualised target.

A comment's word count alone predicts RevUtil verifiability at Spearman 0.66, so a ridge that
penalises every coefficient alike lets TF-IDF terms and cue counts stand in for length, and
shrinks the one column that measures it. :func:`length_free_ridge` leaves the intercept and the
log-length column unpenalised: it residualises the features and the target on [1, log length]
(weighted least squares), fits the ridge on the residuals, so every other coefficient explains
what length does not, then puts the length slope back by least squares (the penalised
Frisch–Waugh–Lovell identity). The result is an ordinary linear scorer over the same columns
(the length slope sits on the log-length column), so the artefact's format is unchanged.
"""

from __future__ import annotations

import numpy as np


def _wls(z: np.ndarray, t: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted least-squares coefficients of ``t`` (a vector or the columns of a matrix) on ``z``."""
    zw = z * w[:, None]
    return np.linalg.lstsq(zw.T @ z, zw.T @ t, rcond=None)[0]


def length_free_ridge(
    x: np.ndarray, y: np.ndarray, alpha: float, weight: np.ndarray | None, length_col: int
) -> tuple[np.ndarray, float]:
    """(coefficients, intercept) minimising Σ w (y − x·β − c)² + α‖β_other‖², where the
    coefficient of column ``length_col`` (log length) and the intercept c are not penalised."""
    from sklearn.linear_model import Ridge

    w = np.ones(len(y)) if weight is None else np.asarray(weight, dtype=float)
    z = np.column_stack([np.ones(len(y)), x[:, length_col]])
    xr = x - z @ _wls(z, x, w)
    yr = y - z @ _wls(z, y, w)
    xr[:, length_col] = 0.0  # exactly 0 already, up to rounding
    m = Ridge(alpha=alpha, fit_intercept=False).fit(xr, yr, sample_weight=w)
    coef = np.asarray(m.coef_, dtype=float).copy()
    coef[length_col] = 0.0
    c, slope = _wls(z, y - x @ coef, w)
    coef[length_col] = slope
    return coef, float(c)
