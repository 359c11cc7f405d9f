"""Pure metrics for the prediction tasks (no model calls, no I/O).

Classification (accept = positive class), computed with ``sklearn.metrics``:

* accuracy = (TP + TN) / n;
* balanced accuracy = mean over the classes present in ``y_true`` of that class's recall
  (TP / (TP + FN) for accept, TN / (TN + FP) for reject);
* macro-F1 = mean over the classes present in ``y_true`` or ``y_pred`` of
  F1 = 2·precision·recall / (precision + recall) (0 when precision + recall = 0);
* ROC-AUC = P(score of a random accepted paper > score of a random rejected one), ties counting
  ½ (the Mann–Whitney form); None unless both classes occur and every item has a score;
* accept rate = share of accepted papers among the labelled ones (``predicted_accept_rate``
  likewise for the predictions).

Regression (ratings):

* MAE = mean |ŷ − y|; RMSE = √(mean (ŷ − y)²);
* Pearson r, Spearman ρ (average ranks for ties), Kendall τ-b; None when n < 2 or either side
  is constant;
* within-k accuracy = share of items with |ŷ − y| ≤ k (k = 1 rating point on the raw scale).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np


def roc_auc(y_true: Sequence[bool], scores: Sequence[float]) -> float | None:
    """ROC-AUC (``sklearn.metrics.roc_auc_score``: the Mann–Whitney form, ties ½); None when
    a class is missing."""
    from sklearn.metrics import roc_auc_score

    if len(set(bool(y) for y in y_true)) < 2:
        return None
    return float(roc_auc_score([bool(y) for y in y_true], [float(s) for s in scores]))


def classification_metrics(
    y_true: Sequence[bool], y_pred: Sequence[bool], scores: Sequence[float | None] | None = None
) -> dict[str, Any]:
    """Accuracy, balanced accuracy, macro-F1, ROC-AUC and accept rates (see the module doc),
    computed with ``sklearn.metrics``."""
    from sklearn.metrics import accuracy_score, balanced_accuracy_score, f1_score

    if len(y_true) != len(y_pred):
        raise ValueError("y_true and y_pred differ in length")
    t = [bool(y) for y in y_true]
    p = [bool(y) for y in y_pred]
    n = len(t)
    tp = sum(1 for a, b in zip(t, p, strict=True) if a and b)
    tn = sum(1 for a, b in zip(t, p, strict=True) if not a and not b)
    fp = sum(1 for a, b in zip(t, p, strict=True) if not a and b)
    fn = sum(1 for a, b in zip(t, p, strict=True) if a and not b)
    auc = None
    if scores is not None and n and all(s is not None for s in scores):
        auc = roc_auc(t, [float(s) for s in scores if s is not None])
    balanced = None
    if n:
        with warnings.catch_warnings():  # one class in y_true: the mean of that class's recall
            warnings.simplefilter("ignore")
            balanced = float(balanced_accuracy_score(t, p))
    return {
        "n": n,
        "n_accept": tp + fn,
        "n_reject": tn + fp,
        "accept_rate": (tp + fn) / n if n else None,
        "predicted_accept_rate": (tp + fp) / n if n else None,
        "accuracy": float(accuracy_score(t, p)) if n else None,
        "balanced_accuracy": balanced,
        # over the classes present in y_true or y_pred; a class without a true positive has F1 0
        "macro_f1": float(f1_score(t, p, average="macro", zero_division=0)) if n else None,
        "roc_auc": auc,
        "tp": tp, "tn": tn, "fp": fp, "fn": fn,
    }  # fmt: skip


def _rank(values: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return np.asarray(rankdata(values, method="average"), dtype=float)


def _corr(a: np.ndarray, b: np.ndarray) -> float | None:
    if a.size < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return None
    return float(np.corrcoef(a, b)[0, 1])


def kendall_tau_b(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Kendall τ-b = (C − D) / √((n0 − n1)(n0 − n2)); None when n < 2 or a side is constant."""
    if len(a) < 2 or np.ptp(np.asarray(a, dtype=float)) == 0 or np.ptp(np.asarray(b, dtype=float)) == 0:
        return None
    from scipy.stats import kendalltau

    tau = float(kendalltau(a, b, variant="b").statistic)
    return None if math.isnan(tau) else tau


def regression_metrics(
    y_true: Sequence[float], y_pred: Sequence[float], *, within: float | None = 1.0,
    errors_for_within: Sequence[float] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """MAE, RMSE, Pearson, Spearman, Kendall τ-b and within-``within`` accuracy.

    ``errors_for_within`` supplies the absolute errors the within-k share is computed on (used
    when ``y`` is normalised but k is one *raw* rating point); by default |ŷ − y|.
    """
    if len(y_true) != len(y_pred):
        raise ValueError("y_true and y_pred differ in length")
    t = np.asarray(y_true, dtype=float)
    p = np.asarray(y_pred, dtype=float)
    n = int(t.size)
    out: dict[str, Any] = {"n": n}
    if not n:
        return {**out, "mae": None, "rmse": None, "pearson": None, "spearman": None,
                "kendall_tau": None, "within_1": None}  # fmt: skip
    err = p - t
    out["mae"] = float(np.mean(np.abs(err)))
    out["rmse"] = float(math.sqrt(float(np.mean(err**2))))
    out["pearson"] = _corr(t, p)
    out["spearman"] = _corr(_rank(t), _rank(p)) if n >= 2 else None
    out["kendall_tau"] = kendall_tau_b(list(t), list(p))
    if within is not None:
        abs_err = np.abs(err) if errors_for_within is None else np.asarray(errors_for_within, dtype=float)
        out["within_1"] = float(np.mean(abs_err <= within + 1e-9))
    return out
