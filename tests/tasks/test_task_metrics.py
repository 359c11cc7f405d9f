"""Hand-computed checks of the task metrics."""

from __future__ import annotations

import math

import pytest

from prism_review.tasks.metrics import (
    classification_metrics,
    kendall_tau_b,
    regression_metrics,
    roc_auc,
)

Y = [True, True, True, False, False]
P = [True, False, True, False, True]
S = [0.9, 0.4, 0.7, 0.2, 0.6]


def test_classification_by_hand() -> None:
    m = classification_metrics(Y, P, S)
    # tp=2 fn=1 tn=1 fp=1
    assert (m["tp"], m["fn"], m["tn"], m["fp"]) == (2, 1, 1, 1)
    assert m["accuracy"] == pytest.approx(3 / 5)
    assert m["balanced_accuracy"] == pytest.approx((2 / 3 + 1 / 2) / 2)
    # F1(accept) = 2/3 (P = R = 2/3); F1(reject) = 1/2 (P = 1/2, R = 1/2)
    assert m["macro_f1"] == pytest.approx((2 / 3 + 1 / 2) / 2)
    # AUC: pairs (pos > neg) = 0.9:2, 0.4:1, 0.7:2 → 5 of 6
    assert m["roc_auc"] == pytest.approx(5 / 6)
    assert m["accept_rate"] == pytest.approx(3 / 5)
    assert m["predicted_accept_rate"] == pytest.approx(3 / 5)


def test_auc_ties_count_half_and_needs_both_classes() -> None:
    assert roc_auc([True, False], [0.5, 0.5]) == 0.5
    assert roc_auc([True, True], [0.1, 0.2]) is None
    # a missing score → no AUC at all (never a guess)
    assert classification_metrics(Y, P, [0.9, None, 0.7, 0.2, 0.6])["roc_auc"] is None


def test_single_class_balanced_accuracy_uses_present_class() -> None:
    m = classification_metrics([True, True, True], [True, False, True])
    assert m["balanced_accuracy"] == pytest.approx(2 / 3)
    # labels present in y_true or y_pred: accept (F1 = 0.8) and reject (F1 = 0: no true rejects)
    assert m["macro_f1"] == pytest.approx((0.8 + 0.0) / 2)
    assert m["roc_auc"] is None


def test_regression_by_hand() -> None:
    m = regression_metrics([1, 2, 3, 4], [2, 2, 2, 6])
    # errors 1, 0, -1, 2
    assert m["mae"] == pytest.approx(1.0)
    assert m["rmse"] == pytest.approx(math.sqrt(1.5))
    assert m["within_1"] == pytest.approx(3 / 4)
    # Pearson: cov 6 / sqrt(5 * 12)
    assert m["pearson"] == pytest.approx(6 / math.sqrt(60))
    # Spearman: ranks [1,2,3,4] vs [2,2,2,4] → 3 / sqrt(5 * 3)
    assert m["spearman"] == pytest.approx(3 / math.sqrt(15))
    # Kendall tau-b: C=3, D=0, n0=6, ties in pred = 3 → 3 / sqrt(6 * 3)
    assert m["kendall_tau"] == pytest.approx(3 / math.sqrt(18))


def test_kendall_discordant_and_constant() -> None:
    assert kendall_tau_b([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert kendall_tau_b([1, 2, 3], [5, 5, 5]) is None
    m = regression_metrics([1, 2, 3], [2, 2, 2])
    assert m["pearson"] is None and m["spearman"] is None and m["kendall_tau"] is None


def test_within_uses_supplied_raw_errors() -> None:
    m = regression_metrics([0.0, 0.5], [0.1, 0.9], errors_for_within=[1.0, 4.0])
    assert m["within_1"] == pytest.approx(0.5)
    assert regression_metrics([], [])["mae"] is None
