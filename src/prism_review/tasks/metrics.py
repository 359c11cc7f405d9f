"""Pure metrics for the prediction tasks (no model calls, no I/O).

Classification (accept = positive class):

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
from collections.abc import Sequence
from typing import Any

import numpy as np


def roc_auc(y_true: Sequence[bool], scores: Sequence[float]) -> float | None:
    """Mann–Whitney ROC-AUC (ties ½); None when a class is missing."""
    pos = [s for y, s in zip(y_true, scores, strict=True) if y]
    neg = [s for y, s in zip(y_true, scores, strict=True) if not y]
    if not pos or not neg:
        return None
    p = np.asarray(pos, dtype=float)[:, None]
    n = np.asarray(neg, dtype=float)[None, :]
    wins = (p > n).sum() + 0.5 * (p == n).sum()
    return float(wins / (p.size * n.size))


def _f1(tp: int, fp: int, fn: int) -> float:
    prec = tp / (tp + fp) if tp + fp else 0.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    return 2 * prec * rec / (prec + rec) if prec + rec else 0.0


def classification_metrics(
    y_true: Sequence[bool], y_pred: Sequence[bool], scores: Sequence[float | None] | None = None
) -> dict[str, Any]:
    """Accuracy, balanced accuracy, macro-F1, ROC-AUC and accept rates (see the module doc)."""
    if len(y_true) != len(y_pred):
        raise ValueError("y_true and y_pred differ in length")
    n = len(y_true)
    tp = sum(1 for t, p in zip(y_true, y_pred, strict=True) if t and p)
    tn = sum(1 for t, p in zip(y_true, y_pred, strict=True) if not t and not p)
    fp = sum(1 for t, p in zip(y_true, y_pred, strict=True) if not t and p)
    fn = sum(1 for t, p in zip(y_true, y_pred, strict=True) if t and not p)
    recalls = []
    if tp + fn:
        recalls.append(tp / (tp + fn))
    if tn + fp:
        recalls.append(tn / (tn + fp))
    f1s = []
    if tp + fn or tp + fp:
        f1s.append(_f1(tp, fp, fn))
    if tn + fp or tn + fn:
        f1s.append(_f1(tn, fn, fp))
    auc = None
    if scores is not None and n and all(s is not None for s in scores):
        auc = roc_auc(y_true, [float(s) for s in scores if s is not None])
    return {
        "n": n,
        "n_accept": tp + fn,
        "n_reject": tn + fp,
        "accept_rate": (tp + fn) / n if n else None,
        "predicted_accept_rate": (tp + fp) / n if n else None,
        "accuracy": (tp + tn) / n if n else None,
        "balanced_accuracy": sum(recalls) / len(recalls) if recalls else None,
        "macro_f1": sum(f1s) / len(f1s) if f1s else None,
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
