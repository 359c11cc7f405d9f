"""The rubric scorer's parts (D1–D3 of the offline constructiveness judge): the regression targets
read from the labels, the feature matrix and the column blocks a dimension leaves out, the masked
ridge fit and its predictions, and the 1–5 → 0/1/2 conversion by proportion matching.

How they are cross-validated, chosen and shipped is :mod:`.train`'s (and :mod:`.cv_repeat`'s
repeated CV); this module holds no training protocol of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from prism_review.judge.constructiveness.features import HAND_NAMES, Tfidf, density_matrix
from prism_review.training.constructiveness.lengthfree import length_free_ridge


def numeric_mean(labels: Sequence[Any]) -> float:
    """Mean of the numeric labels (``"X"`` and nulls ignored); NaN when there are none."""
    v = [float(x) for x in labels if isinstance(x, int | float) and not isinstance(x, bool)]
    return float(np.mean(v)) if v else float("nan")


def majority(label: Any) -> float:
    """The majority label as a float, NaN when missing or ``"X"``."""
    return (
        float(label)
        if isinstance(label, int | float) and not isinstance(label, bool)
        else float("nan")
    )


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    from scipy.stats import spearmanr

    return float(spearmanr(a, b)[0])


def levels(p: np.ndarray, t1: float, t2: float) -> np.ndarray:
    return np.where(p < t1, 0, np.where(p < t2, 1, 2))


#: RevUtil 1–5 → PRISM 0/1/2 by the level definitions (data README §6): actionability 1 (no
#: action) → 0, 2–3 (implicit or vague action: a "general direction") → 1, 4–5 (explicit and
#: concrete) → 2; grounding_specificity 1–2 (not grounded) → 0, 3 (weakly grounded, specific) → 1,
#: 4–5 (fully grounded: an exact element) → 2; verifiability 1 (no support) → 0, 2–3 (some,
#: vague support: "partial reasoning") → 1, 4–5 → 2.
CONVERSION: dict[str, dict[int, int]] = {
    "actionability": {1: 0, 2: 1, 3: 1, 4: 2, 5: 2},
    "grounding_specificity": {1: 0, 2: 0, 3: 1, 4: 2, 5: 2},
    "verifiability": {1: 0, 2: 1, 3: 1, 4: 2, 5: 2},
}


def proportion_thresholds(pred: np.ndarray, gold: np.ndarray, aspect: str) -> tuple[float, float]:
    """(t1, t2): prediction quantiles giving the converted gold labels' level shares."""
    lv = np.array([CONVERSION[aspect][int(g)] for g in gold])
    q1, q2 = np.quantile(pred, [float((lv == 0).mean()), float((lv <= 1).mean())])
    return float(q1), float(q2)


def ridge(
    x: np.ndarray, y: np.ndarray, alpha: float, weight: np.ndarray | None = None
) -> tuple[np.ndarray, float]:
    from sklearn.linear_model import Ridge

    m = Ridge(alpha=alpha).fit(x, y, sample_weight=weight)
    return np.asarray(m.coef_), float(m.intercept_)


def group_folds(groups: Sequence[str], k: int = 5) -> list[tuple[np.ndarray, np.ndarray]]:
    from sklearn.model_selection import GroupKFold

    idx = np.arange(len(groups))
    return [(tr, te) for tr, te in GroupKFold(k).split(idx, groups=list(groups))]


def word_counts(texts: Sequence[str]) -> np.ndarray:
    return np.array([len(t.split()) for t in texts], dtype=float)


def feature_matrix(tf: Tfidf, texts: Sequence[str], hand: np.ndarray, support: np.ndarray) -> np.ndarray:
    """[TF-IDF | hand | densities | support] of ``texts`` (``hand``, ``support``: their hand and
    :func:`~prism_review.judge.constructiveness.support.support_matrix` features)."""
    return np.hstack([tf.transform(texts), hand, density_matrix(hand), support])


def unused_blocks(n_tf: int, n_hand: int, n_support: int, n_cols: int, setup: dict[str, Any]) -> list[slice]:
    """Column blocks a dimension's set-up leaves out (densities, support)."""
    out = []
    if not setup["density"]:
        out.append(slice(n_tf + n_hand, n_cols - n_support))
    if not setup.get("support", False):
        out.append(slice(n_cols - n_support, n_cols))
    return out


def length_column(n_tf: int, setup: dict[str, Any]) -> int | None:
    """The log-length column of :func:`feature_matrix` when the set-up leaves it unpenalised, else None."""
    return n_tf + HAND_NAMES.index("log_len") if setup.get("length_free", False) else None


def masked(x: np.ndarray, unused: list[slice]) -> np.ndarray:
    if not unused:
        return x
    x = x.copy()
    for cols in unused:
        x[:, cols] = 0.0
    return x


def fit_ridge(
    x: np.ndarray,
    y: np.ndarray,
    src: np.ndarray,
    alpha: float,
    unused: list[slice],
    gpt_weight: float,
    length_col: int | None = None,
) -> tuple[np.ndarray, float]:
    """Ridge on [x | source column]; the ``unused`` column blocks zeroed (their coefficients are
    then exactly 0). Returns the coefficients of ``x`` (the source column is dropped: it is 0 at
    prediction time) and the intercept. ``length_col``: the log-length column, left unpenalised
    (:func:`~.lengthfree.length_free_ridge`); None: plain ridge."""
    x = masked(x, unused)
    ok = ~np.isnan(y)
    w = np.where(src > 0, gpt_weight, 1.0)
    xs = np.hstack([x, src[:, None]])[ok]
    if length_col is None:
        coef, b = ridge(xs, y[ok], alpha, w[ok])
    else:
        coef, b = length_free_ridge(xs, y[ok], alpha, w[ok], length_col)
    return coef[:-1], b


def level_shares(lv: np.ndarray) -> list[float]:
    """Share of points at level 0, 1 and 2."""
    return [round(float((lv == k).mean()), 4) for k in (0, 1, 2)]


def training_rows(human: np.ndarray, gpt: np.ndarray, n_h: int, use_gpt: bool) -> np.ndarray:
    """Training rows: the human points ``human`` and, when used, the GPT-4o points ``gpt``."""
    return np.r_[human, n_h + gpt] if use_gpt else human


def predict(fit: tuple[Any, ...], train: np.ndarray, test: np.ndarray) -> np.ndarray:
    """Fit on rows ``train`` of ``fit`` = (x, y, source, alpha, unused blocks, GPT-4o weight,
    log-length column or None) and predict rows ``test``."""
    x, y, src, alpha, unused, gw, length_col = fit
    coef, b = fit_ridge(x[train], y[train], src[train], alpha, unused, gw, length_col)
    return np.asarray(masked(x[test], unused) @ coef + b)
